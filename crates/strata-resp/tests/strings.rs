//! String commands over TCP, replies compared with Redis 7's.

use crate::common;

use common::{bulks, start, Client, Value};

#[test]
fn get_set_and_options() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["GET", "k"]), Value::Null);
    assert_eq!(c.cmd(&["SET", "k", "v"]), Value::ok());
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("v"));
    assert_eq!(c.cmd(&["SET", "k", "v2", "NX"]), Value::Null);
    assert_eq!(c.cmd(&["SET", "k", "v2", "XX"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "other", "v", "XX"]), Value::Null);
    assert_eq!(c.cmd(&["SET", "k", "v3", "GET"]), Value::bulk("v2"));
    assert_eq!(c.cmd(&["SET", "k", "v4", "NX", "GET"]), Value::bulk("v3"));
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("v3"));
    assert_eq!(c.cmd(&["SET", "new", "v", "GET"]), Value::Null);
    assert_eq!(c.cmd(&["GET", "new"]), Value::bulk("v"));
    // Empty values and binary data round-trip.
    assert_eq!(c.cmd_bytes(&[b"SET", b"bin", b"\x00\r\n\xff"]), Value::ok());
    assert_eq!(
        c.cmd(&["GET", "bin"]),
        Value::Bulk(b"\x00\r\n\xff".to_vec())
    );
    assert_eq!(c.cmd(&["SET", "empty", ""]), Value::ok());
    assert_eq!(c.cmd(&["GET", "empty"]), Value::bulk(""));
}

#[test]
fn set_errors_match_redis() {
    let server = start();
    let mut c = Client::connect(&server);
    let syntax = Value::err("ERR syntax error");
    let expire = Value::err("ERR invalid expire time in 'set' command");
    assert_eq!(c.cmd(&["SET", "a", "b", "c"]), syntax);
    assert_eq!(c.cmd(&["SET", "a", "b", "NX", "XX"]), syntax);
    assert_eq!(c.cmd(&["SET", "a", "b", "KEEPTTL", "EX", "1"]), syntax);
    assert_eq!(c.cmd(&["SET", "a", "b", "EX", "1", "PX", "1"]), syntax);
    assert_eq!(c.cmd(&["SET", "a", "b", "EX"]), syntax);
    assert_eq!(c.cmd(&["SET", "a", "b", "EX", "0"]), expire);
    assert_eq!(c.cmd(&["SET", "a", "b", "EX", "-1"]), expire);
    assert_eq!(
        c.cmd(&["SET", "a", "b", "PX", "9223372036854775807"]),
        expire
    );
    assert_eq!(c.cmd(&["SET", "a", "b", "EX", "9223372036854775"]), expire);
    assert_eq!(c.cmd(&["SET", "a", "b", "EXAT", "0"]), expire);
    assert_eq!(
        c.cmd(&["SET", "a", "b", "EX", "x"]),
        Value::err("ERR value is not an integer or out of range")
    );
    // Repeating the same time option is allowed; the last wins.
    assert_eq!(
        c.cmd(&["SET", "a", "b", "EX", "10", "EX", "20"]),
        Value::ok()
    );
    assert_eq!(c.cmd(&["TTL", "a"]), Value::Int(20));
    assert_eq!(
        c.cmd(&["SET", "a"]),
        Value::err("ERR wrong number of arguments for 'set' command")
    );
}

