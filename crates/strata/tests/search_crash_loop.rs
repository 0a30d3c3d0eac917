//! Crash tests of the search front end: writer threads index and delete
//! documents over HTTP (`_bulk` and single-document requests) into an index
//! with `translog.durability: request` and refresh switched off (so nothing
//! reaches a tantivy commit: durability rests on the translog alone); the
//! server is killed with SIGKILL at a random moment, restarted on the same
//! data directory, and every acknowledged document must be there with its
//! source, and every acknowledged delete must stay deleted. Operations in
//! flight at the kill may go either way.
//! The same loop runs per placement (`index.store.tier`): `ssd` and `pmem`
//! with refreshes every 100 ms, so kills land between and during
//! refreshes; `pmem`'s refreshes are durable, and a final kill right after
//! a refresh must restart without replaying any translog record.
//! `STRATA_CRASH_SEED` replays a run; `STRATA_CRASH_CYCLES` sets the cycles
//! (default 4; 40 with `STRATA_TEST_FULL=1`).

// Only part of the shared crash support is used here.
use crate::crash;
use crate::spawn;

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

const INDEX: &str = "crashlog";
const WRITERS: usize = 2;

/// One HTTP/1.1 request on a fresh connection; (status, JSON body).
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<(&str, &[u8])>,
) -> io::Result<(u16, Value)> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some((content_type, bytes)) = body {
        request.push_str(&format!(
            "Content-Type: {content_type}\r\nContent-Length: {}\r\n",
            bytes.len()
        ));
    }
    request.push_str("\r\n");
    let mut wire = request.into_bytes();
    if let Some((_, bytes)) = body {
        wire.extend_from_slice(bytes);
    }
    stream.write_all(&wire)?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply)?;
    let split = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| io::Error::new(io::ErrorKind::UnexpectedEof, "no header end"))?;
    let head = String::from_utf8_lossy(&reply[..split]).to_string();
    let status: u16 = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no status"))?;
    let mut body = reply[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    let value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
    };
    Ok((status, value))
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = body.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&body[..end]).trim(), 16).unwrap_or(0);
        if size == 0 || body.len() < end + 2 + size {
            break;
        }
        out.extend_from_slice(&body[end + 2..end + 2 + size]);
        body = &body[end + 2 + size + 2..];
    }
    out
}

/// A `strata serve` with only what these tests need, on `dir`.
fn start(dir: &Path) -> (Child, SocketAddr) {
    let args = serve_args(dir);
    match spawn::spawn_serve(&args, Duration::from_secs(60)) {
        Ok(s) => (s.child, s.http.expect("an http listening line")),
        Err(s) => panic!(
            "strata serve not ready:\n{}",
            s.log.lock().unwrap().join("\n")
        ),
    }
}

/// The arguments of [`start`].
fn serve_args(dir: &Path) -> Vec<String> {
    [
        "serve",
        "--bind",
        "127.0.0.1",
        "--resp-port",
        "0",
        "--memcache-port",
        "0",
        "--http-port",
        "0",
        "--threads",
        "2",
        "--log-format",
        "json",
        "--data-dir",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([dir.display().to_string()])
    .collect()
}

/// What one writer saw: the acknowledged state of each of its documents
/// (`None`: deleted) and the ids it had in flight when the server died.
#[derive(Default)]
struct WriterRun {
    acked: BTreeMap<String, Option<Value>>,
    in_flight: BTreeSet<String>,
}

fn write(
    addr: SocketAddr,
    writer: usize,
    mut run: WriterRun,
    seed: u64,
    stop: &AtomicBool,
) -> WriterRun {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut n = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let existing: Vec<String> = run
            .acked
            .iter()
            .filter(|(_, v)| v.is_some())
            .map(|(k, _)| k.clone())
            .collect();
        if !existing.is_empty() && rng.gen_bool(0.15) {
            let id = existing[rng.gen_range(0..existing.len())].clone();
            run.in_flight = BTreeSet::from([id.clone()]);
            match http(addr, "DELETE", &format!("/{INDEX}/_doc/{id}"), None) {
                Ok((200, _)) => {
                    run.acked.insert(id, None);
                }
                Ok((status, body)) => panic!("writer {writer}: DELETE {id}: {status} {body}"),
                Err(_) => return run,
            }
        } else {
            let docs: Vec<(String, Value)> = (0..rng.gen_range(1..=20))
                .map(|_| {
                    n += 1;
                    let id = format!("w{writer}-{seed}-{n}");
                    let mut doc =
                        json!({"writer": writer, "n": n, "text": format!("event {n} of {seed}")});
                    // Sources of several shapes, new ones arriving between
                    // kills: each must be saved before a commit names it.
                    doc[format!("k{}", (n / 25) % 64)] = json!({"v": n});
                    (id, doc)
                })
                .collect();
            let mut body = Vec::new();
            for (id, doc) in &docs {
                body.extend_from_slice(
                    json!({"index": {"_index": INDEX, "_id": id}})
                        .to_string()
                        .as_bytes(),
                );
                body.push(b'\n');
                body.extend_from_slice(doc.to_string().as_bytes());
                body.push(b'\n');
            }
            run.in_flight = docs.iter().map(|(id, _)| id.clone()).collect();
            match http(
                addr,
                "POST",
                "/_bulk",
                Some(("application/x-ndjson", &body)),
            ) {
                Ok((200, reply)) => {
                    assert_eq!(
                        reply["errors"],
                        json!(false),
                        "writer {writer}: bulk {reply}"
                    );
                    for (id, doc) in docs {
                        run.acked.insert(id, Some(doc));
                    }
                }
                Ok((status, reply)) => panic!("writer {writer}: bulk: {status} {reply}"),
                Err(_) => return run,
            }
        }
        run.in_flight.clear();
    }
    run
}

