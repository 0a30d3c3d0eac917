//! RESP3 inside scripts, against what Redis 7.0.15 sent for the same
//! scripts to RESP2 and RESP3 callers: `redis.setresp(3)` makes
//! `redis.call` hand the script RESP3's typed replies, and a script's
//! typed tables (`double`, `map`, `set`, `big_number`, `verbatim_string`)
//! become those replies (their RESP2 forms for a RESP2 caller).

use crate::common;
use crate::scripting::eval;

use common::{bulks, start, Client, Value};

fn clients(server: &common::Server) -> (Client, Client) {
    let resp2 = Client::connect(server);
    let mut resp3 = Client::connect(server);
    resp3.cmd(&["HELLO", "3"]);
    (resp2, resp3)
}

/// Each script's reply to a RESP2 and to a RESP3 caller.
fn expect<const N: usize>(two: &mut Client, three: &mut Client, cases: [(&str, Value, Value); N]) {
    for (script, for_two, for_three) in cases {
        assert_eq!(eval(two, script, &[], &[]), for_two, "{script} (RESP2)");
        assert_eq!(eval(three, script, &[], &[]), for_three, "{script} (RESP3)");
    }
}

#[test]
fn typed_tables_become_typed_replies() {
    let server = start();
    let (mut two, mut three) = clients(&server);
    let cases: [(&str, Value, Value); 6] = [
        (
            "return {double = 1.5}",
            Value::bulk("1.5"),
            Value::Double("1.5".into()),
        ),
        (
            "return {map = {a = 1}}",
            Value::Array(vec![Value::bulk("a"), Value::Int(1)]),
            Value::Map(vec![(Value::bulk("a"), Value::Int(1))]),
        ),
        (
            "return {set = {a = true}}",
            bulks(&["a"]),
            Value::Set(vec![Value::bulk("a")]),
        ),
        (
            "return {big_number = '123'}",
            Value::bulk("123"),
            Value::BigNumber("123".into()),
        ),
        (
            "return {verbatim_string = {format = 'txt', string = 'hi'}}",
            Value::bulk("hi"),
            Value::Verbatim("txt".into(), b"hi".to_vec()),
        ),
        (
            "return {true, false, 1}",
            Value::Array(vec![Value::Int(1), Value::Null, Value::Int(1)]),
            Value::Array(vec![Value::Int(1), Value::Null, Value::Int(1)]),
        ),
    ];
    expect(&mut two, &mut three, cases);
}

#[test]
fn setresp_3_hands_the_script_typed_replies() {
    let server = start();
    let (mut two, mut three) = clients(&server);
    two.cmd(&["HSET", "h", "f", "v"]);
    two.cmd(&["ZADD", "z", "1.5", "m"]);
    two.cmd(&["SADD", "s", "a"]);
    let cases: [(&str, Value, Value); 6] = [
        (
            "redis.setresp(3) return redis.call('hgetall', 'h')",
            bulks(&["f", "v"]),
            Value::Map(vec![(Value::bulk("f"), Value::bulk("v"))]),
        ),
        (
            "redis.setresp(3) local r = redis.call('hgetall', 'h') return {type(r.map), r.map.f}",
            bulks(&["table", "v"]),
            bulks(&["table", "v"]),
        ),
        (
            "redis.setresp(3) return redis.call('zscore', 'z', 'm')",
            Value::bulk("1.5"),
            Value::Double("1.5".into()),
        ),
        (
            "redis.setresp(3) return redis.call('smembers', 's')",
            bulks(&["a"]),
            Value::Set(vec![Value::bulk("a")]),
        ),
        (
            "redis.setresp(3) return {redis.call('get', 'nokey') == nil}",
            Value::Array(vec![Value::Int(1)]),
            Value::Array(vec![Value::Bool(true)]),
        ),
        (
            "redis.setresp(2) return redis.call('zscore', 'z', 'm')",
            Value::bulk("1.5"),
            Value::bulk("1.5"),
        ),
    ];
    expect(&mut two, &mut three, cases);
    let reply = eval(&mut two, "return redis.setresp(4)", &[], &[]);
    assert!(
        reply.text().starts_with("ERR RESP version must be 2 or 3."),
        "{reply:?}"
    );
    let reply = eval(&mut two, "return redis.setresp()", &[], &[]);
    assert!(
        reply
            .text()
            .starts_with("ERR redis.setresp() requires one argument."),
        "{reply:?}"
    );
}
