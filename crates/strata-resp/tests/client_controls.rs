//! `CLIENT UNBLOCK`, `CLIENT REPLY`, `CLIENT PAUSE` and `CLIENT UNPAUSE`:
//! their refusals compared with a real Redis, and what they do to other
//! connections (a blocked `BLPOP`, `BZMPOP`, `XREAD`; paused writes and
//! reads) and to the caller's own replies.

use std::time::{Duration, Instant};

use crate::common::peer::require_redis;
use crate::common::{self, Client, Value};

const REFUSALS: &[&str] = &[
    "CLIENT UNBLOCK",
    "CLIENT UNBLOCK x",
    "CLIENT UNBLOCK 99999",
    "CLIENT UNBLOCK -5",
    "CLIENT UNBLOCK 99999 foo",
    "CLIENT UNBLOCK 99999 error",
    "CLIENT UNBLOCK 1 timeout x",
    "CLIENT PAUSE",
    "CLIENT PAUSE x",
    "CLIENT PAUSE -1",
    "CLIENT PAUSE 10 foo",
    "CLIENT PAUSE 10 all x",
    "CLIENT PAUSE 0",
    "CLIENT UNPAUSE x",
    "CLIENT UNPAUSE",
    "CLIENT REPLY",
    "CLIENT REPLY foo",
    "CLIENT REPLY on x",
    "CLIENT REPLY ON",
    "COMMAND INFO client|unblock client|pause client|unpause client|reply",
];

#[test]
fn refusals_match_redis() {
    let peer = require_redis();
    let server = common::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    for case in REFUSALS {
        let words: Vec<&str> = case.split(' ').collect();
        let want = redis.cmd(&words);
        assert_eq!(strata.cmd(&words), want, "`{case}`");
    }
}

fn id(c: &mut Client) -> String {
    match c.cmd(&["CLIENT", "ID"]) {
        Value::Int(id) => id.to_string(),
        other => panic!("CLIENT ID: {other:?}"),
    }
}

#[test]
fn unblock_ends_a_wait_as_a_timeout_or_an_error() {
    let server = common::start();
    let mut admin = Client::connect(&server);
    let mut blocked = Client::connect(&server);
    let who = id(&mut blocked);
    assert_eq!(
        admin.cmd(&["CLIENT", "UNBLOCK", &who]),
        Value::Int(0),
        "not blocked yet"
    );
    let cases: [(&[&[u8]], Value); 4] = [
        (&[b"BLPOP", b"q", b"0"], Value::NullArray),
        (&[b"BZMPOP", b"0", b"1", b"z", b"MIN"], Value::NullArray),
        (
            &[b"XREAD", b"BLOCK", b"0", b"STREAMS", b"s", b"$"],
            Value::NullArray,
        ),
        (
            &[b"BLMOVE", b"q", b"r", b"LEFT", b"LEFT", b"0"],
            Value::Null,
        ),
    ];
    for (command, timeout_reply) in cases {
        for (how, want) in [
            ("TIMEOUT", timeout_reply.clone()),
            (
                "ERROR",
                Value::err("UNBLOCKED client unblocked via CLIENT UNBLOCK"),
            ),
        ] {
            blocked.send(command);
            let started = Instant::now();
            let mut unblocked = Value::Int(0);
            // The wait registers soon after the request arrives.
            while unblocked == Value::Int(0) && started.elapsed() < Duration::from_secs(5) {
                std::thread::sleep(Duration::from_millis(10));
                unblocked = admin.cmd(&["CLIENT", "UNBLOCK", &who, how]);
            }
            assert_eq!(unblocked, Value::Int(1), "{how}");
            assert_eq!(blocked.read(), want, "{command:?} {how}");
            assert_eq!(
                admin.cmd(&["CLIENT", "UNBLOCK", &who]),
                Value::Int(0),
                "no longer blocked"
            );
        }
    }
    // The connection blocks again afterwards, and a push still serves it.
    blocked.send(&[b"BLPOP", b"q", b"5"]);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(admin.cmd(&["RPUSH", "q", "x"]), Value::Int(1));
    assert_eq!(blocked.read(), common::bulks(&["q", "x"]));
}

