//! A bounded load of malformed and hostile requests against the real
//! binary, on all three ports at once: random bytes, lengths declared far
//! past every limit, parser nesting past every depth limit, connection
//! floods past `--max-connections`, and slow clients (a byte at a time)
//! that must be closed within the request bound. Afterwards the server
//! must answer on every port and its resident memory must be bounded.
//!
//! Quick by default (a few seconds); `STRATA_TEST_FULL=1` sends more.

use crate::support;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use support::{scale, Raw, Server};

/// Most the resident set may grow over the whole load. The server starts
/// at tens of MiB; every request here is refused or tiny, so what it
/// keeps afterwards is buffers and caches, not the attackers' bytes.
const RSS_GROWTH_BOUND_KIB: u64 = 64 * 1024;

fn rss_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS")
}

/// Connects with short timeouts; `None` when refused at connect.
fn connect(addr: SocketAddr) -> Option<TcpStream> {
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .ok()?;
    stream
        .set_write_timeout(Some(Duration::from_secs(2)))
        .ok()?;
    Some(stream)
}

/// Sends `bytes`, then reads what comes back within the read timeout
/// (the server may answer, wait for more, or close).
fn send_and_drain(addr: SocketAddr, bytes: &[u8]) {
    let Some(mut stream) = connect(addr) else {
        return;
    };
    let _ = stream.write_all(bytes);
    let mut buf = [0u8; 16 * 1024];
    while let Ok(n) = stream.read(&mut buf) {
        if n == 0 {
            break;
        }
    }
}

/// Random bytes in random chunks, some salted with the protocol's own
/// delimiters so that the decoders get past their first byte.
fn garbage(addr: SocketAddr, rng: &mut SmallRng, connections: usize) {
    const SALT: &[&[u8]] = &[
        b"\r\n", b"*", b"$", b"+", b":", b"*3\r\n", b"$-1\r\n", b"get ", b"set ", b"mg ", b"ms ",
        b" 0 0 ", b"\x80", b"\x00", b"\xff",
    ];
    for _ in 0..connections {
        let mut bytes = Vec::new();
        while bytes.len() < 16 * 1024 {
            if rng.gen_bool(0.3) {
                bytes.extend_from_slice(SALT[rng.gen_range(0..SALT.len())]);
            } else {
                let n = rng.gen_range(1..64);
                bytes.extend((0..n).map(|_| rng.gen::<u8>()));
            }
        }
        send_and_drain(addr, &bytes);
    }
}

/// Lengths and counts declared far beyond every limit: nothing may be
/// allocated for them.
fn huge_declarations(resp: SocketAddr, memcache: SocketAddr) {
    for bytes in [
        &b"*2147483647\r\n"[..],
        b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2147483647\r\n",
        b"*1\r\n$-2\r\n",
        b"*-5\r\n",
        b"$99999999999999999999\r\n",
    ] {
        send_and_drain(resp, bytes);
    }
    send_and_drain(resp, &vec![b'a'; 200 * 1024]); // an inline command without end
    for bytes in [
        &b"set k 0 0 4294967295\r\n"[..],
        b"set k 0 0 -1\r\n",
        b"ms k 99999999999 T0\r\n",
        b"get ",
    ] {
        send_and_drain(memcache, bytes);
    }
    let long_key = format!("get {}\r\n", "k".repeat(100_000));
    send_and_drain(memcache, long_key.as_bytes());
}

