//! A script that holds the keyspace for long stops no worker thread: with
//! one worker, a memcached request that arrives while an endless script
//! runs waits for it without blocking that worker, so the worker's other
//! connections are still served (the RESP one that sends `SCRIPT KILL`),
//! and the request is answered once the script has ended. Scripts run in
//! place on their worker thread and hand it off once they run long; a
//! script queued in `MULTI` does so from `EXEC` too.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::support::{Raw, Server};

const GET_K: &[u8] = b"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n";

const ENDLESS: &[u8] = b"*3\r\n$4\r\nEVAL\r\n$17\r\nwhile true do end\r\n$1\r\n0\r\n";

/// A one-worker server, a connection that sent `requests` (which run an
/// endless script), and an admin connection that has seen `BUSY`.
fn held_by(requests: &[u8]) -> (Server, Raw, TcpStream) {
    let server = Server::start(&["--threads", "1", "--worker-mode", "fixed"]);
    let mut admin = Raw::connect(server.resp());
    let threshold =
        b"*4\r\n$6\r\nCONFIG\r\n$3\r\nSET\r\n$20\r\nbusy-reply-threshold\r\n$3\r\n100\r\n";
    assert_eq!(admin.request(threshold, b"\r\n"), b"+OK\r\n");
    let mut runner = TcpStream::connect(server.resp()).expect("connect");
    runner.write_all(requests).expect("send the script");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !admin.request(GET_K, b"\r\n").starts_with(b"-BUSY") {
        assert!(Instant::now() < deadline, "the script never ran");
        std::thread::sleep(Duration::from_millis(10));
    }
    (server, admin, runner)
}

#[test]
fn a_memcached_request_waits_for_a_script_without_stopping_its_worker() {
    let (server, mut admin, mut runner) = held_by(ENDLESS);
    let mut mc = TcpStream::connect(server.memcache()).expect("connect");
    mc.write_all(b"set k 0 0 1\r\nx\r\n").expect("send set");
    std::thread::sleep(Duration::from_millis(200));
    mc.set_nonblocking(true).expect("nonblocking");
    let mut reply = [0u8; 64];
    match mc.read(&mut reply) {
        Err(err) if err.kind() == ErrorKind::WouldBlock => {}
        other => panic!("answered while the script held the keyspace: {other:?}"),
    }
    mc.set_nonblocking(false).expect("blocking");
    mc.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    // The one worker still serves its other connections.
    let kill = b"*2\r\n$6\r\nSCRIPT\r\n$4\r\nKILL\r\n";
    assert_eq!(admin.request(kill, b"\r\n"), b"+OK\r\n");
    let n = mc
        .read(&mut reply)
        .expect("the set is answered after the script");
    assert_eq!(&reply[..n], b"STORED\r\n");
    runner
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let n = runner.read(&mut reply).expect("the script's reply");
    assert!(
        reply[..n].starts_with(b"-ERR Script killed"),
        "{:?}",
        &reply[..n]
    );
    assert_eq!(admin.request(GET_K, b"x\r\n"), b"$1\r\nx\r\n");
}

#[test]
fn a_script_queued_in_exec_hands_its_worker_off_too() {
    // EXEC runs a queued script in place like EVAL does: past 2 ms it must
    // hand the one worker's other connections off, or SCRIPT KILL could
    // never be served.
    let transaction = [
        &b"*1\r\n$5\r\nMULTI\r\n"[..],
        ENDLESS,
        b"*1\r\n$4\r\nEXEC\r\n",
    ]
    .concat();
    let (_server, mut admin, mut runner) = held_by(&transaction);
    let kill = b"*2\r\n$6\r\nSCRIPT\r\n$4\r\nKILL\r\n";
    assert_eq!(admin.request(kill, b"\r\n"), b"+OK\r\n");
    runner
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let mut replies = Vec::new();
    let mut buf = [0u8; 256];
    while !replies.windows(13).any(|w| w == b"Script killed") {
        let n = runner.read(&mut buf).expect("EXEC's reply");
        assert!(n > 0, "closed: {:?}", String::from_utf8_lossy(&replies));
        replies.extend_from_slice(&buf[..n]);
    }
    assert!(
        replies.starts_with(b"+OK\r\n+QUEUED\r\n*1\r\n-ERR Script killed"),
        "{:?}",
        String::from_utf8_lossy(&replies)
    );
    assert_eq!(admin.request(GET_K, b"\r\n"), b"$-1\r\n");
}