#[test]
fn reply_off_and_skip_drop_the_replies_redis_drops() {
    let peer = require_redis();
    let server = common::start();
    let script: &[&[&[u8]]] = &[
        &[b"CLIENT", b"REPLY", b"SKIP"],
        &[b"SET", b"a", b"1"],
        &[b"GET", b"a"],
        &[b"CLIENT", b"REPLY", b"OFF"],
        &[b"GET", b"a"],
        &[b"NOSUCHCOMMAND"],
        &[b"CLIENT", b"REPLY", b"SKIP"],
        &[b"CLIENT", b"REPLY", b"ON"],
        &[b"CLIENT", b"REPLY", b"SKIP"],
        &[b"CLIENT", b"REPLY", b"SKIP"],
        &[b"GET", b"a"],
        &[b"GET", b"a"],
        &[b"PING"],
    ];
    let replies = |c: &mut Client| -> Vec<Value> {
        for command in script {
            c.send(command);
        }
        // Everything sent is answered by now; a marker shows nothing else came.
        let mut got = Vec::new();
        loop {
            let reply = c.read();
            if reply == Value::Simple("PONG".into()) {
                return got;
            }
            got.push(reply);
        }
    };
    let want = replies(&mut peer.client());
    assert_eq!(want, vec![Value::bulk("1"), Value::ok(), Value::bulk("1")]);
    assert_eq!(replies(&mut Client::connect(&server)), want);
}

#[test]
fn pause_holds_writes_or_everything_until_its_end_or_unpause() {
    let server = common::start();
    let mut admin = Client::connect(&server);
    let mut c = Client::connect(&server);
    assert_eq!(c.cmd(&["SET", "k", "v"]), Value::ok());
    // WRITE: reads run, writes wait out the pause.
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "300", "WRITE"]), Value::ok());
    let started = Instant::now();
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("v"));
    assert!(
        started.elapsed() < Duration::from_millis(200),
        "a read is not held"
    );
    assert_eq!(c.cmd(&["EVAL_RO", "return 1", "0"]), Value::Int(1));
    assert_eq!(c.cmd(&["SET", "k", "w"]), Value::ok());
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "a write waits"
    );
    // PUBLISH and EVAL may write; an EXEC that queued a write waits too.
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "200", "WRITE"]), Value::ok());
    let started = Instant::now();
    assert_eq!(c.cmd(&["PUBLISH", "ch", "m"]), Value::Int(0));
    assert!(started.elapsed() >= Duration::from_millis(150));
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["INCR", "n"]), Value::Simple("QUEUED".into()));
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "200", "WRITE"]), Value::ok());
    let started = Instant::now();
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![Value::Int(1)]));
    assert!(started.elapsed() >= Duration::from_millis(150));
    // UNPAUSE from another connection lets a held write run at once.
    assert_eq!(
        admin.cmd(&["CLIENT", "PAUSE", "10000", "WRITE"]),
        Value::ok()
    );
    let started = Instant::now();
    c.send(&[b"SET", b"k", b"x"]);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(admin.cmd(&["CLIENT", "UNPAUSE"]), Value::ok());
    assert_eq!(c.read(), Value::ok());
    assert!(started.elapsed() < Duration::from_secs(5));
    // ALL (the default): every command waits, the pausing client's and
    // even `CLIENT UNPAUSE`, as in Redis.
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "300"]), Value::ok());
    let started = Instant::now();
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
    assert_eq!(admin.cmd(&["CLIENT", "UNPAUSE"]), Value::ok());
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "a read waits under ALL"
    );
}

/// Under a WRITE pause a script declared `no-writes` (shebang or function
/// flag) runs at once, as in Redis 7.0.1; a legacy `EVAL` waits.
#[test]
fn a_pause_lets_scripts_declared_read_only_run() {
    let server = common::start();
    let mut admin = Client::connect(&server);
    let mut c = Client::connect(&server);
    let library = "#!lua name=lib\nredis.register_function{function_name='ro', callback=function() return 7 end, flags={'no-writes'}}";
    assert_eq!(c.cmd(&["FUNCTION", "LOAD", library]), Value::bulk("lib"));
    let Value::Bulk(sha) = c.cmd(&["SCRIPT", "LOAD", "#!lua flags=no-writes\nreturn 2"]) else {
        panic!("SCRIPT LOAD answers the sha");
    };
    assert_eq!(admin.cmd(&["CLIENT", "PAUSE", "400", "WRITE"]), Value::ok());
    let started = Instant::now();
    assert_eq!(
        c.cmd(&["EVAL", "#!lua flags=no-writes\nreturn 1", "0"]),
        Value::Int(1)
    );
    assert_eq!(c.cmd_bytes(&[b"EVALSHA", &sha, b"0"]), Value::Int(2));
    assert_eq!(c.cmd(&["FCALL", "ro", "0"]), Value::Int(7));
    assert!(started.elapsed() < Duration::from_millis(300), "not held");
    assert_eq!(c.cmd(&["EVAL", "return 3", "0"]), Value::Int(3));
    assert!(
        started.elapsed() >= Duration::from_millis(350),
        "a legacy EVAL waits"
    );
}
