//! The item size limit (memcached's `-I`, Strata's `--max-item-size`) as a
//! session sees it, checked against memcached 1.6's `proto_text.c`: a
//! storage command whose value is over the limit is answered `SERVER_ERROR
//! object too large for cache` at once, its announced `<bytes>\r\n` are
//! swallowed unread (even when they look like commands), and the
//! connection goes on with the next command. A refused `set` (and any
//! refused `ms`, whatever its mode) also removes the key's old value, so
//! no stale value outlives the write; `add`, `replace`, `append`,
//! `prepend` and `cas` leave it. Classic `noreply` hides the error; the
//! meta `q` flag does not (memcached's `out_errstring`).

use crate::common;

use common::{Conn, Server};
use strata_kv::KeyspaceConfig;

const LIMIT: usize = 4096;

fn server() -> Server {
    let config = KeyspaceConfig {
        max_item_size: LIMIT,
        ..KeyspaceConfig::default()
    };
    Server::with_config(config, 64)
}

const TOO_LARGE: &[u8] = b"SERVER_ERROR object too large for cache\r\n";

/// A value over the limit made of lines that would be commands if they
/// were ever parsed.
fn command_like_value(len: usize) -> Vec<u8> {
    b"delete k\r\nset k 0 0 1\r\ny\r\n"
        .iter()
        .copied()
        .cycle()
        .take(len)
        .collect()
}

/// Sends `line` (a storage command announcing `value.len()` bytes), reads
/// the refusal that must come before any data is sent, then sends the data
/// in pieces and its `\r\n`.
fn refused_before_data(c: &mut Conn, line: &[u8], value: &[u8], reply: &[u8]) {
    c.send(line);
    assert_eq!(
        String::from_utf8_lossy(&c.read_n(reply.len())),
        String::from_utf8_lossy(reply),
        "{}",
        String::from_utf8_lossy(line)
    );
    for piece in value.chunks(1000) {
        c.send(piece);
    }
    c.send(b"\r\n");
}

#[test]
fn an_oversized_set_is_refused_swallowed_and_removes_the_old_value() {
    let server = server();
    let mut c = server.connect();
    c.check(b"set k 0 0 3\r\nold\r\n", b"STORED\r\n");
    let value = command_like_value(LIMIT + 1);
    refused_before_data(&mut c, b"set k 0 0 4097\r\n", &value, TOO_LARGE);
    // Nothing of the value ran as a command, the old value is gone, and
    // the connection reads the next command.
    c.check(b"get k\r\n", b"END\r\n");
    c.check(
        b"set k 0 0 2\r\nok\r\nget k\r\n",
        b"STORED\r\nVALUE k 0 2\r\nok\r\nEND\r\n",
    );
    // Sent in one piece with the next command right behind it.
    let mut req = b"set k 0 0 5000\r\n".to_vec();
    req.extend_from_slice(&command_like_value(5000));
    req.extend_from_slice(b"\r\nget k\r\n");
    let mut want = TOO_LARGE.to_vec();
    want.extend_from_slice(b"END\r\n");
    c.check(&req, &want);
    assert_eq!(c.stat("store_too_large"), "2");
}

#[test]
fn noreply_hides_the_refusal_but_not_its_effects() {
    let server = server();
    let mut c = server.connect();
    c.check(b"set k 0 0 3\r\nold\r\n", b"STORED\r\n");
    let mut req = b"set k 0 0 5000 noreply\r\n".to_vec();
    req.extend_from_slice(&command_like_value(5000));
    req.extend_from_slice(b"\r\nget k\r\n");
    c.check(&req, b"END\r\n");
    assert_eq!(c.stat("store_too_large"), "1");
}

#[test]
fn other_storage_commands_keep_the_old_value() {
    let server = server();
    let mut c = server.connect();
    c.check(b"set k 0 0 3\r\nold\r\n", b"STORED\r\n");
    let cas = c.cas_of("k");
    let value = command_like_value(LIMIT + 10);
    let cas_line = format!("cas k 0 0 {} {cas}\r\n", value.len());
    for line in [
        format!("add k 0 0 {}\r\n", value.len()),
        format!("replace k 0 0 {}\r\n", value.len()),
        format!("append k 0 0 {}\r\n", value.len()),
        format!("prepend k 0 0 {}\r\n", value.len()),
        cas_line,
    ] {
        refused_before_data(&mut c, line.as_bytes(), &value, TOO_LARGE);
        c.check(b"get k\r\n", b"VALUE k 0 3\r\nold\r\nEND\r\n");
    }
}

#[test]
fn an_oversized_meta_set_answers_even_when_quiet_and_removes_the_old_value() {
    let server = server();
    let mut c = server.connect();
    let value = command_like_value(LIMIT + 1);
    for flags in ["", " q", " MS", " MA q", " ME T60 F5"] {
        c.check(b"set k 0 0 3\r\nold\r\n", b"STORED\r\n");
        let line = format!("ms k {}{flags}\r\n", value.len());
        refused_before_data(&mut c, line.as_bytes(), &value, TOO_LARGE);
        c.check(b"mg k v\r\n", b"EN\r\n");
    }
    // In one piece, pipelined with the next meta command.
    let mut req = b"ms k 9000 q\r\n".to_vec();
    req.extend_from_slice(&command_like_value(9000));
    req.extend_from_slice(b"\r\nms k 2\r\nok\r\nmg k v\r\n");
    let mut want = TOO_LARGE.to_vec();
    want.extend_from_slice(b"HD\r\nVA 2\r\nok\r\n");
    c.check(&req, &want);
}

#[test]
fn values_within_the_limit_are_stored() {
    let server = server();
    let mut c = server.connect();
    // The limit covers the whole item (key and header too), as memcached's
    // item_size_ok: a value well within it is stored, by both protocols.
    let value = vec![b'v'; LIMIT / 2];
    let mut req = format!("set k 0 0 {}\r\n", value.len()).into_bytes();
    req.extend_from_slice(&value);
    req.extend_from_slice(b"\r\n");
    c.check(&req, b"STORED\r\n");
    let mut req = format!("ms m {}\r\n", value.len()).into_bytes();
    req.extend_from_slice(&value);
    req.extend_from_slice(b"\r\n");
    c.check(&req, b"HD\r\n");
    assert_eq!(c.stat("store_too_large"), "0");
}
