//! Hostile search requests against a spawned `strata serve`, each checked
//! by the process's resident memory (`VmRSS` of `/proc/<pid>/status`,
//! sampled every 10 ms while the request runs): the request gets its
//! 400 or 429 (or its answer) instead of the memory, the server answers
//! afterwards, and its memory comes back.
//!
//! The cases, from the hardening issue (what each cost before):
//! - a `terms` query with 1,000,000 values (1.7 GB): 400 for
//!   `index.max_terms_count`, and with that limit raised, 429 from the
//!   request breaker;
//! - an `_msearch` of 10,000 searches (+644 MB): streamed, memory bounded;
//! - a 90 MB document (+595 MB kept): 429 from the breakers, whose limits
//!   the test sets (a node's defaults follow its memory).
//!
//! Quick by default; `STRATA_TEST_FULL=1` (or `--ignored`) adds larger
//! replies (10 hits of 6 KB per search) and a 90 MB document accepted and
//! indexed, after which the memory must come back.

use crate::support;

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::http;
use support::{scale, Server};

const MIB: u64 = 1 << 20;

/// Resident memory of `pid` in bytes.
fn rss(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("VmRSS");
    kib * 1024
}

/// The highest resident memory of `pid` while it runs.
struct PeakSampler {
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
    thread: Option<JoinHandle<()>>,
}

impl PeakSampler {
    fn start(pid: i32) -> PeakSampler {
        let stop = Arc::new(AtomicBool::new(false));
        let peak = Arc::new(AtomicU64::new(rss(pid)));
        let thread = {
            let (stop, peak) = (Arc::clone(&stop), Arc::clone(&peak));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    peak.fetch_max(rss(pid), Ordering::Relaxed);
                    std::thread::sleep(Duration::from_millis(10));
                }
            })
        };
        PeakSampler {
            stop,
            peak,
            thread: Some(thread),
        }
    }

    fn finish(mut self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.peak.load(Ordering::Relaxed)
    }
}

