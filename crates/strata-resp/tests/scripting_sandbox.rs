//! The scripts' sandbox over TCP, against what Redis 7.0.15 answered to
//! the same scripts: nothing a script does to the globals or the library
//! tables reaches the next script, bytecode is refused, and a caught
//! error is a string (the libraries: `scripting_libs.rs`).

use crate::common;
use crate::scripting::eval;

use common::{bulks, start, Client, Value};

pub(crate) fn run(c: &mut Client, script: &str) -> Value {
    eval(c, script, &[], &[])
}

/// The text of a reply, or of the last item of an array reply (what
/// `{pcall(...)}` puts after its `false`).
pub(crate) fn last_text(reply: &Value) -> String {
    match reply {
        Value::Array(items) => items.last().map(Value::text).unwrap_or_default(),
        other => other.text(),
    }
}

/// Each of these scripts tried to change what the next script sees; every
/// attempt fails with Redis's error, and the next script finds all as it was.
#[test]
fn a_script_cannot_change_what_the_next_one_sees() {
    let server = start();
    let mut c = Client::connect(&server);
    for attack in [
        "string.len = nil",
        "_G.tostring = nil",
        "rawset(_G, 'tostring', nil)",
        "rawset(string, 'len', nil)",
        "getmetatable('').__index = {}",
        "redis.sha1hex = nil",
        "cjson.encode = nil",
        "setmetatable(_G, {})",
        "table.insert(string, 'x')",
        "KEYS = 1",
    ] {
        let reply = run(&mut c, &format!("{attack} return 'changed'"));
        assert!(
            reply.text().contains("Attempt to modify a readonly table"),
            "{attack}: {reply:?}"
        );
    }
    let caught = run(&mut c, "return {pcall(rawset, _G, 'x', 1)}");
    assert_eq!(
        caught,
        Value::Array(vec![
            Value::Null,
            Value::bulk("Attempt to modify a readonly table")
        ])
    );
    assert_eq!(
        run(
            &mut c,
            "return {tostring(1), string.len('abc'), ('x'):upper(), redis.sha1hex('')}"
        ),
        Value::Array(vec![
            Value::bulk("1"),
            Value::Int(3),
            Value::bulk("X"),
            Value::bulk("da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        ])
    );
    // Reading through the read-only tables still works as on plain tables.
    assert_eq!(
        run(&mut c, "local n = 0 for _ in pairs(bit) do n = n + 1 end return {n, tostring(rawget(_G, 'string') == string), tostring(next(cjson) ~= nil)}"),
        Value::Array(vec![Value::Int(12), Value::bulk("true"), Value::bulk("true")])
    );
    for gone in [
        "getfenv", "setfenv", "newproxy", "print", "dofile", "require",
    ] {
        let reply = run(&mut c, &format!("return type({gone})"));
        assert!(
            reply.text().contains("nonexistent global variable"),
            "{gone}: {reply:?}"
        );
    }
}

/// Lua bytecode can read and write the server's memory: `EVAL`,
/// `loadstring` and `load` take text only (Redis patches its Lua so).
#[test]
fn bytecode_is_refused() {
    let server = start();
    let mut c = Client::connect(&server);
    let Value::Bulk(dump) = run(&mut c, "return string.dump(function() return 42 end)") else {
        panic!("string.dump answers a string");
    };
    assert_eq!(dump.first(), Some(&27), "a binary chunk starts with ESC");
    let reply = c.cmd_bytes(&[b"EVAL", &dump, b"0"]);
    assert!(
        reply.text().starts_with("ERR Error compiling script"),
        "{reply:?}"
    );
    assert_eq!(
        run(
            &mut c,
            "return {loadstring(string.dump(function() return 1 end))}"
        ),
        Value::Array(vec![])
    );
    assert_eq!(
        run(&mut c, "return loadstring('return 1 + 1')()"),
        Value::Int(2)
    );
    assert_eq!(
        eval(&mut c, "return loadstring('return KEYS[1]')()", &["k"], &[]),
        Value::bulk("k")
    );
    // `load` takes a reader function only; its chunks are sandboxed too.
    let reply = run(&mut c, "return {pcall(load, 'x = 5')}");
    assert!(last_text(&reply).contains("function expected"), "{reply:?}");
    let reply = run(
        &mut c,
        "local parts = {'x = ', '5'} local i = 0 return {pcall(load(function() i = i + 1 return parts[i] end))}",
    );
    assert!(
        last_text(&reply).contains("Attempt to modify a readonly table"),
        "{reply:?}"
    );
    let reply = run(&mut c, "return {pcall(loadstring('x = 5'))}");
    assert!(
        last_text(&reply).contains("Attempt to modify a readonly table"),
        "{reply:?}"
    );
}

/// `pcall` hands a script the error of `redis.call` and of the libraries
/// as a string (Redis's idiom: `redis.error_reply(err)`).
#[test]
fn caught_errors_are_strings() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "str", "abc"]);
    assert_eq!(
        run(
            &mut c,
            "local ok, e = pcall(redis.call, 'incr', 'str') return {type(e), e}"
        ),
        bulks(&["string", "ERR value is not an integer or out of range"])
    );
    assert_eq!(
        run(
            &mut c,
            "local ok, e = pcall(redis.call, 'incr', 'str') return redis.error_reply(e)"
        ),
        Value::err("ERR value is not an integer or out of range")
    );
    assert_eq!(
        run(&mut c, "local ok, e = pcall(cjson.encode, 0/0) return e"),
        Value::bulk("Cannot serialise number: must not be NaN or Inf")
    );
    assert_eq!(
        run(
            &mut c,
            "return {xpcall(function() bit.band('x') end, function(e) return type(e) end)}"
        ),
        Value::Array(vec![Value::Null, Value::bulk("string")])
    );
    assert_eq!(
        run(
            &mut c,
            "return {xpcall(function() error({x = 1}) end, function(e) return type(e) end)}"
        ),
        Value::Array(vec![Value::Null, Value::bulk("table")])
    );
    let reply = run(&mut c, "return cjson.encode({[1] = 1, [12] = 2})");
    assert!(
        reply.text().starts_with(
            "ERR user_script:1: Cannot serialise table: excessively sparse array script: "
        ),
        "{reply:?}"
    );
}
