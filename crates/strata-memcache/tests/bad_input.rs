//! Malformed requests get memcached's exact replies and the connection stays
//! usable wherever memcached keeps it open.

use crate::common;

use common::Server;
use strata_kv::KeyspaceConfig;

#[test]
fn unknown_commands_and_word_counts() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"foo\r\n\r\nSET k 0 0 1\r\nx\r\n",
        b"ERROR\r\nERROR\r\nERROR\r\nERROR\r\n",
    );
    c.check(
        b"set\r\nset k\r\nset k 0 0\r\nset k 0 0 1 2 3 4\r\n",
        b"ERROR\r\nERROR\r\nERROR\r\nERROR\r\n",
    );
    c.check(b"get\r\ngets\r\n", b"ERROR\r\nERROR\r\n");
    c.check(b"get\tk\r\n", b"ERROR\r\n");
    c.check(b"version\r\n", b"VERSION 1.6.18-strata-0.1.0-test\r\n");
}

#[test]
fn malformed_storage_lines_do_not_swallow_data() {
    let server = Server::start();
    let mut c = server.connect();
    let bad = b"CLIENT_ERROR bad command line format\r\n";
    for line in [
        &b"set k 0 0 -1\r\n"[..],
        b"set k 0 0 abc\r\n",
        b"set k abc 0 1\r\n",
        b"set k -1 0 1\r\n",
        b"set k 0 abc 1\r\n",
        b"set k 0 0 2147483647\r\n",
        b"cas k 0 0 1 abc\r\n",
    ] {
        let mut req = line.to_vec();
        req.extend_from_slice(b"xy\r\n");
        let mut want = bad.to_vec();
        want.extend_from_slice(b"ERROR\r\n");
        c.check(&req, &want);
    }
    let key = "k".repeat(251);
    c.check(
        format!("set {key} 0 0 1\r\nx\r\n").as_bytes(),
        b"CLIENT_ERROR bad command line format\r\nERROR\r\n",
    );
    // noreply hides these errors too (memcached parses noreply first).
    c.check(
        format!("set {key} 0 0 1 noreply\r\nx\r\n").as_bytes(),
        b"ERROR\r\n",
    );
    c.check(b"set n abc 0 1 noreply\r\nx\r\n", b"ERROR\r\n");
    c.check(b"set n 0 0 -1 noreply\r\n", b"");
    // Key length 250 is fine.
    let key = "k".repeat(250);
    c.check(
        format!("set {key} 0 0 1\r\nx\r\nget {key}\r\n").as_bytes(),
        format!("STORED\r\nVALUE {key} 0 1\r\nx\r\nEND\r\n").as_bytes(),
    );
}

#[test]
fn bad_data_chunks() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set k 0 0 1\r\nx\r\n", b"STORED\r\n");
    // The block is read by length; what follows it is parsed as a command.
    c.check(
        b"set k 0 0 2\r\nxyz\r\nget k\r\n",
        b"CLIENT_ERROR bad data chunk\r\nERROR\r\nVALUE k 0 1\r\nx\r\nEND\r\n",
    );
    c.check(
        b"set k 0 0 2\r\nxyab\r\nget k\r\n",
        b"CLIENT_ERROR bad data chunk\r\nERROR\r\nVALUE k 0 1\r\nx\r\nEND\r\n",
    );
    c.check(
        b"set k 0 0 2\r\nx\r\nget k\r\n",
        b"CLIENT_ERROR bad data chunk\r\nERROR\r\n",
    );
    c.check(
        b"set k 0 0 2 noreply\r\nxyz\r\nget k\r\n",
        b"ERROR\r\nVALUE k 0 1\r\nx\r\nEND\r\n",
    );
    c.check(b"append k 0 0 1 noreply\r\nxyz\r\n", b"ERROR\r\n");
    // Meta set always reports it.
    c.check(
        b"ms k 2 q\r\nabc\r\n",
        b"CLIENT_ERROR bad data chunk\r\nERROR\r\n",
    );
    c.check(b"get k\r\n", b"VALUE k 0 1\r\nx\r\nEND\r\n");
}