/// Waits (bounded) for the resident memory to fall to `bound`; returns
/// the last reading. jemalloc gives freed pages back within about a
/// second (`strata`'s `dirty_decay_ms:1000`).
fn settle(pid: i32, bound: u64) -> u64 {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let now = rss(pid);
        if now <= bound || Instant::now() > deadline {
            return now;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Runs `request` while sampling; checks that the peak stayed within
/// `peak_growth` of the memory before and that the memory came back
/// within `kept` of it; returns the reply.
fn measured(
    server: &Server,
    name: &str,
    peak_growth: u64,
    kept: u64,
    request: impl FnOnce() -> http::Reply,
) -> http::Reply {
    let pid = server.pid();
    let before = rss(pid);
    let sampler = PeakSampler::start(pid);
    let started = Instant::now();
    let reply = request();
    let took = started.elapsed();
    let peak = sampler.finish();
    let after = settle(pid, before + kept);
    eprintln!(
        "{name}: status {} in {took:?}; RSS before {} MiB, peak {} MiB, after {} MiB",
        reply.status,
        before / MIB,
        peak / MIB,
        after / MIB
    );
    assert!(
        peak <= before + peak_growth,
        "{name}: peak {} MiB is more than {} MiB above {} MiB",
        peak / MIB,
        peak_growth / MIB,
        before / MIB
    );
    assert!(
        after <= before + kept,
        "{name}: {} MiB still resident, more than {} MiB above {} MiB",
        after / MIB,
        kept / MIB,
        before / MIB
    );
    let alive = http::json(server.http(), "GET", "/", None).expect("server answers");
    assert_eq!(alive.status, 200, "{name}: the server must still answer");
    reply
}

fn ok(addr: SocketAddr, method: &str, path: &str, body: Option<Value>) -> Value {
    let r = http::json(addr, method, path, body.as_ref()).expect("request");
    assert!(r.status < 300, "{method} {path}: {} {}", r.status, r.text());
    r.json()
}

/// An index `h` of `docs` documents with a keyword `k` and a `pad` of
/// `pad` bytes, refreshed.
fn load(addr: SocketAddr, docs: usize, pad: usize) {
    ok(
        addr,
        "PUT",
        "/h",
        Some(
            json!({"mappings": {"properties": {"k": {"type": "keyword"}, "n": {"type": "long"}}}}),
        ),
    );
    for start in (0..docs).step_by(1000) {
        let mut bulk = String::new();
        for i in start..(start + 1000).min(docs) {
            bulk.push_str(&format!("{{\"index\":{{\"_id\":\"{i}\"}}}}\n"));
            bulk.push_str(
                &json!({"k": format!("k{i}"), "n": i, "pad": "p".repeat(pad)}).to_string(),
            );
            bulk.push('\n');
        }
        let r = http::request(
            addr,
            "POST",
            "/h/_bulk",
            Some(("application/x-ndjson", bulk.as_bytes())),
            Duration::from_secs(60),
        )
        .unwrap();
        assert_eq!(r.status, 200, "{}", r.text());
    }
    ok(addr, "POST", "/h/_refresh", None);
}

fn cluster(addr: SocketAddr, transient: Value) {
    ok(
        addr,
        "PUT",
        "/_cluster/settings",
        Some(json!({ "transient": transient })),
    );
}

fn terms_body(values: usize) -> Vec<u8> {
    let values: Vec<String> = (0..values).map(|i| format!("k{i}")).collect();
    json!({"query": {"terms": {"k": values}}})
        .to_string()
        .into_bytes()
}

fn search(addr: SocketAddr, path: &str, body: &[u8], content_type: &str) -> http::Reply {
    http::request(
        addr,
        "POST",
        path,
        Some((content_type, body)),
        Duration::from_secs(300),
    )
    .expect("request")
}

fn error_type(reply: &http::Reply) -> String {
    reply.json()["error"]["type"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn hostile_search_requests_are_refused_and_memory_stays_bounded() {
    let server = Server::start_with_http(&[]);
    let addr = server.http();
    let pad = if scale::full() { 6000 } else { 100 };
    load(addr, 2000, pad);
    // Warm up: the first search, msearch and document start pools and
    // caches whose memory stays.
    search(addr, "/h/_search", &terms_body(10), "application/json");
    let warm = format!("{{}}\n{}\n", json!({"size": 10})).repeat(50);
    search(addr, "/h/_msearch", warm.as_bytes(), "application/x-ndjson");

    // 1. A million terms: 400 for index.max_terms_count.
    let body = terms_body(1_000_000);
    let reply = measured(&server, "terms 1,000,000", 400 * MIB, 48 * MIB, || {
        search(addr, "/h/_search", &body, "application/json")
    });
    assert_eq!(reply.status, 400, "{}", reply.text());
    assert!(
        reply
            .text()
            .contains("has exceeded the allowed maximum of [65536]"),
        "{}",
        reply.text()
    );

    // 2. The same with the limit raised: the request breaker's 429.
    ok(
        addr,
        "PUT",
        "/h/_settings",
        Some(json!({"index.max_terms_count": 2_000_000})),
    );
    cluster(
        addr,
        json!({"indices.breaker.request.limit": "256mb", "indices.breaker.total.limit": "512mb"}),
    );
    let reply = measured(
        &server,
        "terms 1,000,000, limit raised",
        400 * MIB,
        48 * MIB,
        || search(addr, "/h/_search", &body, "application/json"),
    );
    assert_eq!(reply.status, 429, "{}", reply.text());
    assert_eq!(error_type(&reply), "circuit_breaking_exception");
    drop(body);

    // 3. 10,000 searches in one _msearch: streamed in request order.
    let searches = 10_000;
    let mut body = String::new();
    for i in 0..searches {
        body.push_str("{}\n");
        body.push_str(
            &json!({"query": {"range": {"n": {"gte": i % 2000}}}, "size": 10}).to_string(),
        );
        body.push('\n');
    }
    let reply = measured(&server, "msearch 10,000", 200 * MIB, 48 * MIB, || {
        search(addr, "/h/_msearch", body.as_bytes(), "application/x-ndjson")
    });
    assert_eq!(reply.status, 200, "{}", reply.text());
    let answered = reply
        .body
        .windows(b"\"status\":200".len())
        .filter(|w| w == b"\"status\":200")
        .count();
    assert_eq!(answered, searches, "every search answered 200");
    if !scale::full() {
        // Small enough to check each answer (the full run's is 600 MB).
        let answers = reply.json();
        let responses = answers["responses"].as_array().expect("responses");
        assert_eq!(responses.len(), searches);
        for (i, r) in responses.iter().enumerate() {
            assert_eq!(
                r["hits"]["total"]["value"],
                2000 - (i % 2000) as u64,
                "search {i}"
            );
        }
    }
    drop((reply, body));

    // 4. A 90 MB document under a 512 MB parent breaker: 429, unindexed.
    let mut doc = String::with_capacity(95 << 20);
    doc.push_str("{\"text\":\"");
    for i in 0..13_000_000 {
        let _ = write!(doc, "w{} ", i % 100_000);
    }
    doc.push_str("\"}");
    let doc = doc.into_bytes();
    assert!(doc.len() > 85_000_000 && doc.len() < 100 << 20);
    let reply = measured(&server, "90 MB document", 400 * MIB, 48 * MIB, || {
        http::request(
            addr,
            "PUT",
            "/h/_doc/big",
            Some(("application/json", &doc)),
            Duration::from_secs(300),
        )
        .expect("request")
    });
    assert_eq!(reply.status, 429, "{}", reply.text());
    assert_eq!(error_type(&reply), "circuit_breaking_exception");
    let missing = http::json(addr, "GET", "/h/_doc/big", None).unwrap();
    assert_eq!(missing.status, 404);

    // Every reservation was given back.
    let stats = ok(addr, "GET", "/_nodes/stats/breaker", None);
    let node = stats["nodes"].as_object().unwrap().values().next().unwrap();
    for name in ["request", "in_flight_requests"] {
        let held = node["breakers"][name]["estimated_size_in_bytes"]
            .as_u64()
            .unwrap();
        assert!(held < 64 * 1024, "{name} still holds {held} bytes");
    }

    if scale::full() {
        // 5. The document accepted under default limits: indexed, and
        // once refreshed and flushed only its data stays.
        cluster(
            addr,
            json!({"indices.breaker.request.limit": null, "indices.breaker.total.limit": null}),
        );
        let reply = measured(
            &server,
            "90 MB document accepted",
            1200 * MIB,
            400 * MIB,
            || {
                http::request(
                    addr,
                    "PUT",
                    "/h/_doc/big?refresh=true",
                    Some(("application/json", &doc)),
                    Duration::from_secs(600),
                )
                .expect("request")
            },
        );
        assert_eq!(reply.status, 201, "{}", reply.text());
    }
}