fn http(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> Option<u16> {
    let mut stream = connect(addr)?;
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .ok()?;
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    let _ = stream.write_all(body);
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    let line = String::from_utf8_lossy(&reply[..reply.len().min(64)]).to_string();
    line.split(' ').nth(1)?.parse().ok()
}

/// The hardening issue's reproducers and their cousins on every parser.
fn deep_nesting(addr: SocketAddr) {
    let n = if scale::full() { 100_000 } else { 5_000 };
    let parens = format!("{}a{}", "(".repeat(n), ")".repeat(n));
    // A URI this long may be refused by the HTTP layer first (414, 431).
    let status = http(addr, "GET", &format!("/logs/_search?q={parens}"), b"");
    assert!(matches!(status, Some(400 | 414 | 431)), "{status:?}");
    let nots = "NOT%20".repeat(n);
    let status = http(addr, "GET", &format!("/logs/_search?q={nots}a"), b"");
    assert!(matches!(status, Some(200 | 414 | 431)), "{status:?}");
    let body = format!(r#"{{"query":{{"query_string":{{"query":"{parens}"}}}}}}"#);
    assert_eq!(
        http(addr, "POST", "/logs/_search", body.as_bytes()),
        Some(400)
    );
    let body = format!(
        r#"{{"query":{{"query_string":{{"query":"{}a"}}}}}}"#,
        "NOT ".repeat(n)
    );
    assert_eq!(
        http(addr, "POST", "/logs/_search", body.as_bytes()),
        Some(200)
    );
    let simple = format!(
        r#"{{"query":{{"simple_query_string":{{"query":"{}"}}}}}}"#,
        "(".repeat(n)
    );
    assert_eq!(
        http(addr, "POST", "/logs/_search", simple.as_bytes()),
        Some(200)
    );
    let arrays = format!(r#"{{"query":{}{}}}"#, "[".repeat(n), "]".repeat(n));
    assert_eq!(
        http(addr, "POST", "/logs/_search", arrays.as_bytes()),
        Some(400)
    );
    let mut dsl = String::from(r#"{"match_all":{}}"#);
    for _ in 0..40 {
        dsl = format!(r#"{{"bool":{{"must":[{dsl}]}}}}"#);
    }
    let body = format!(r#"{{"query":{dsl}}}"#);
    assert_eq!(
        http(addr, "POST", "/logs/_search", body.as_bytes()),
        Some(400)
    );
    let mut aggs = String::from(r#"{"terms":{"field":"tag"}}"#);
    for _ in 0..40 {
        aggs = format!(r#"{{"terms":{{"field":"tag"}},"aggs":{{"a":{aggs}}}}}"#);
    }
    let body = format!(r#"{{"size":0,"aggs":{{"a":{aggs}}}}}"#);
    assert_eq!(
        http(addr, "POST", "/logs/_search", body.as_bytes()),
        Some(400)
    );
    let regexp = r#"{"query":{"regexp":{"tag":"((a{100}){100}){100}"}}}"#;
    assert_eq!(
        http(addr, "POST", "/logs/_search", regexp.as_bytes()),
        Some(400)
    );
}

/// More connections than allowed, held open at once, then dropped.
fn connection_flood(addr: SocketAddr, count: usize) -> usize {
    let held: Vec<TcpStream> = (0..count).filter_map(|_| connect(addr)).collect();
    let opened = held.len();
    drop(held);
    opened
}

/// The request bound the server runs with here (`--request-timeout` and
/// the HTTP header and body timeouts).
const REQUEST_BOUND: Duration = Duration::from_secs(2);

/// Sends `request` a byte every 200 ms, as a slow or hostile client does,
/// and returns how long the server took to close the connection (it must
/// close within the request bound, whatever the client does).
fn slow_client(addr: SocketAddr, request: &[u8]) -> Duration {
    let started = std::time::Instant::now();
    let Some(mut stream) = connect(addr) else {
        return started.elapsed();
    };
    let mut buf = [0u8; 4096];
    for &byte in request.iter().cycle().take(200) {
        if stream.write_all(&[byte]).is_err() {
            break;
        }
        // A read times out (nothing yet), returns 0 (closed) or a reply.
        if let Ok(0) = stream.read(&mut buf) {
            break;
        }
    }
    started.elapsed()
}

fn slow_clients(server: &Server) {
    let cases = [
        (
            server.resp(),
            &b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nvalue\r\n"[..],
        ),
        (server.memcache(), &b"set k 0 0 5\r\nvalue\r\n"[..]),
        (
            server.http(),
            &b"GET /logs/_search HTTP/1.1\r\nHost: x\r\n\r\n"[..],
        ),
        (
            server.http(),
            &b"POST /logs/_search HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{}"[..],
        ),
    ];
    std::thread::scope(|scope| {
        for (addr, request) in cases {
            scope.spawn(move || {
                let took = slow_client(addr, request);
                assert!(
                    took < REQUEST_BOUND + Duration::from_secs(5),
                    "a byte-at-a-time client on {addr} was served for {took:?}"
                );
            });
        }
    });
}

/// A RESP connection that answers PING, once the server has noticed that
/// the flood's connections closed (until then it refuses new ones).
fn resp_connection(addr: SocketAddr) -> Raw {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let mut resp = Raw::connect(addr);
        let reply = resp.request(b"PING\r\n", b"\r\n");
        if reply == b"+PONG\r\n" || std::time::Instant::now() > deadline {
            assert_eq!(reply, b"+PONG\r\n");
            return resp;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The reply to memcached `request` (a `get`), once the port has noticed
/// that the flood's connections closed: until then it answers a new
/// connection "ERROR Too many open connections" and closes it.
fn memcache_get(addr: SocketAddr, request: &[u8]) -> Vec<u8> {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let mut stream = TcpStream::connect(addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        stream.write_all(request).expect("write");
        let mut reply = Vec::new();
        let mut buf = [0u8; 4096];
        while !reply.ends_with(b"END\r\n") {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => reply.extend_from_slice(&buf[..n]),
            }
        }
        let refused = reply.starts_with(b"ERROR Too many open connections");
        if !refused || std::time::Instant::now() > deadline {
            return reply;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn alive(server: &Server) {
    let mut resp = resp_connection(server.resp());
    assert_eq!(resp.request(b"SET after-load yes\r\n", b"\r\n"), b"+OK\r\n");
    assert_eq!(
        memcache_get(server.memcache(), b"get after-load\r\n"),
        b"VALUE after-load 0 3\r\nyes\r\nEND\r\n"
    );
    // 503 is the HTTP port's refusal at the connection limit, until the
    // flood's closes are noticed.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        let status = http(server.http(), "GET", "/logs/_search?q=tag:a", b"");
        if status != Some(503) || std::time::Instant::now() > deadline {
            break status;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status, Some(200));
}

#[test]
fn hostile_load_leaves_the_server_alive_and_bounded() {
    let server = Server::start_with_http(&[
        "--max-connections",
        "100",
        "--request-timeout",
        "2s",
        "--http-header-timeout",
        "2s",
        "--http-body-timeout",
        "2s",
    ]);
    let create = br#"{"mappings":{"properties":{"tag":{"type":"keyword"}}}}"#;
    assert_eq!(http(server.http(), "PUT", "/logs", create), Some(200));
    let doc = br#"{"tag":"a"}"#;
    assert_eq!(
        http(server.http(), "PUT", "/logs/_doc/1?refresh=true", doc),
        Some(201)
    );
    alive(&server);
    let before = rss_kib(server.pid());

    let rounds = if scale::full() { 5 } else { 1 };
    let mut rng = SmallRng::seed_from_u64(28);
    for _ in 0..rounds {
        let (resp, memcache, http_addr) = (server.resp(), server.memcache(), server.http());
        let mut rngs: Vec<SmallRng> = (0..3).map(|_| SmallRng::seed_from_u64(rng.gen())).collect();
        std::thread::scope(|scope| {
            let (a, rest) = rngs.split_at_mut(1);
            let (b, c) = rest.split_at_mut(1);
            scope.spawn(|| garbage(resp, &mut a[0], 16));
            scope.spawn(|| garbage(memcache, &mut b[0], 16));
            scope.spawn(|| garbage(http_addr, &mut c[0], 8));
            scope.spawn(|| huge_declarations(resp, memcache));
            scope.spawn(|| deep_nesting(http_addr));
            scope.spawn(|| slow_clients(&server));
        });
        // The floods apart: at the limit, other requests are refused too.
        std::thread::scope(|scope| {
            for addr in [resp, memcache, http_addr] {
                scope.spawn(move || connection_flood(addr, 250));
            }
        });
        // Waits for the ports to have noticed the flood's closes.
        alive(&server);
    }

    alive(&server);
    let after = rss_kib(server.pid());
    eprintln!("RSS before the load {before} KiB, after {after} KiB");
    assert!(
        after <= before + RSS_GROWTH_BOUND_KIB,
        "RSS grew from {before} KiB to {after} KiB"
    );
}