#[test]
fn set_expiry_options_with_manual_clock() {
    let server = start();
    let mut c = Client::connect(&server);
    let now_s = common::T0_MS / 1000;
    assert_eq!(c.cmd(&["SET", "ex", "v", "EX", "10"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "px", "v", "PX", "1500"]), Value::ok());
    let exat = (now_s + 100).to_string();
    assert_eq!(c.cmd(&["SET", "exat", "v", "EXAT", &exat]), Value::ok());
    let pxat = (common::T0_MS + 2500).to_string();
    assert_eq!(c.cmd(&["SET", "pxat", "v", "PXAT", &pxat]), Value::ok());
    assert_eq!(c.cmd(&["TTL", "ex"]), Value::Int(10));
    assert_eq!(c.cmd(&["PTTL", "px"]), Value::Int(1500));
    assert_eq!(c.cmd(&["TTL", "exat"]), Value::Int(100));
    assert_eq!(
        c.cmd(&["EXPIRETIME", "exat"]),
        Value::Int(now_s as i64 + 100)
    );
    assert_eq!(
        c.cmd(&["PEXPIRETIME", "pxat"]),
        Value::Int(common::T0_MS as i64 + 2500)
    );
    // KEEPTTL keeps it; a plain SET drops it.
    assert_eq!(c.cmd(&["SET", "ex", "v2", "KEEPTTL"]), Value::ok());
    assert_eq!(c.cmd(&["TTL", "ex"]), Value::Int(10));
    server.clock.advance_ms(2000);
    assert_eq!(c.cmd(&["GET", "px"]), Value::Null);
    assert_eq!(c.cmd(&["GET", "ex"]), Value::bulk("v2"));
    server.clock.advance_ms(8000);
    assert_eq!(c.cmd(&["GET", "ex"]), Value::Null);
    assert_eq!(c.cmd(&["TTL", "ex"]), Value::Int(-2));
    // An absolute time in the past stores nothing and removes the key.
    assert_eq!(c.cmd(&["SET", "exat", "v", "EXAT", "1"]), Value::ok());
    assert_eq!(c.cmd(&["EXISTS", "exat"]), Value::Int(0));
    assert_eq!(c.cmd(&["SET", "p", "v"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "p", "v", "EX", "5"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "p", "v"]), Value::ok());
    assert_eq!(c.cmd(&["TTL", "p"]), Value::Int(-1));
}

#[test]
fn setnx_setex_psetex() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["SETNX", "k", "1"]), Value::Int(1));
    assert_eq!(c.cmd(&["SETNX", "k", "2"]), Value::Int(0));
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("1"));
    assert_eq!(c.cmd(&["SETEX", "k", "100", "v"]), Value::ok());
    assert_eq!(c.cmd(&["TTL", "k"]), Value::Int(100));
    assert_eq!(c.cmd(&["PSETEX", "k", "1500", "v"]), Value::ok());
    assert_eq!(c.cmd(&["PTTL", "k"]), Value::Int(1500));
    assert_eq!(
        c.cmd(&["SETEX", "k", "0", "v"]),
        Value::err("ERR invalid expire time in 'setex' command")
    );
    assert_eq!(
        c.cmd(&["PSETEX", "k", "-1", "v"]),
        Value::err("ERR invalid expire time in 'psetex' command")
    );
    assert_eq!(
        c.cmd(&["SETEX", "k", "x", "v"]),
        Value::err("ERR value is not an integer or out of range")
    );
}

#[test]
fn mget_mset_msetnx() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["MSET", "a", "1", "b", "2"]), Value::ok());
    assert_eq!(
        c.cmd(&["MGET", "a", "nope", "b"]),
        Value::Array(vec![Value::bulk("1"), Value::Null, Value::bulk("2")])
    );
    assert_eq!(
        c.cmd(&["MSET", "a"]),
        Value::err("ERR wrong number of arguments for 'mset' command")
    );
    assert_eq!(
        c.cmd(&["MSET", "a", "1", "b"]),
        Value::err("ERR wrong number of arguments for 'mset' command")
    );
    assert_eq!(c.cmd(&["MSETNX", "a", "9", "c", "3"]), Value::Int(0));
    assert_eq!(c.cmd(&["EXISTS", "c"]), Value::Int(0));
    assert_eq!(c.cmd(&["MSETNX", "c", "3", "d", "4"]), Value::Int(1));
    assert_eq!(c.cmd(&["MGET", "c", "d"]), bulks(&["3", "4"]));
}

