//! The search and indexing slow logs of the real binary: thresholds set
//! at index creation and changed with `PUT /<index>/_settings`, events on
//! the `strata::slowlog` target (enabled with `--log-level
//! info,strata::slowlog=trace`) at the most severe level reached, with
//! Elasticsearch's fields, read back from the JSON log lines.

use crate::support;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::Server;

/// One HTTP/1.1 request on a fresh connection; returns the status.
fn http(server: &Server, method: &str, path: &str, body: &Value) -> u16 {
    let body = body.to_string();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(server.http()).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).expect("write");
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).expect("reply");
    let text = String::from_utf8_lossy(&reply);
    text[9..12].parse().expect("status")
}

/// The slow log events so far of kind `slowlog` (`search` or `index`).
fn slow_events(server: &Server, kind: &str) -> Vec<Value> {
    server
        .log_text()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["slowlog"] == kind)
        .collect()
}

fn wait_for(server: &Server, kind: &str, n: usize) -> Vec<Value> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let events = slow_events(server, kind);
        if events.len() >= n || Instant::now() > deadline {
            return events;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn slow_searches_and_indexing_are_logged_with_elasticsearchs_fields() {
    let server = Server::start_with_http(&["--log-level", "info,strata::slowlog=trace"]);
    let settings = json!({"settings": {
        "index.search.slowlog.threshold.query.warn": "1h",
        "index.search.slowlog.threshold.query.trace": "0ms",
        "index.search.slowlog.threshold.fetch.warn": "-1",
    }});
    assert_eq!(http(&server, "PUT", "/events", &settings), 200);
    let doc = json!({"msg": "disk full", "host": "db-1"});
    // No indexing threshold yet: nothing logged.
    assert_eq!(
        http(&server, "PUT", "/events/_doc/1?refresh=true", &doc),
        201
    );
    let update = json!({"index": {"indexing": {"slowlog": {
        "threshold": {"index": {"info": "0ms"}},
        "source": "12",
    }}}});
    assert_eq!(http(&server, "PUT", "/events/_settings", &update), 200);
    assert_eq!(
        http(&server, "PUT", "/events/_doc/2?refresh=true", &doc),
        201
    );
    let query = json!({"query": {"match": {"msg": "disk"}}});
    assert_eq!(http(&server, "POST", "/events/_search", &query), 200);

    let searches = wait_for(&server, "search", 1);
    assert_eq!(
        searches.len(),
        1,
        "one query phase event, no fetch: {searches:?}"
    );
    let e = &searches[0];
    assert_eq!(e["level"], "TRACE", "below warn's 1h: trace");
    assert_eq!(e["index"], "events");
    assert_eq!(e["phase"], "query");
    assert_eq!(e["total_hits"], "2 hits");
    assert_eq!(e["search_type"], "QUERY_THEN_FETCH");
    assert_eq!(e["total_shards"], 1);
    assert!(e["took_millis"].is_u64(), "{e}");
    assert!(e["took"].as_str().unwrap().ends_with('s'), "{e}");
    let source: Value = serde_json::from_str(e["source"].as_str().unwrap()).unwrap();
    assert_eq!(source, query);

    let indexed = wait_for(&server, "index", 1);
    assert_eq!(
        indexed.len(),
        1,
        "only the document after the update: {indexed:?}"
    );
    let e = &indexed[0];
    assert_eq!(e["level"], "INFO");
    assert_eq!(e["index"], "events");
    assert_eq!(e["id"], "2");
    assert_eq!(e["source"], doc.to_string()[..12], "12 characters");

    // Off again: no more events.
    let off = json!({"index.indexing.slowlog.threshold.index.info": "-1",
                     "index.search.slowlog.threshold.query.trace": "-1"});
    assert_eq!(http(&server, "PUT", "/events/_settings", &off), 200);
    assert_eq!(http(&server, "PUT", "/events/_doc/3", &doc), 201);
    assert_eq!(http(&server, "POST", "/events/_search", &query), 200);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(slow_events(&server, "index").len(), 1);
    assert_eq!(slow_events(&server, "search").len(), 1);
    // A bad value is refused with Elasticsearch's error.
    let bad = json!({"index.search.slowlog.threshold.query.warn": "soon"});
    assert_eq!(http(&server, "PUT", "/events/_settings", &bad), 400);
}
