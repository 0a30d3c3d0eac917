//! Raw protocol over TCP: unknown commands, arity, inline commands,
//! pipelining, protocol errors and size limits.

use crate::common;

use common::{start, start_with, Client, Value};
use strata_kv::KeyspaceConfig;

#[test]
fn unknown_commands_and_arity() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(
        c.cmd(&["foo", "bar", "baz"]),
        Value::err("ERR unknown command 'foo', with args beginning with: 'bar' 'baz' ")
    );
    assert_eq!(
        c.cmd(&["foo"]),
        Value::err("ERR unknown command 'foo', with args beginning with: ")
    );
    assert_eq!(
        c.cmd(&["GET"]),
        Value::err("ERR wrong number of arguments for 'get' command")
    );
    assert_eq!(
        c.cmd(&["get", "a", "b"]),
        Value::err("ERR wrong number of arguments for 'get' command")
    );
    assert_eq!(
        c.cmd(&["XADD", "l", "x"]),
        Value::err("ERR wrong number of arguments for 'xadd' command")
    );
    // Without persistence there is nowhere to save; LASTSAVE is the start.
    assert_eq!(
        c.cmd(&["SAVE"]),
        Value::err("ERR persistence is not configured")
    );
    assert_eq!(c.cmd(&["BGSAVE", "now"]), Value::err("ERR syntax error"));
    assert!(matches!(c.cmd(&["LASTSAVE"]), Value::Int(t) if t > 1_600_000_000));
    // The connection is still usable.
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
}

#[test]
fn inline_commands() {
    let server = start();
    let mut c = Client::connect(&server);
    c.send_raw(b"SET greeting \"hello world\"\r\nGET greeting\r\n\r\necho 'it\\'s'\nPING\r\n");
    c.expect_raw(b"+OK\r\n$11\r\nhello world\r\n$4\r\nit's\r\n+PONG\r\n");
}

#[test]
fn pipelining_in_one_write() {
    let server = start();
    let mut c = Client::connect(&server);
    let mut batch = Vec::new();
    let mut expected = Vec::new();
    for i in 0..500 {
        let key = format!("k{i}");
        batch.extend(common::encode(&[b"SET", key.as_bytes(), b"v"]));
        batch.extend(common::encode(&[b"INCR", b"n"]));
        batch.extend(common::encode(&[b"GET", key.as_bytes()]));
        expected.extend_from_slice(b"+OK\r\n");
        expected.extend(format!(":{}\r\n", i + 1).into_bytes());
        expected.extend_from_slice(b"$1\r\nv\r\n");
    }
    c.send_raw(&batch);
    c.expect_raw(&expected);
}

