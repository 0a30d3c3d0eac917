//! `EVAL` scripts with a Redis 7 shebang (`#!lua flags=...`), against what
//! Redis 7.0.15 answered: the flags decide read-only runs and `_RO`
//! refusals, line numbers stay the script's, and bad shebangs are refused
//! (and not cached).

use crate::common;
use crate::scripting::eval;

use common::{start, Client, Value};

fn starts_with(reply: &Value, prefix: &str) -> bool {
    matches!(reply, Value::Error(text) if text.starts_with(prefix))
}

#[test]
fn shebang_flags_decide_how_a_script_runs() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "x", "1"]);
    assert_eq!(
        eval(
            &mut c,
            "#!lua flags=no-writes\nreturn redis.call('get', 'x')",
            &[],
            &[]
        ),
        Value::bulk("1")
    );
    let reply = eval(
        &mut c,
        "#!lua flags=no-writes\nreturn redis.call('set', 'x', 2)",
        &[],
        &[],
    );
    assert!(
        starts_with(
            &reply,
            "ERR Write commands are not allowed from read-only scripts. script: "
        ),
        "{reply:?}"
    );
    assert_eq!(
        eval(&mut c, "#!lua\nreturn redis.call('set', 'x', 3)", &[], &[]),
        Value::ok()
    );
    let reply = eval(&mut c, "#!lua\nerror('x')", &[], &[]);
    assert!(
        starts_with(&reply, "ERR user_script:2: x script: "),
        "{reply:?}"
    );
    assert!(
        matches!(&reply, Value::Error(t) if t.ends_with("on @user_script:2.")),
        "{reply:?}"
    );
    assert_eq!(
        c.cmd(&["EVAL_RO", "#!lua\nreturn 1", "0"]),
        Value::err("ERR Can not execute a script with write flag using *_ro command.")
    );
    assert_eq!(
        c.cmd(&["EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"]),
        Value::Int(1)
    );
    assert_eq!(
        eval(
            &mut c,
            "#!lua flags=allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 2",
            &[],
            &[]
        ),
        Value::Int(2)
    );
    let Value::Bulk(sha) = c.cmd(&["SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 1"]) else {
        panic!("SCRIPT LOAD answers the sha");
    };
    assert_eq!(c.cmd_bytes(&[b"EVALSHA_RO", &sha, b"0"]), Value::Int(1));
}

#[test]
fn bad_shebangs_are_refused_and_not_cached() {
    let server = start();
    let mut c = Client::connect(&server);
    for (body, error) in [
        ("#!lua", "ERR Invalid script shebang"),
        (
            "#!python\nreturn 1",
            "ERR Unexpected engine in script shebang: #!python",
        ),
        (
            "#!lua name=x\nreturn 1",
            "ERR Unknown lua shebang option: name=x",
        ),
        (
            "#!lua flags=bogus\nreturn 1",
            "ERR Unexpected flag in script shebang: bogus",
        ),
    ] {
        assert_eq!(eval(&mut c, body, &[], &[]), Value::err(error), "{body}");
        assert_eq!(
            c.cmd(&["SCRIPT", "LOAD", body]),
            Value::err(error),
            "{body}"
        );
    }
    let Value::Array(exists) =
        c.cmd(&["SCRIPT", "EXISTS", &sha1_of("#!lua flags=bogus\nreturn 1")])
    else {
        panic!("SCRIPT EXISTS answers an array");
    };
    assert_eq!(exists, vec![Value::Int(0)]);
}

fn sha1_of(body: &str) -> String {
    strata_resp::scripting::sha1_hex(body.as_bytes())
}