#[test]
fn getset_getdel_getex() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["GETSET", "k", "1"]), Value::Null);
    assert_eq!(c.cmd(&["SETEX", "k", "100", "2"]), Value::ok());
    assert_eq!(c.cmd(&["GETSET", "k", "3"]), Value::bulk("2"));
    assert_eq!(c.cmd(&["TTL", "k"]), Value::Int(-1));
    assert_eq!(c.cmd(&["GETDEL", "k"]), Value::bulk("3"));
    assert_eq!(c.cmd(&["GETDEL", "k"]), Value::Null);

    assert_eq!(c.cmd(&["SET", "k", "v"]), Value::ok());
    assert_eq!(c.cmd(&["GETEX", "k"]), Value::bulk("v"));
    assert_eq!(c.cmd(&["GETEX", "k", "EX", "50"]), Value::bulk("v"));
    assert_eq!(c.cmd(&["TTL", "k"]), Value::Int(50));
    assert_eq!(c.cmd(&["GETEX", "k", "PERSIST"]), Value::bulk("v"));
    assert_eq!(c.cmd(&["TTL", "k"]), Value::Int(-1));
    assert_eq!(c.cmd(&["GETEX", "k", "PX", "2000"]), Value::bulk("v"));
    assert_eq!(c.cmd(&["PTTL", "k"]), Value::Int(2000));
    assert_eq!(
        c.cmd(&["GETEX", "k", "EX", "10", "EX", "20"]),
        Value::bulk("v")
    );
    assert_eq!(
        c.cmd(&["GETEX", "k", "EX", "0"]),
        Value::err("ERR invalid expire time in 'getex' command")
    );
    assert_eq!(
        c.cmd(&["GETEX", "k", "FOO"]),
        Value::err("ERR syntax error")
    );
    assert_eq!(
        c.cmd(&["GETEX", "k", "PERSIST", "EX", "10"]),
        Value::err("ERR syntax error")
    );
    assert_eq!(
        c.cmd(&["GETEX", "k", "KEEPTTL"]),
        Value::err("ERR syntax error")
    );
    // A bad time on a missing key is not reported, as in Redis.
    assert_eq!(c.cmd(&["GETEX", "nokey", "EX", "0"]), Value::Null);
    // EXAT in the past: replies the value and deletes the key.
    assert_eq!(c.cmd(&["GETEX", "k", "EXAT", "1"]), Value::bulk("v"));
    assert_eq!(c.cmd(&["EXISTS", "k"]), Value::Int(0));
}

#[test]
fn append_strlen_ranges() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["APPEND", "s", "Hel"]), Value::Int(3));
    assert_eq!(c.cmd(&["APPEND", "s", "lo"]), Value::Int(5));
    assert_eq!(c.cmd(&["STRLEN", "s"]), Value::Int(5));
    assert_eq!(c.cmd(&["STRLEN", "nope"]), Value::Int(0));
    assert_eq!(c.cmd(&["GETRANGE", "s", "0", "-1"]), Value::bulk("Hello"));
    assert_eq!(c.cmd(&["GETRANGE", "s", "-1", "-5"]), Value::bulk(""));
    assert_eq!(c.cmd(&["GETRANGE", "s", "3", "100"]), Value::bulk("lo"));
    assert_eq!(c.cmd(&["GETRANGE", "s", "-100", "-99"]), Value::bulk("H"));
    assert_eq!(c.cmd(&["GETRANGE", "nope", "0", "-1"]), Value::bulk(""));
    assert_eq!(c.cmd(&["SUBSTR", "s", "0", "1"]), Value::bulk("He"));
    assert_eq!(
        c.cmd(&["GETRANGE", "s", "x", "1"]),
        Value::err("ERR value is not an integer or out of range")
    );
    assert_eq!(
        c.cmd(&["SETRANGE", "s", "-1", "a"]),
        Value::err("ERR offset is out of range")
    );
    assert_eq!(
        c.cmd(&["SETRANGE", "s", "536870912", "a"]),
        Value::err("ERR string exceeds maximum allowed size (proto-max-bulk-len)")
    );
    assert_eq!(c.cmd(&["SETRANGE", "nk", "0", ""]), Value::Int(0));
    assert_eq!(c.cmd(&["EXISTS", "nk"]), Value::Int(0));
    assert_eq!(c.cmd(&["SETRANGE", "nk", "2", "ab"]), Value::Int(4));
    assert_eq!(c.cmd(&["GET", "nk"]), Value::Bulk(b"\x00\x00ab".to_vec()));
    assert_eq!(c.cmd(&["SETRANGE", "s", "1", "ipp"]), Value::Int(5));
    assert_eq!(c.cmd(&["GET", "s"]), Value::bulk("Hippo"));
    assert_eq!(c.cmd(&["SETRANGE", "s", "3", ""]), Value::Int(5));
    // Beyond the engine's maximum item size: refused before allocating.
    let reply = c.cmd(&["SETRANGE", "s", "104857600", "x"]);
    assert!(
        reply
            .text()
            .starts_with("ERR string exceeds maximum allowed size"),
        "{reply:?}"
    );
}

