//! A tiny fake Elasticsearch for the eventdata tests: a tokio listener that answers the
//! requests `bench eventdata` sends with canned JSON, counts bulk documents, and fails
//! chosen requests on purpose.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use strata_lab::eventdata::timestamp::parse_start;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What the fake does wrong on purpose.
#[derive(Debug, Clone, Copy, Default)]
pub struct Faults {
    /// Every Nth bulk (in arrival order) has its second item rejected with a
    /// 429 item error. Not the first: bulks from concurrent clients arrive
    /// in any order, and the first item of the first bulk is the oldest
    /// document, whose loss would change the span the query phase sees.
    pub item_error_every: Option<u64>,
    /// Every Nth bulk is refused as a whole with HTTP 429.
    pub reject_bulk_every: Option<u64>,
    /// Searches with a `geohash_grid` fail with a parsing error.
    pub no_geohash: bool,
    /// Added to `_count`, to make the count check fail.
    pub count_offset: u64,
}

/// What the fake saw.
#[derive(Debug, Default)]
pub struct Seen {
    /// `(method, path, content-type)` of every request.
    pub requests: Vec<(String, String, String)>,
    /// The body of the `PUT /<index>`.
    pub created_with: Option<Value>,
    /// Documents indexed.
    pub indexed: u64,
    /// Bulk requests received.
    pub bulks: u64,
    /// Oldest and newest `@timestamp` indexed, epoch ms.
    pub span: Option<(i64, i64)>,
    /// `msearch` requests received.
    pub msearches: u64,
}

/// A running fake server.
pub struct FakeEs {
    pub url: String,
    pub seen: Arc<Mutex<Seen>>,
}

impl FakeEs {
    pub async fn start(faults: Faults) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Seen::default()));
        let shared = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, faults, Arc::clone(&shared)));
            }
        });
        Self { url, seen }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Serves HTTP/1.1 requests on one keep-alive connection until the client closes it.
async fn serve(mut stream: TcpStream, faults: Faults, seen: Arc<Mutex<Seen>>) {
    let mut buffer = Vec::new();
    let mut chunk = [0u8; 64 * 1024];
    loop {
        let head_end = loop {
            if let Some(at) = find(&buffer, b"\r\n\r\n") {
                break at + 4;
            }
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buffer[..head_end]).into_owned();
        let mut lines = head.lines();
        let mut request_line = lines.next().unwrap_or("").split(' ');
        let method = request_line.next().unwrap_or("").to_owned();
        let path = request_line.next().unwrap_or("").to_owned();
        let header = |name: &str| {
            head.lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim().to_owned())
        };
        let length: usize = header("content-length")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let content_type = header("content-type").unwrap_or_default();
        while buffer.len() < head_end + length {
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
        }
        let body = buffer[head_end..head_end + length].to_vec();
        buffer.drain(..head_end + length);
        let (status, reply) = {
            let mut seen = seen.lock().unwrap();
            seen.requests
                .push((method.clone(), path.clone(), content_type));
            route(&method, &path, &body, faults, &mut seen)
        };
        let reply = reply.to_string();
        let response = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\nx-elastic-product: Elasticsearch\r\ncontent-length: {}\r\n\r\n{reply}",
            reply.len()
        );
        if stream.write_all(response.as_bytes()).await.is_err() {
            return;
        }
    }
}

fn iso_to_ms(iso: &str) -> i64 {
    let (seconds, millis) = iso.trim_end_matches('Z').split_once('.').unwrap();
    parse_start(seconds).unwrap() + millis.parse::<i64>().unwrap()
}

fn route(method: &str, path: &str, body: &[u8], faults: Faults, seen: &mut Seen) -> (u16, Value) {
    let missing = json!({ "error": { "type": "index_not_found_exception", "reason": "no such index" }, "status": 404 });
    let (path, _query) = path.split_once('?').unwrap_or((path, ""));
    match (method, path) {
        ("GET", "/") => (
            200,
            json!({ "name": "fake-es", "version": { "number": "8.15.0" }, "tagline": "You Know, for Search" }),
        ),
        ("DELETE", "/elasticlogs") => (404, missing),
        ("GET", "/elasticlogs") if seen.created_with.is_none() => (404, missing),
        ("GET", "/elasticlogs") => (200, json!({ "elasticlogs": {} })),
        ("PUT", "/elasticlogs") => {
            seen.created_with = serde_json::from_slice(body).ok();
            (200, json!({ "acknowledged": true }))
        }
        ("POST", "/elasticlogs/_bulk") => bulk(body, faults, seen),
        ("POST", "/elasticlogs/_refresh") => (200, json!({ "_shards": { "failed": 0 } })),
        ("GET", "/elasticlogs/_count") => {
            (200, json!({ "count": seen.indexed + faults.count_offset }))
        }
        ("GET", "/_cat/segments/elasticlogs") => (200, json!([{}, {}, {}])),
        ("POST", "/elasticlogs/_search") => {
            let aggs = match seen.span {
                Some((oldest, newest)) => {
                    json!({ "oldest": { "value": oldest }, "newest": { "value": newest } })
                }
                None => json!({ "oldest": { "value": null }, "newest": { "value": null } }),
            };
            (200, json!({ "hits": { "hits": [] }, "aggregations": aggs }))
        }
        ("POST", "/_msearch") => {
            seen.msearches += 1;
            let text = String::from_utf8_lossy(body);
            let responses: Vec<Value> = text
                .lines()
                .skip(1)
                .step_by(2)
                .map(|search| {
                    if faults.no_geohash && search.contains("geohash_grid") {
                        json!({ "status": 400, "error": { "type": "parsing_exception", "reason": "unknown aggregation [geohash_grid]" } })
                    } else {
                        json!({ "status": 200, "took": 1, "hits": { "hits": [] }, "aggregations": {} })
                    }
                })
                .collect();
            (200, json!({ "took": 1, "responses": responses }))
        }
        _ => (
            404,
            json!({ "error": { "type": "no_handler", "reason": format!("{method} {path}") }, "status": 404 }),
        ),
    }
}

fn bulk(body: &[u8], faults: Faults, seen: &mut Seen) -> (u16, Value) {
    seen.bulks += 1;
    let nth = |every: Option<u64>| every.is_some_and(|n| seen.bulks % n == 0);
    if nth(faults.reject_bulk_every) {
        return (
            429,
            json!({ "error": { "type": "es_rejected_execution_exception", "reason": "queue full" }, "status": 429 }),
        );
    }
    let text = String::from_utf8_lossy(body);
    assert!(text.ends_with('\n'), "bulk bodies end with a newline");
    let docs: Vec<Value> = text
        .lines()
        .skip(1)
        .step_by(2)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let fail_one = nth(faults.item_error_every);
    let mut items = Vec::new();
    for (at, doc) in docs.iter().enumerate() {
        if fail_one && at == 1 {
            items.push(json!({ "index": { "status": 429, "error": { "type": "es_rejected_execution_exception", "reason": "item rejected" } } }));
            continue;
        }
        seen.indexed += 1;
        let ts = iso_to_ms(doc["@timestamp"].as_str().unwrap());
        seen.span = Some(
            seen.span
                .map_or((ts, ts), |(lo, hi)| (lo.min(ts), hi.max(ts))),
        );
        items.push(
            json!({ "index": { "_index": "elasticlogs", "status": 201, "result": "created" } }),
        );
    }
    (
        200,
        json!({ "took": 3, "errors": fail_one, "items": items }),
    )
}