#[test]
fn bad_keys() {
    let server = Server::start();
    let mut c = server.connect();
    let key = "k".repeat(251);
    let bad = b"CLIENT_ERROR bad command line format\r\n";
    c.check(b"set k 0 0 1\r\nx\r\n", b"STORED\r\n");
    // A long key anywhere in a multiget discards the whole reply.
    c.check(format!("get k {key}\r\n").as_bytes(), bad);
    c.check(format!("gat 10 {key}\r\n").as_bytes(), bad);
    c.check(
        format!("incr {key} 1\r\ntouch {key} 1\r\ndelete {key}\r\n").as_bytes(),
        &bad.repeat(3),
    );
    c.check(
        format!("decr {key} 1 noreply\r\ndelete {key} noreply\r\n").as_bytes(),
        b"",
    );
    for cmd in ["mg", "md", "ma", "me"] {
        c.check(format!("{cmd} {key}\r\n").as_bytes(), bad);
    }
    // protocol.txt forbids control characters in keys: refused like an
    // over-long key (the data line then reads as an unknown command), and
    // nothing is stored.
    let mut want = bad.to_vec();
    want.extend_from_slice(b"ERROR\r\n");
    want.extend_from_slice(bad);
    c.check(b"set a\x01b 0 0 1\r\nx\r\nget a\x01b\r\n", &want);
    c.check(b"get a\x7fb k\r\n", bad);
    c.check(b"mg a\tb v\r\n", bad);
    c.check(b"ms a\x02b 1\r\nx\r\n", &want[..bad.len() + 7]);
    // A NUL ends the line as far as memcached is concerned.
    c.check(b"get k\0junk\r\n", b"VALUE k 0 1\r\nx\r\nEND\r\n");
}

#[test]
fn oversized_values_are_streamed_away() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"set k 0 0 1\r\nx\r\n", b"STORED\r\n");
    let big = vec![b'a'; 2_000_000];
    let mut req = b"set k 0 0 2000000\r\n".to_vec();
    req.extend_from_slice(&big);
    req.extend_from_slice(b"\r\nget k\r\n");
    // A failed set also removes the old value, as in memcached.
    c.check(&req, b"SERVER_ERROR object too large for cache\r\nEND\r\n");
    // noreply hides the error; the bytes are still discarded.
    let mut req = b"set k 0 0 2000000 noreply\r\n".to_vec();
    req.extend_from_slice(&big);
    req.extend_from_slice(b"\r\n");
    c.check(&req, b"");
    // Exactly <bytes>+2 are discarded, whatever they are.
    let mut req = b"add k 0 0 2000000\r\n".to_vec();
    req.extend_from_slice(&big);
    req.extend_from_slice(b"XX\r\n");
    c.check(
        &req,
        b"SERVER_ERROR object too large for cache\r\nERROR\r\n",
    );
    c.check(b"set k 0 0 1\r\nx\r\n", b"STORED\r\n");
    let mut req = b"ms k 2000000 q\r\n".to_vec();
    req.extend_from_slice(&big);
    req.extend_from_slice(b"\r\nget k\r\n");
    c.check(&req, b"SERVER_ERROR object too large for cache\r\nEND\r\n");
    assert_eq!(c.stat("store_too_large"), "4");
}

#[test]
fn huge_announced_length_costs_no_memory() {
    let server = Server::start();
    let mut c = server.connect();
    // 2 GB announced: answered at once, then the bytes are dropped as they
    // arrive; the connection survives sending a good part of them.
    c.send(b"set k 0 0 2147483645\r\n");
    assert_eq!(c.read_n(41), b"SERVER_ERROR object too large for cache\r\n");
    let chunk = vec![b'z'; 1 << 20];
    for _ in 0..8 {
        c.send(&chunk);
    }
    let mut c2 = server.connect();
    c2.check(b"version\r\n", b"VERSION 1.6.18-strata-0.1.0-test\r\n");
}