#[test]
fn pipelining_split_at_odd_places() {
    let server = start();
    let mut c = Client::connect(&server);
    let batch = [
        common::encode(&[b"SET", b"a", b"12345"]),
        common::encode(&[b"APPEND", b"a", b"678"]),
        common::encode(&[b"GET", b"a"]),
    ]
    .concat();
    for piece in batch.chunks(3) {
        c.send_raw(piece);
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    c.expect_raw(b"+OK\r\n:8\r\n$8\r\n12345678\r\n");
}

#[test]
fn protocol_errors_close_only_that_connection() {
    let server = start();
    let mut good = Client::connect(&server);
    let cases: &[(&[u8], &[u8])] = &[
        (
            b"*1\r\n+foo\r\n",
            b"-ERR Protocol error: expected '$', got '+'\r\n",
        ),
        (
            b"*x\r\n",
            b"-ERR Protocol error: invalid multibulk length\r\n",
        ),
        (
            b"*2000000\r\n",
            b"-ERR Protocol error: invalid multibulk length\r\n",
        ),
        (
            b"*1\r\n$-1\r\n",
            b"-ERR Protocol error: invalid bulk length\r\n",
        ),
        (
            b"*2\r\n$3\r\nSET\r\n$600000000\r\n",
            b"-ERR Protocol error: invalid bulk length\r\n",
        ),
        (
            b"echo \"abc\r\n",
            b"-ERR Protocol error: unbalanced quotes in request\r\n",
        ),
    ];
    for (input, reply) in cases {
        let mut bad = Client::connect(&server);
        bad.send_raw(b"PING\r\n");
        bad.send_raw(input);
        bad.expect_raw(b"+PONG\r\n");
        bad.expect_raw(reply);
        assert!(bad.is_closed(), "{:?}", String::from_utf8_lossy(input));
    }
    let mut bad = Client::connect(&server);
    bad.send_raw(&vec![b'x'; 70_000]);
    bad.expect_raw(b"-ERR Protocol error: too big inline request\r\n");
    assert!(bad.is_closed());
    assert_eq!(good.cmd(&["PING"]), Value::Simple("PONG".into()));
}

#[test]
fn values_over_the_item_limit() {
    let config = KeyspaceConfig {
        max_item_size: 4096,
        shards: 4,
        ..KeyspaceConfig::default()
    };
    let server = start_with(config, None);
    let mut c = Client::connect(&server);
    // Within the bulk slack: the engine refuses it with an error reply.
    let value = vec![b'x'; 8192];
    let reply = c.cmd_bytes(&[b"SET", b"big", &value]);
    assert!(
        reply
            .text()
            .starts_with("ERR string exceeds maximum allowed size"),
        "{reply:?}"
    );
    assert_eq!(c.cmd(&["APPEND", "a", &"y".repeat(3000)]), Value::Int(3000));
    let reply = c.cmd(&["APPEND", "a", &"y".repeat(3000)]);
    assert!(
        reply
            .text()
            .starts_with("ERR string exceeds maximum allowed size"),
        "{reply:?}"
    );
    assert_eq!(c.cmd(&["STRLEN", "a"]), Value::Int(3000));
    // Far beyond the item size but within proto-max-bulk-len (512 MiB by
    // default): read, refused by the engine, the connection stays usable.
    let value = vec![b'x'; 4 << 20];
    let reply = c.cmd_bytes(&[b"SET", b"big", &value]);
    assert!(
        reply
            .text()
            .starts_with("ERR string exceeds maximum allowed size"),
        "{reply:?}"
    );
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
    // Over proto-max-bulk-len: Redis's protocol error at the header, before
    // any data, and the connection is closed (as Redis closes it).
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "proto-max-bulk-len", "1mb"]),
        Value::Simple("OK".into())
    );
    c.send_raw(b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1048577\r\n");
    c.expect_raw(b"-ERR Protocol error: invalid bulk length\r\n");
    assert!(c.is_closed());
}

/// With the item size raised, 4 MiB values are stored and read back whole;
/// `proto-max-bulk-len` is reported and bounded as Redis bounds it.
#[test]
fn large_values_with_the_limits_raised() {
    let config = KeyspaceConfig {
        max_item_size: 8 << 20,
        memory_limit: 64 << 20,
        shards: 4,
        ..KeyspaceConfig::default()
    };
    let server = start_with(config, None);
    let mut c = Client::connect(&server);
    assert_eq!(
        c.cmd(&["CONFIG", "GET", "proto-max-bulk-len"]),
        Value::Array(vec![
            Value::Bulk(b"proto-max-bulk-len".to_vec()),
            Value::Bulk(b"536870912".to_vec()),
        ])
    );
    let value: Vec<u8> = (0..4 << 20).map(|i: u32| (i % 251) as u8).collect();
    assert_eq!(
        c.cmd_bytes(&[b"SET", b"big", &value]),
        Value::Simple("OK".into())
    );
    assert_eq!(c.cmd(&["GET", "big"]), Value::Bulk(value.clone()));
    assert_eq!(c.cmd(&["STRLEN", "big"]), Value::Int(4 << 20));
    for (bad, reason) in [
        (
            "1000",
            "argument must be between 1048576 and 536870912 inclusive",
        ),
        (
            "600mb",
            "argument must be between 1048576 and 536870912 inclusive",
        ),
        ("lots", "argument must be a memory value"),
    ] {
        assert_eq!(
            c.cmd(&["CONFIG", "SET", "proto-max-bulk-len", bad]),
            Value::err(&format!(
                "ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - {reason}"
            ))
        );
    }
    // Lowered under the value: APPEND checks the result as Redis does.
    assert_eq!(
        c.cmd(&["CONFIG", "SET", "proto-max-bulk-len", "4mb"]),
        Value::Simple("OK".into())
    );
    assert_eq!(
        c.cmd(&["APPEND", "big", "z"]),
        Value::err("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
    );
}
