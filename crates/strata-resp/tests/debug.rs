//! `DEBUG` against a real Redis 7.0: refused by default as Redis refuses
//! it, and with `enable-debug-command` on, the same replies for the same
//! commands, among them the dataset and value digests of every type and
//! encoding (so a digest proves two servers hold the same data), the
//! RESP3 test replies, `POPULATE`'s keys and the errors; `SLEEP` holds
//! other connections.

use std::time::{Duration, Instant};

use strata_resp::protected::Protected;

use crate::common;

use common::peer::{replies_match_redis, same_replies, spawn_redis_with};
use common::{Client, Value};

fn words(cases: &[&str]) -> Vec<Vec<String>> {
    cases
        .iter()
        .map(|c| c.split(' ').map(str::to_owned).collect())
        .collect()
}

#[test]
fn refused_unless_enabled_as_in_redis() {
    replies_match_redis(&words(&[
        "DEBUG OBJECT foo",
        "DEBUG DIGEST",
        "CONFIG GET enable-debug-command",
        "CONFIG SET enable-debug-command yes",
        "COMMAND INFO debug",
    ]));
}

/// Data of every type and encoding Redis 7.0 has, some with a TTL.
fn dataset() -> Vec<Vec<String>> {
    let mut cases = words(&[
        "SET s hello",
        "SET n 12345",
        "SET neg -7",
        "SET ttl v EX 1000",
        "RPUSH l a b c 1 2",
        "SADD si 1 2 3 100",
        "SADD sl a b c",
        "ZADD zl 1 a 2.5 b -inf c 10 11",
        "HSET hl f1 v1 f2 2",
        "XADD x 1-1 a 1 b 2",
        "XADD x 2-0 c 3",
        "HSET httl f v",
        "EXPIRE httl 500",
    ]);
    // Past the packed limits: hashtable, skiplist, quicklist encodings.
    let mut big_set = vec!["SADD".to_string(), "sb".to_string()];
    let mut big_zset = vec!["ZADD".to_string(), "zb".to_string()];
    let mut big_hash = vec!["HSET".to_string(), "hb".to_string()];
    let mut big_list = vec!["RPUSH".to_string(), "lb".to_string()];
    for i in 0..300 {
        big_set.push(format!("m{i}"));
        big_zset.extend([format!("{}.25", i % 37), format!("m{i}")]);
        big_hash.extend([format!("f{i}"), format!("v{i}")]);
        big_list.push(format!("e{i}"));
    }
    cases.extend([big_set, big_zset, big_hash, big_list]);
    cases
}

#[test]
fn enabled_replies_and_digests_match_redis() {
    let Some(peer) = spawn_redis_with(&["--enable-debug-command", "yes"]) else {
        panic!("redis-server is needed for this comparison (scripts/test installs it)");
    };
    let server = common::start_debug(Protected::Yes);
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    for c in [&mut redis, &mut strata] {
        for case in dataset() {
            let words: Vec<&str> = case.iter().map(String::as_str).collect();
            c.cmd(&words);
        }
    }
    let mut cases = words(&[
        "DEBUG DIGEST",
        "DEBUG DIGEST-VALUE s n neg ttl l si sl zl hl x httl nokey",
        "DEBUG DIGEST-VALUE sb zb hb lb",
        "DEBUG DIGEST-VALUE",
        "DEBUG PROTOCOL string",
        "DEBUG PROTOCOL integer",
        "DEBUG PROTOCOL double",
        "DEBUG PROTOCOL bignum",
        "DEBUG PROTOCOL null",
        "DEBUG PROTOCOL array",
        "DEBUG PROTOCOL set",
        "DEBUG PROTOCOL map",
        "DEBUG PROTOCOL true",
        "DEBUG PROTOCOL FALSE",
        "DEBUG PROTOCOL verbatim",
        "DEBUG PROTOCOL nosuch",
        "DEBUG ERROR oops",
        "DEBUG ERROR WRONGTYPE made up",
        "DEBUG OBJECT nokey",
        "DEBUG OBJECT",
        "DEBUG OBJECT a b",
        "DEBUG nosuch",
        "DEBUG SLEEP 0",
        "DEBUG SLEEP abc",
        "DEBUG SET-ACTIVE-EXPIRE 0",
        "DEBUG SET-ACTIVE-EXPIRE 1",
        "DEBUG LOG hello",
        "DEBUG POPULATE -1",
        "DEBUG POPULATE abc",
        "DEBUG POPULATE 3 p -5",
        "DEBUG POPULATE 100",
        "DEBUG POPULATE 10 pre 3",
        "DEBUG POPULATE 10 pad 20",
        "SET key:5 kept",
        "DEBUG POPULATE 10",
        "MGET key:0 key:5 key:99 pre:7 pad:7",
        "DEBUG DIGEST",
        "FLUSHALL",
        "DEBUG DIGEST",
    ]);
    cases.retain(|c| !c.is_empty());
    same_replies(&mut redis, &mut strata, &cases);
    // Attributes and pushes, which the test client reads as replies of
    // their own: compared as raw bytes.
    for name in ["attrib", "push"] {
        for c in [&mut redis, &mut strata] {
            c.send(&[b"DEBUG", b"PROTOCOL", name.as_bytes()]);
        }
        let want = (redis.read(), redis.read());
        let got = (strata.read(), strata.read());
        assert_eq!(got, want, "DEBUG PROTOCOL {name} in RESP3");
    }
}

#[test]
fn object_describes_the_value_as_redis_does() {
    let server = common::start_debug(Protected::Local);
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "s", "bar"]);
    c.cmd(&["RPUSH", "l", "a", "b"]);
    let line = c.cmd(&["DEBUG", "OBJECT", "s"]).text();
    let fields: Vec<&str> = line.split(' ').collect();
    assert_eq!(fields[0..2], ["Value", "at:0x0"], "{line}");
    assert_eq!(
        fields[2..5],
        ["refcount:1", "encoding:embstr", "serializedlength:4"]
    );
    assert!(
        fields[5].starts_with("lru:") && fields[6] == "lru_seconds_idle:0",
        "{line}"
    );
    let line = c.cmd(&["DEBUG", "OBJECT", "l"]).text();
    assert!(line.contains(" encoding:listpack "), "{line}");
    // What would crash Redis is refused: no request takes Strata down.
    for crash in [
        "SEGFAULT",
        "PANIC",
        "ASSERT",
        "OOM",
        "RESTART",
        "CRASH-AND-RECOVER",
    ] {
        let reply = c.cmd(&["DEBUG", crash]);
        let want = format!(
            "ERR unknown subcommand or wrong number of arguments for '{crash}'. Try DEBUG HELP."
        );
        assert_eq!(reply, Value::err(&want));
    }
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
}

#[test]
fn sleep_holds_other_connections() {
    let server = common::start_debug(Protected::Yes);
    let mut sleeper = Client::connect(&server);
    let mut other = Client::connect(&server);
    let started = Instant::now();
    sleeper.send(&[b"DEBUG", b"SLEEP", b"0.5"]);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(other.cmd(&["SET", "k", "v"]), Value::ok());
    let waited = started.elapsed();
    assert_eq!(sleeper.read(), Value::ok());
    assert!(
        waited >= Duration::from_millis(450),
        "SET ran during the sleep: {waited:?}"
    );
}