#[test]
fn acknowledged_documents_survive_kill_9() {
    let (_dir, child, _) = crash_loop("acknowledged_documents_survive_kill_9", "dram", "-1");
    kill(child);
}

#[test]
fn acknowledged_documents_survive_kill_9_ssd() {
    let (_dir, child, _) = crash_loop("acknowledged_documents_survive_kill_9_ssd", "ssd", "100ms");
    kill(child);
}

#[test]
fn acknowledged_documents_survive_kill_9_pmem() {
    let (dir, child, addr) = crash_loop(
        "acknowledged_documents_survive_kill_9_pmem",
        "pmem",
        "100ms",
    );
    // Refreshed just before the kill: nothing is left to replay.
    let (status, _) = http(addr, "POST", &format!("/{INDEX}/_refresh"), None).unwrap();
    assert_eq!(status, 200);
    let (_, before) = http(addr, "GET", &format!("/{INDEX}/_count"), None).unwrap();
    kill(child);
    let (child, addr) = start(dir.path());
    let (_, after) = http(addr, "GET", &format!("/{INDEX}/_count"), None).unwrap();
    assert_eq!(after["count"], before["count"]);
    let (_, stats) = http(addr, "GET", &format!("/{INDEX}/_stats"), None).unwrap();
    let store = &stats["indices"][INDEX]["primaries"]["strata_store"];
    assert_eq!(store["translog_replayed_at_open"], json!(0), "{store}");
    kill(child);
}

fn kill(mut child: Child) {
    let _ = child.kill();
    let _ = child.wait();
}

/// The kill -9 loop on an index placed on `tier` with `refresh`; returns
/// the data directory and the server still running after the last check.
fn crash_loop(name: &str, tier: &str, refresh: &str) -> (crash::DataDir, Child, SocketAddr) {
    let seed = crash::seed(name);
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = crash::DataDir::new("search");
    let (mut child, mut addr) = start(dir.path());
    let settings = json!({"settings": {"number_of_shards": 2, "number_of_replicas": 0,
        "refresh_interval": refresh, "translog": {"durability": "request"},
        "index.store.tier": tier}});
    let (status, reply) = http(
        addr,
        "PUT",
        &format!("/{INDEX}"),
        Some(("application/json", settings.to_string().as_bytes())),
    )
    .unwrap();
    assert_eq!(status, 200, "{reply}");
    let mut runs: Vec<WriterRun> = (0..WRITERS).map(|_| WriterRun::default()).collect();
    for cycle in 0..crash::cycles(4, 40) {
        let stop = Arc::new(AtomicBool::new(false));
        let handles: Vec<_> = runs
            .drain(..)
            .enumerate()
            .map(|(w, run)| {
                let (stop, seed) = (stop.clone(), rng.gen());
                std::thread::spawn(move || write(addr, w, run, seed, &stop))
            })
            .collect();
        std::thread::sleep(Duration::from_millis(rng.gen_range(200..=800)));
        child.kill().expect("SIGKILL");
        child.wait().expect("reap");
        stop.store(true, Ordering::Relaxed);
        runs = handles.into_iter().map(|h| h.join().unwrap()).collect();
        (child, addr) = start(dir.path());
        for run in &mut runs {
            for (id, want) in &run.acked {
                if run.in_flight.contains(id) {
                    continue;
                }
                let (status, got) =
                    http(addr, "GET", &format!("/{INDEX}/_doc/{id}"), None).unwrap();
                match want {
                    Some(doc) => assert!(
                        status == 200 && got["found"] == json!(true) && got["_source"] == *doc,
                        "seed {seed}, cycle {cycle}: acknowledged {id} came back as {status} {got}"
                    ),
                    None => assert!(
                        status == 404 && got["found"] == json!(false),
                        "seed {seed}, cycle {cycle}: deleted {id} came back as {status} {got}"
                    ),
                }
            }
            // In-flight documents went either way: learn which.
            for id in std::mem::take(&mut run.in_flight) {
                let (status, got) =
                    http(addr, "GET", &format!("/{INDEX}/_doc/{id}"), None).unwrap();
                let now = (status == 200).then(|| got["_source"].clone());
                run.acked.insert(id, now);
            }
        }
    }
    let docs: usize = runs
        .iter()
        .map(|r| r.acked.values().flatten().count())
        .sum();
    let deleted: usize = runs
        .iter()
        .map(|r| r.acked.values().filter(|v| v.is_none()).count())
        .sum();
    eprintln!("search kill -9 loop ({tier}): {docs} documents and {deleted} deletes checked after the last restart");
    assert!(
        docs > 0,
        "no document was acknowledged: the test proved nothing"
    );
    (dir, child, addr)
}

