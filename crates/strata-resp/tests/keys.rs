//! Key commands over TCP: deletion, expiry (manual clock), KEYS, SCAN,
//! RENAME, RANDOMKEY, DBSIZE, FLUSH.

use crate::common;

use std::collections::BTreeSet;

use common::{bulks, start, Client, Value};

#[test]
fn del_unlink_exists_type() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["MSET", "a", "1", "b", "2", "c", "3"]);
    assert_eq!(c.cmd(&["EXISTS", "a", "a", "nope", "b"]), Value::Int(3));
    assert_eq!(c.cmd(&["TYPE", "a"]), Value::Simple("string".into()));
    assert_eq!(c.cmd(&["TYPE", "nope"]), Value::Simple("none".into()));
    assert_eq!(c.cmd(&["DEL", "a", "nope", "a"]), Value::Int(1));
    assert_eq!(c.cmd(&["UNLINK", "b", "c"]), Value::Int(2));
    assert_eq!(c.cmd(&["DBSIZE"]), Value::Int(0));
    assert_eq!(
        c.cmd(&["DEL"]),
        Value::err("ERR wrong number of arguments for 'del' command")
    );
}

#[test]
fn expire_family_and_ttl() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "k", "v"]);
    assert_eq!(c.cmd(&["TTL", "k"]), Value::Int(-1));
    assert_eq!(c.cmd(&["TTL", "nope"]), Value::Int(-2));
    assert_eq!(c.cmd(&["PTTL", "nope"]), Value::Int(-2));
    assert_eq!(c.cmd(&["EXPIRETIME", "k"]), Value::Int(-1));
    assert_eq!(c.cmd(&["EXPIRE", "nope", "10"]), Value::Int(0));
    assert_eq!(c.cmd(&["EXPIRE", "k", "100", "GT"]), Value::Int(0));
    assert_eq!(c.cmd(&["EXPIRE", "k", "100", "XX"]), Value::Int(0));
    assert_eq!(c.cmd(&["EXPIRE", "k", "100", "LT"]), Value::Int(1));
    assert_eq!(c.cmd(&["TTL", "k"]), Value::Int(100));
    assert_eq!(c.cmd(&["EXPIRE", "k", "50", "NX"]), Value::Int(0));
    assert_eq!(c.cmd(&["EXPIRE", "k", "200", "XX"]), Value::Int(1));
    assert_eq!(c.cmd(&["EXPIRE", "k", "100", "GT"]), Value::Int(0));
    assert_eq!(c.cmd(&["EXPIRE", "k", "300", "GT"]), Value::Int(1));
    assert_eq!(c.cmd(&["EXPIRE", "k", "400", "LT"]), Value::Int(0));
    assert_eq!(c.cmd(&["PEXPIRE", "k", "1500"]), Value::Int(1));
    assert_eq!(c.cmd(&["PTTL", "k"]), Value::Int(1500));
    assert_eq!(c.cmd(&["TTL", "k"]), Value::Int(2)); // rounded
    let at = (common::T0_MS / 1000 + 60).to_string();
    assert_eq!(c.cmd(&["EXPIREAT", "k", &at]), Value::Int(1));
    assert_eq!(c.cmd(&["TTL", "k"]), Value::Int(60));
    let pat = (common::T0_MS + 5000).to_string();
    assert_eq!(c.cmd(&["PEXPIREAT", "k", &pat]), Value::Int(1));
    assert_eq!(
        c.cmd(&["PEXPIRETIME", "k"]),
        Value::Int(common::T0_MS as i64 + 5000)
    );
    assert_eq!(
        c.cmd(&["EXPIRETIME", "k"]),
        Value::Int(common::T0_MS as i64 / 1000 + 5)
    );
    server.clock.advance_ms(4999);
    assert_eq!(c.cmd(&["PTTL", "k"]), Value::Int(1));
    server.clock.advance_ms(1);
    assert_eq!(c.cmd(&["GET", "k"]), Value::Null);

    // A time in the past deletes the key and counts as set.
    c.cmd(&["SET", "k", "v"]);
    assert_eq!(c.cmd(&["EXPIRE", "k", "-1"]), Value::Int(1));
    assert_eq!(c.cmd(&["EXISTS", "k"]), Value::Int(0));

    c.cmd(&["SET", "k", "v"]);
    let cases = [
        (
            vec!["EXPIRE", "k", "100", "NX", "XX"],
            "ERR NX and XX, GT or LT options at the same time are not compatible",
        ),
        (
            vec!["EXPIRE", "k", "100", "GT", "LT"],
            "ERR GT and LT options at the same time are not compatible",
        ),
        (
            vec!["EXPIRE", "k", "100", "FOO"],
            "ERR Unsupported option FOO",
        ),
        (
            vec!["EXPIRE", "k", "x"],
            "ERR value is not an integer or out of range",
        ),
        (
            vec!["EXPIRE", "k", "9223372036854775807"],
            "ERR invalid expire time in 'expire' command",
        ),
        (
            vec!["PEXPIRE", "k", "9223372036854775807"],
            "ERR invalid expire time in 'pexpire' command",
        ),
    ];
    for (cmd, err) in cases {
        assert_eq!(c.cmd(&cmd), Value::err(err), "{cmd:?}");
    }
}

#[test]
fn persist() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SETEX", "k", "10", "v"]);
    assert_eq!(c.cmd(&["PERSIST", "k"]), Value::Int(1));
    assert_eq!(c.cmd(&["TTL", "k"]), Value::Int(-1));
    assert_eq!(c.cmd(&["PERSIST", "k"]), Value::Int(0));
    assert_eq!(c.cmd(&["PERSIST", "nope"]), Value::Int(0));
    server.clock.advance_ms(20_000);
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("v"));
}

