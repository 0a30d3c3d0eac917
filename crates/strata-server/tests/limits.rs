//! Connection limits and time bounds on every port of a server started
//! in-process, checked with raw bytes: `max_connections` on HTTP, idle
//! timeouts (Redis `timeout`, also changed with `CONFIG SET`; memcached
//! `idle_timeout`; HTTP keep-alive), and clients that send a byte a second
//! closed within the request, header or body bound.

use crate::common;
use crate::transport_support;

use std::time::Duration;

use common::{round_trip, test_config};
use strata_server::config::HumanDuration;
use strata_server::Server;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use transport_support::{http_request, read_response, read_until_closed, trickle, WAIT};

const SECOND: Duration = Duration::from_secs(1);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_connections_applies_to_http() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&test_config(&dir, |c| c.max_connections = 3))
        .await
        .unwrap();
    let addr = server.http_addr().unwrap();
    let mut open = Vec::new();
    for _ in 0..3 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(&http_request("GET", "/", ""))
            .await
            .unwrap();
        assert_eq!(read_response(&mut stream).await.0, 200);
        open.push(stream);
    }
    // The fourth is answered 503 and closed, without being served.
    let mut extra = TcpStream::connect(addr).await.unwrap();
    extra
        .write_all(&http_request("GET", "/", ""))
        .await
        .unwrap();
    let (status, body) = read_response(&mut extra).await;
    assert_eq!(status, 503);
    assert!(body.contains("es_rejected_execution_exception"), "{body}");
    let (_, closed) = read_until_closed(&mut extra, WAIT).await;
    assert!(closed);
    // The others still work, and a closed one frees its place.
    open[0]
        .write_all(&http_request("GET", "/", ""))
        .await
        .unwrap();
    assert_eq!(read_response(&mut open[0]).await.0, 200);
    drop(open.pop());
    let mut again = None;
    for _ in 0..100 {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(&http_request("GET", "/", ""))
            .await
            .unwrap();
        if read_response(&mut stream).await.0 == 200 {
            again = Some(stream);
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(again.is_some(), "the freed place was never given out");
    // The key-value ports count their own connections.
    let mut resp = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    round_trip(&mut resp, b"*1\r\n$4\r\nPING\r\n", b"+PONG\r\n").await;
    server.shutdown(Duration::from_secs(5)).await;
}

/// Opens a connection, runs one exchange, then waits for the server to
/// close it; returns how long after the exchange it closed.
async fn idle_close(addr: std::net::SocketAddr, request: &[u8], want: &[u8]) -> Option<Duration> {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    round_trip(&mut stream, request, want).await;
    let started = std::time::Instant::now();
    let (_, closed) = read_until_closed(&mut stream, 5 * SECOND).await;
    closed.then(|| started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_on_every_port() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&test_config(&dir, |c| {
        c.timeout = 1;
        c.idle_timeout = 1;
        c.http_header_timeout = HumanDuration(SECOND);
    }))
    .await
    .unwrap();
    let ping = b"*1\r\n$4\r\nPING\r\n";
    let resp = server.resp_addr().unwrap();
    let mc = server.memcache_addr().unwrap();
    let http = server.http_addr().unwrap();
    let (r, m, h) = tokio::join!(
        idle_close(resp, ping, b"+PONG\r\n"),
        idle_close(mc, b"mn\r\n", b"MN\r\n"),
        async {
            let mut stream = TcpStream::connect(http).await.unwrap();
            stream
                .write_all(&http_request("GET", "/", ""))
                .await
                .unwrap();
            assert_eq!(read_response(&mut stream).await.0, 200);
            let started = std::time::Instant::now();
            let (_, closed) = read_until_closed(&mut stream, 5 * SECOND).await;
            closed.then(|| started.elapsed())
        },
    );
    for (port, closed) in [("resp", r), ("memcache", m), ("http", h)] {
        let after = closed.unwrap_or_else(|| panic!("{port}: idle connection left open"));
        assert!(
            after >= Duration::from_millis(900) && after < 3 * SECOND,
            "{port}: {after:?}"
        );
    }

    // CONFIG GET/SET timeout, applied to a connection already waiting.
    let mut admin = TcpStream::connect(resp).await.unwrap();
    round_trip(
        &mut admin,
        b"*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$7\r\ntimeout\r\n",
        b"*2\r\n$7\r\ntimeout\r\n$1\r\n1\r\n",
    )
    .await;
    round_trip(
        &mut admin,
        b"*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$7\r\ntimeout\r\n$1\r\n0\r\n",
        b"+OK\r\n",
    )
    .await;
    let mut waiting = TcpStream::connect(resp).await.unwrap();
    round_trip(&mut waiting, ping, b"+PONG\r\n").await;
    let (_, closed) = read_until_closed(&mut waiting, 2 * SECOND).await;
    assert!(!closed, "closed although timeout is 0");
    round_trip(
        &mut admin,
        b"*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$7\r\ntimeout\r\n$1\r\n2\r\n",
        b"+OK\r\n",
    )
    .await;
    // Idle for 2 s already: closed at once.
    let (_, closed) = read_until_closed(&mut waiting, SECOND).await;
    assert!(
        closed,
        "the new timeout did not apply to a waiting connection"
    );
    round_trip(
        &mut admin,
        b"*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$7\r\ntimeout\r\n$2\r\n-1\r\n",
        b"-ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be between 0 and 2147483647 inclusive\r\n",
    )
    .await;
    server.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_sending_a_byte_a_second_is_closed_on_every_port() {
    let dir = tempfile::tempdir().unwrap();
    let bound = 2 * SECOND;
    let server = Server::start(&test_config(&dir, |c| {
        c.request_timeout = HumanDuration(bound);
        c.http_header_timeout = HumanDuration(bound);
        c.http_body_timeout = HumanDuration(bound);
    }))
    .await
    .unwrap();
    let resp = server.resp_addr().unwrap();
    let mc = server.memcache_addr().unwrap();
    let http = server.http_addr().unwrap();
    let slow = |addr, bytes: &'static [u8]| async move {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        trickle(&mut stream, bytes, SECOND, 2 * SECOND).await
    };
    let body_slow = async {
        // Headers at once, the body a byte a second: 408, then closed.
        let mut stream = TcpStream::connect(http).await.unwrap();
        let head = "PUT /slow/_doc/1 HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 40\r\n\r\n";
        stream.write_all(head.as_bytes()).await.unwrap();
        let started = std::time::Instant::now();
        let body = b"{\"field\": \"a value sent very slowly\"}   ";
        let mut reply = Vec::new();
        for byte in body {
            if stream.write_all(&[*byte]).await.is_err() {
                break;
            }
            let (got, closed) = read_until_closed(&mut stream, SECOND).await;
            reply.extend(got);
            if closed {
                break;
            }
        }
        (
            String::from_utf8_lossy(&reply).to_string(),
            started.elapsed(),
        )
    };
    let (r, m, h, (reply, body_after)) = tokio::join!(
        slow(
            resp,
            b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$20\r\nabcdefghijklmnopqrst\r\n"
        ),
        slow(mc, b"set key 0 0 20\r\nabcdefghijklmnopqrst\r\n"),
        slow(
            http,
            b"GET /_cluster/health HTTP/1.1\r\nhost: localhost\r\n\r\n"
        ),
        body_slow,
    );
    for (port, closed) in [("resp", r), ("memcache", m), ("http headers", h)] {
        let after = closed.unwrap_or_else(|| panic!("{port}: the slow client was never closed"));
        assert!(
            after >= bound - Duration::from_millis(200) && after < bound + 2 * SECOND,
            "{port}: {after:?}"
        );
    }
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("timeout_exception"), "{reply}");
    assert!(body_after < bound + 2 * SECOND, "{body_after:?}");

    // A client typing slowly but finishing each request in time is served.
    let mut typist = TcpStream::connect(mc).await.unwrap();
    for _ in 0..2 {
        // 2.7 s for the two lines, each within the 2 s bound.
        for byte in b"get typist\r\nmn\r\n" {
            typist.write_all(&[*byte]).await.unwrap();
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
        round_trip(&mut typist, b"", b"END\r\nMN\r\n").await;
    }
    server.shutdown(Duration::from_secs(5)).await;
}

/// Waits (up to `WAIT`) until `CLIENT LIST` shows `want` connections;
/// fails with `what` if it never does.
async fn await_resp_clients(admin: &mut TcpStream, want: usize, what: &str) {
    let deadline = std::time::Instant::now() + WAIT;
    while resp_clients(admin).await != want {
        assert!(std::time::Instant::now() < deadline, "{what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Connections `CLIENT LIST` shows, through `admin`.
async fn resp_clients(admin: &mut TcpStream) -> usize {
    use tokio::io::AsyncReadExt;
    admin
        .write_all(b"*2\r\n$6\r\nCLIENT\r\n$4\r\nLIST\r\n")
        .await
        .unwrap();
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    // `$<len>\r\n<lines>\r\n`: read until the announced length arrived.
    loop {
        let n = tokio::time::timeout(WAIT, admin.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0);
        reply.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&reply);
        if let Some((head, rest)) = text.split_once("\r\n") {
            let len: usize = head[1..].parse().unwrap();
            if rest.len() >= len + 2 {
                return rest[..len].lines().filter(|l| l.starts_with("id=")).count();
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_takes_no_replies_is_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&test_config(&dir, |c| {
        c.request_timeout = HumanDuration(SECOND);
    }))
    .await
    .unwrap();
    let resp = server.resp_addr().unwrap();
    let mut admin = TcpStream::connect(resp).await.unwrap();
    let value = "v".repeat(512 << 10);
    let set = format!(
        "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n${}\r\n{value}\r\n",
        value.len()
    );
    round_trip(&mut admin, set.as_bytes(), b"+OK\r\n").await;

    // 64 MiB of replies asked for and none read: far more than the
    // sockets' buffers hold, so the server's writes stall.
    let mut reader = TcpStream::connect(resp).await.unwrap();
    // Counted before it stalls: once it does, a loaded machine may close
    // it (after the 1 s request timeout) before `CLIENT LIST` runs.
    await_resp_clients(&mut admin, 2, "the reader was never accepted").await;
    let get = b"*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n".repeat(128);
    reader.write_all(&get).await.unwrap();
    await_resp_clients(&mut admin, 1, "the stalled reader was never closed").await;
    // What it gets when it reads at last is cut short.
    let (got, closed) = read_until_closed(&mut reader, WAIT).await;
    assert!(closed && got.len() < 64 << 20, "{} bytes", got.len());
    server.shutdown(Duration::from_secs(5)).await;
}