/// After a kill -9, while the translogs replay, the HTTP port answers as a
/// recovering Elasticsearch node (root, red health, the "state not
/// recovered" block for the rest) and the key-value ports serve; once the
/// replay is done every acknowledged document is there.
#[test]
fn the_http_port_answers_while_translogs_replay() {
    const BULKS: usize = 80;
    const PER_BULK: usize = 500;
    let dir = crash::DataDir::new("search-startup");
    let (child, addr) = start(dir.path());
    let settings = json!({"settings": {"number_of_shards": 1, "number_of_replicas": 0,
        "refresh_interval": "-1", "translog": {"durability": "request"}}});
    let (status, reply) = http(
        addr,
        "PUT",
        &format!("/{INDEX}"),
        Some(("application/json", settings.to_string().as_bytes())),
    )
    .unwrap();
    assert_eq!(status, 200, "{reply}");
    for b in 0..BULKS {
        let mut body = Vec::new();
        for i in 0..PER_BULK {
            let id = b * PER_BULK + i;
            body.extend_from_slice(
                json!({"index": {"_id": id.to_string()}})
                    .to_string()
                    .as_bytes(),
            );
            body.push(b'\n');
            let doc = json!({"n": id, "text": format!("event {id} with some words to index")});
            body.extend_from_slice(doc.to_string().as_bytes());
            body.push(b'\n');
        }
        let path = format!("/{INDEX}/_bulk");
        let (status, reply) =
            http(addr, "POST", &path, Some(("application/x-ndjson", &body))).unwrap();
        assert!(
            status == 200 && reply["errors"] == json!(false),
            "{status} {reply}"
        );
    }
    // Nothing was refreshed or flushed: the restart replays every document.
    kill(child);
    let args = serve_args(dir.path());
    let spawned =
        match spawn::spawn_until(&args, Duration::from_secs(60), spawn::Until::HttpListening) {
            Ok(s) => s,
            Err(s) => panic!(
                "strata serve did not listen:\n{}",
                s.log.lock().unwrap().join("\n")
            ),
        };
    let addr = spawned.http.expect("http address");
    let (status, root) = http(addr, "GET", "/", None).unwrap();
    assert_eq!(status, 200, "{root}");
    let (status, health) = http(addr, "GET", "/_cluster/health", None).unwrap();
    assert_eq!(status, 200, "{health}");
    let was_red = health["status"] == json!("red");
    let (status, search) = http(addr, "GET", &format!("/{INDEX}/_search"), None).unwrap();
    match status {
        // Still replaying: Elasticsearch's block, which clients retry.
        503 => assert_eq!(search["error"]["type"], json!("cluster_block_exception")),
        // Recovered meanwhile.
        200 => {}
        other => panic!("a search during the recovery got {other}: {search}"),
    }
    // The key-value ports do not wait for the search indices.
    let resp = spawned.resp.expect("resp listens before http");
    let mut conn = TcpStream::connect(resp).unwrap();
    conn.write_all(b"*1\r\n$4\r\nPING\r\n").unwrap();
    let mut pong = [0u8; 7];
    conn.read_exact(&mut pong).unwrap();
    assert_eq!(&pong, b"+PONG\r\n");
    let (status, health) = http(
        addr,
        "GET",
        "/_cluster/health?wait_for_status=green&timeout=60s",
        None,
    )
    .unwrap();
    assert_eq!(status, 200, "{health}");
    assert_eq!(health["status"], json!("green"));
    let (_, count) = http(addr, "GET", &format!("/{INDEX}/_count"), None).unwrap();
    assert_eq!(count["count"], json!(BULKS * PER_BULK), "{count}");
    let recovered = spawned
        .log
        .lock()
        .unwrap()
        .iter()
        .find(|l| l.contains("search indices recovered"))
        .cloned();
    eprintln!("{}", recovered.unwrap_or_default());
    kill(spawned.child);
    assert!(
        was_red,
        "the replay of {} documents ended before the first request: the test saw no recovery",
        BULKS * PER_BULK
    );
}