#[test]
fn incr_family() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["INCR", "n"]), Value::Int(1));
    assert_eq!(c.cmd(&["INCRBY", "n", "10"]), Value::Int(11));
    assert_eq!(c.cmd(&["DECR", "n"]), Value::Int(10));
    assert_eq!(c.cmd(&["DECRBY", "n", "-5"]), Value::Int(15));
    assert_eq!(c.cmd(&["GET", "n"]), Value::bulk("15"));
    let not_int = Value::err("ERR value is not an integer or out of range");
    assert_eq!(c.cmd(&["INCRBY", "n", "x"]), not_int);
    assert_eq!(c.cmd(&["INCRBY", "n", "1.5"]), not_int);
    assert_eq!(c.cmd(&["SET", "s", "abc"]), Value::ok());
    assert_eq!(c.cmd(&["INCR", "s"]), not_int);
    assert_eq!(c.cmd(&["SET", "s", " 1"]), Value::ok());
    assert_eq!(c.cmd(&["INCR", "s"]), not_int);
    assert_eq!(c.cmd(&["SET", "m", "9223372036854775807"]), Value::ok());
    assert_eq!(
        c.cmd(&["INCR", "m"]),
        Value::err("ERR increment or decrement would overflow")
    );
    assert_eq!(
        c.cmd(&["DECRBY", "m", "-9223372036854775808"]),
        Value::err("ERR decrement would overflow")
    );
    // INCR keeps the expiry.
    assert_eq!(c.cmd(&["SETEX", "t", "100", "5"]), Value::ok());
    assert_eq!(c.cmd(&["INCR", "t"]), Value::Int(6));
    assert_eq!(c.cmd(&["TTL", "t"]), Value::Int(100));
}

#[test]
fn incrbyfloat() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["SET", "f", "10.50"]), Value::ok());
    assert_eq!(c.cmd(&["INCRBYFLOAT", "f", "0.1"]), Value::bulk("10.6"));
    assert_eq!(c.cmd(&["INCRBYFLOAT", "f", "-5"]), Value::bulk("5.6"));
    assert_eq!(c.cmd(&["SET", "g", "5.0e3"]), Value::ok());
    assert_eq!(c.cmd(&["INCRBYFLOAT", "g", "2.0e2"]), Value::bulk("5200"));
    assert_eq!(c.cmd(&["GET", "g"]), Value::bulk("5200"));
    assert_eq!(
        c.cmd(&["INCRBYFLOAT", "new", "1e20"]),
        Value::bulk("100000000000000000000")
    );
    assert_eq!(
        c.cmd(&["INCRBYFLOAT", "f", "abc"]),
        Value::err("ERR value is not a valid float")
    );
    assert_eq!(
        c.cmd(&["INCRBYFLOAT", "f", "inf"]),
        Value::err("ERR increment would produce NaN or Infinity")
    );
    assert_eq!(c.cmd(&["SET", "s", " 1"]), Value::ok());
    assert_eq!(
        c.cmd(&["INCRBYFLOAT", "s", "1"]),
        Value::err("ERR value is not a valid float")
    );
}