#[test]
fn keys_glob() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&[
        "MSET", "hello", "1", "hallo", "2", "hxllo", "3", "hllo", "4", "heeeello", "5", "a*b", "6",
    ]);
    let sorted = |v: Value| {
        let mut names: Vec<String> = v.array().iter().map(Value::text).collect();
        names.sort();
        names
    };
    assert_eq!(
        sorted(c.cmd(&["KEYS", "h?llo"])),
        ["hallo", "hello", "hxllo"]
    );
    assert_eq!(
        sorted(c.cmd(&["KEYS", "h*llo"])),
        ["hallo", "heeeello", "hello", "hllo", "hxllo"]
    );
    assert_eq!(sorted(c.cmd(&["KEYS", "h[ae]llo"])), ["hallo", "hello"]);
    assert_eq!(sorted(c.cmd(&["KEYS", "h[^e]llo"])), ["hallo", "hxllo"]);
    assert_eq!(sorted(c.cmd(&["KEYS", "h[a-b]llo"])), ["hallo"]);
    assert_eq!(sorted(c.cmd(&["KEYS", "a\\*b"])), ["a*b"]);
    assert_eq!(sorted(c.cmd(&["KEYS", "*"])).len(), 6);
    assert_eq!(c.cmd(&["KEYS", "zzz*"]), Value::Array(vec![]));
}

#[test]
fn scan_full_iteration_returns_every_key() {
    let server = start();
    let mut c = Client::connect(&server);
    let mut expected = BTreeSet::new();
    for chunk in 0..20 {
        let mut args: Vec<String> = vec!["MSET".into()];
        for i in 0..100 {
            let key = format!("key:{}", chunk * 100 + i);
            args.push(key.clone());
            args.push("v".into());
            expected.insert(key);
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_eq!(c.cmd(&refs), Value::ok());
    }
    for count in ["1", "10", "1000"] {
        let mut seen = BTreeSet::new();
        let mut cursor = "0".to_string();
        let mut steps = 0;
        loop {
            let reply = c.cmd(&["SCAN", &cursor, "COUNT", count]);
            let parts = reply.array();
            cursor = parts[0].text();
            for key in parts[1].array() {
                seen.insert(key.text());
            }
            steps += 1;
            assert!(steps < 100_000, "scan does not terminate");
            if cursor == "0" {
                break;
            }
        }
        assert_eq!(seen, expected, "COUNT {count}");
    }
    // MATCH and TYPE filters.
    let mut matched = BTreeSet::new();
    let mut cursor = "0".to_string();
    loop {
        let reply = c.cmd(&[
            "SCAN", &cursor, "MATCH", "key:1?", "COUNT", "100", "TYPE", "string",
        ]);
        cursor = reply.array()[0].text();
        matched.extend(reply.array()[1].array().iter().map(Value::text));
        if cursor == "0" {
            break;
        }
    }
    assert_eq!(matched.len(), 10);
    let reply = c.cmd(&["SCAN", "0", "TYPE", "list", "COUNT", "5000"]);
    assert_eq!(reply.array()[1], Value::Array(vec![]));
    assert_eq!(c.cmd(&["SCAN", "x"]), Value::err("ERR invalid cursor"));
    assert_eq!(
        c.cmd(&["SCAN", "0", "COUNT", "0"]),
        Value::err("ERR syntax error")
    );
    assert_eq!(
        c.cmd(&["SCAN", "0", "COUNT", "x"]),
        Value::err("ERR value is not an integer or out of range")
    );
    assert_eq!(
        c.cmd(&["SCAN", "0", "MATCH"]),
        Value::err("ERR syntax error")
    );
}

#[test]
fn rename_randomkey_dbsize_flush() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["RANDOMKEY"]), Value::Null);
    c.cmd(&["SETEX", "a", "100", "1"]);
    c.cmd(&["SET", "b", "2"]);
    assert_eq!(
        c.cmd(&["RENAME", "nope", "x"]),
        Value::err("ERR no such key")
    );
    assert_eq!(
        c.cmd(&["RENAMENX", "nope", "x"]),
        Value::err("ERR no such key")
    );
    assert_eq!(c.cmd(&["RENAMENX", "a", "b"]), Value::Int(0));
    assert_eq!(c.cmd(&["RENAME", "a", "c"]), Value::ok());
    assert_eq!(c.cmd(&["TTL", "c"]), Value::Int(100));
    assert_eq!(c.cmd(&["RENAME", "c", "b"]), Value::ok());
    assert_eq!(c.cmd(&["GET", "b"]), Value::bulk("1"));
    assert_eq!(c.cmd(&["RENAMENX", "b", "d"]), Value::Int(1));
    assert_eq!(c.cmd(&["RENAME", "d", "d"]), Value::ok());
    assert_eq!(c.cmd(&["RENAMENX", "d", "d"]), Value::Int(0));
    assert_eq!(c.cmd(&["RANDOMKEY"]), Value::bulk("d"));
    assert_eq!(c.cmd(&["DBSIZE"]), Value::Int(1));
    c.cmd(&["MSET", "x", "1", "y", "2"]);
    assert_eq!(c.cmd(&["FLUSHDB", "FOO"]), Value::err("ERR syntax error"));
    assert_eq!(
        c.cmd(&["FLUSHALL", "ASYNC", "SYNC"]),
        Value::err("ERR syntax error")
    );
    assert_eq!(c.cmd(&["FLUSHDB"]), Value::ok());
    assert_eq!(c.cmd(&["DBSIZE"]), Value::Int(0));
    c.cmd(&["MSET", "x", "1", "y", "2"]);
    assert_eq!(c.cmd(&["FLUSHALL", "async"]), Value::ok());
    assert_eq!(c.cmd(&["KEYS", "*"]), bulks(&[]));
}