#[test]
fn engine_item_limit_is_the_cutoff() {
    let config = KeyspaceConfig {
        max_item_size: 4096,
        ..KeyspaceConfig::default()
    };
    let server = Server::with_config(config, 64);
    let mut c = server.connect();
    let value = vec![b'v'; 5000];
    let mut req = b"set k 0 0 5000\r\n".to_vec();
    req.extend_from_slice(&value);
    req.extend_from_slice(b"\r\n");
    c.check(&req, b"SERVER_ERROR object too large for cache\r\n");
    // Within the limit but too large with its key and header: the engine
    // refuses it with the same reply.
    let value = vec![b'v'; 4096];
    let mut req = b"set k 0 0 4096\r\n".to_vec();
    req.extend_from_slice(&value);
    req.extend_from_slice(b"\r\n");
    c.check(&req, b"SERVER_ERROR object too large for cache\r\n");
    c.check(
        b"set k 0 0 1\r\nx\r\nget k\r\n",
        b"STORED\r\nVALUE k 0 1\r\nx\r\nEND\r\n",
    );
}

#[test]
fn long_lines_close_the_connection() {
    let server = Server::start();
    let mut c = server.connect();
    c.send(&vec![b'x'; 5000]);
    assert_eq!(c.read_to_close(), b"CLIENT_ERROR line too long\r\n");
    // A long line that arrives whole with its newline is just a command.
    let mut c = server.connect();
    let mut req = vec![b'x'; 2100];
    req.extend_from_slice(b"\r\n");
    c.check(&req, b"ERROR\r\n");
    // Multigets may be long.
    let mut c = server.connect();
    c.check(b"set k 0 0 1\r\nx\r\n", b"STORED\r\n");
    let mut req = b"get".to_vec();
    for _ in 0..3000 {
        req.extend_from_slice(b" nokey");
    }
    req.extend_from_slice(b" k\r\n");
    c.send(&req[..10_000]);
    std::thread::sleep(std::time::Duration::from_millis(20));
    c.check(&req[10_000..], b"VALUE k 0 1\r\nx\r\nEND\r\n");
}

#[test]
fn split_requests_reassemble() {
    let server = Server::start();
    let mut c = server.connect();
    let req = b"set k 0 0 5\r\nhello\r\nget k\r\n";
    for byte in req.iter() {
        c.send(&[*byte]);
    }
    c.check(b"", b"STORED\r\nVALUE k 0 5\r\nhello\r\nEND\r\n");
}

#[test]
fn noreply_pipeline() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(
        b"set a 0 0 1 noreply\r\nx\r\nadd a 0 0 1 noreply\r\ny\r\nreplace a 0 0 1 noreply\r\nz\r\nappend a 0 0 1 noreply\r\n1\r\nprepend a 0 0 1 noreply\r\n0\r\nget a\r\n",
        b"VALUE a 0 3\r\n0z1\r\nEND\r\n",
    );
    let cas = c.cas_of("a");
    c.check(
        format!("cas a 0 0 1 {cas} noreply\r\nq\r\nget a\r\n").as_bytes(),
        b"VALUE a 0 1\r\nq\r\nEND\r\n",
    );
    c.check(b"set n 0 0 1\r\n5\r\nincr n 1 noreply\r\ndecr n 2 noreply\r\ntouch n 10 noreply\r\nget n\r\n", b"STORED\r\nVALUE n 0 1\r\n4\r\nEND\r\n");
    c.check(
        b"flush_all noreply\r\nverbosity 0 noreply\r\nget n\r\n",
        b"END\r\n",
    );
}

/// An HTTP request line closes the connection without a reply, as in
/// memcached; lower-case `get / HTTP/1.0` is still a get of two keys.
#[test]
fn http_request_line_closes_the_connection() {
    let server = Server::start();
    let mut c = server.connect();
    c.check(b"get / HTTP/1.0\r\n", b"END\r\n");
    c.check(b"GET key\r\n", b"ERROR\r\n");
    c.send(b"GET / HTTP/1.0\r\n\r\n");
    assert_eq!(c.read_to_close(), b"");
    let mut c = server.connect();
    c.send(b"POST /x HTTP/1.1\r\n");
    assert_eq!(c.read_to_close(), b"");
}
