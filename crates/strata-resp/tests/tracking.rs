//! `CLIENT TRACKING` (client-side caching) compared with a real Redis:
//! the option checks and `CLIENT TRACKINGINFO`, then what a tracking
//! client hears (RESP3 pushes; RESP2 messages on `__redis__:invalidate`
//! through a redirect) in default mode, `OPTIN`, `BCAST` with prefixes,
//! `NOLOOP`, and after a flush. Then what only Strata has: a change made
//! below the RESP port (the memcached port's path) invalidates too.

use crate::common::peer::{require_redis, PeerRedis};
use crate::common::{self, Client, Server, Value};

/// Option checks in Redis's order, and what each leaves in force.
const OPTIONS: &[&str] = &[
    "CLIENT TRACKING ON",
    "CLIENT GETREDIR",
    "CLIENT TRACKINGINFO",
    "CLIENT TRACKING ON BCAST",
    "CLIENT TRACKING OFF",
    "CLIENT GETREDIR",
    "CLIENT TRACKING ON PREFIX a",
    "CLIENT TRACKING ON REDIRECT 999999",
    "CLIENT TRACKING ON REDIRECT x",
    "CLIENT TRACKING ON OPTIN OPTOUT",
    "CLIENT TRACKING ON BCAST OPTIN",
    "CLIENT TRACKING ON BCAST PREFIX foo PREFIX foob",
    "CLIENT TRACKING MAYBE",
    "CLIENT TRACKING ON BOGUS",
    "CLIENT CACHING YES",
    "CLIENT TRACKING ON OPTIN",
    "CLIENT CACHING NO",
    "CLIENT CACHING YES",
    "CLIENT CACHING X",
    "CLIENT TRACKINGINFO",
    "CLIENT TRACKING ON OPTOUT",
    "CLIENT TRACKING OFF",
    "CLIENT TRACKING ON OPTOUT",
    "CLIENT CACHING YES",
    "CLIENT CACHING NO",
    "CLIENT TRACKINGINFO",
    "CLIENT TRACKING OFF",
    "CLIENT TRACKING ON BCAST PREFIX a PREFIX b NOLOOP",
    "CLIENT TRACKINGINFO",
    "CLIENT TRACKING ON BCAST PREFIX c",
    "CLIENT TRACKING ON BCAST PREFIX ab",
    "CLIENT TRACKINGINFO",
    "CLIENT TRACKING OFF",
    "CLIENT TRACKINGINFO",
    "CONFIG GET tracking-table-max-keys",
    "CONFIG SET tracking-table-max-keys -1",
    "CONFIG SET tracking-table-max-keys x",
];

#[test]
fn options_and_info_match_redis() {
    let peer = require_redis();
    let server = common::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    for resp in ["2", "3"] {
        for c in [&mut redis, &mut strata] {
            c.cmd(&["HELLO", resp]);
        }
        for case in OPTIONS {
            let words: Vec<&str> = case.split(' ').collect();
            let want = redis.cmd(&words);
            assert_eq!(strata.cmd(&words), want, "`{case}` in RESP{resp}");
        }
    }
}

/// What the tracking client `a` (and `r`, its redirect, when given) hear
/// while `b` changes keys: everything received before a PING's reply.
pub(crate) fn drain(c: &mut Client) -> Vec<Value> {
    c.send(&[b"PING"]);
    let mut heard = Vec::new();
    loop {
        match c.read() {
            Value::Simple(s) if s == "PONG" => return heard,
            Value::Array(v) if v.first() == Some(&Value::bulk("pong")) => return heard,
            other => heard.push(other),
        }
    }
}

pub(crate) fn id(c: &mut Client) -> String {
    match c.cmd(&["CLIENT", "ID"]) {
        Value::Int(n) => n.to_string(),
        other => panic!("{other:?}"),
    }
}

/// One scenario on one server: returns what the tracking side heard.
fn scenario(mut connect: impl FnMut() -> Client) -> Vec<Vec<Value>> {
    let mut a = connect();
    let mut b = connect();
    let mut heard = Vec::new();
    let run = |c: &mut Client, words: &str| {
        let words: Vec<&str> = words.split(' ').collect();
        c.cmd(&words);
    };
    run(&mut b, "FLUSHALL");
    // Default mode, RESP3: a read key is invalidated once.
    run(&mut a, "HELLO 3");
    run(&mut a, "CLIENT TRACKING ON");
    run(&mut b, "SET k1 v");
    run(&mut a, "GET k1");
    run(&mut a, "MGET k2 k3");
    run(&mut b, "SET k1 w");
    run(&mut b, "SET k1 x");
    run(&mut b, "DEL k2");
    run(&mut b, "SET unread 1");
    heard.push(drain(&mut a));
    // Its own change reaches it too, unless NOLOOP.
    run(&mut a, "GET k1");
    run(&mut a, "SET k1 mine");
    heard.push(drain(&mut a));
    run(&mut a, "CLIENT TRACKING ON NOLOOP");
    run(&mut a, "GET k1");
    run(&mut a, "SET k1 again");
    heard.push(drain(&mut a));
    run(&mut a, "CLIENT TRACKING OFF");
    // OPTIN: only reads after CACHING YES.
    run(&mut a, "CLIENT TRACKING ON OPTIN");
    run(&mut a, "GET o1");
    run(&mut a, "CLIENT CACHING YES");
    run(&mut a, "GET o2");
    run(&mut b, "MSET o1 1 o2 2");
    heard.push(drain(&mut a));
    run(&mut a, "CLIENT TRACKING OFF");
    // BCAST with a prefix.
    run(&mut a, "CLIENT TRACKING ON BCAST PREFIX user:");
    run(&mut b, "SET user:1 a");
    run(&mut b, "SET order:1 a");
    run(&mut b, "HSET user:2 f v");
    heard.push(drain(&mut a));
    // A flush: one invalidation with no keys.
    run(&mut b, "FLUSHALL");
    heard.push(drain(&mut a));
    run(&mut a, "CLIENT TRACKING OFF");
    // RESP2 through a redirect subscribed to __redis__:invalidate.
    let mut r = connect();
    let r_id = id(&mut r);
    run(&mut r, "SUBSCRIBE __redis__:invalidate");
    run(&mut a, "HELLO 2");
    run(&mut a, &format!("CLIENT TRACKING ON REDIRECT {r_id}"));
    run(&mut a, "GET rk");
    run(&mut b, "SET rk 1");
    // The subscriber answers PING in RESP2 subscribed mode with ["pong", ""].
    heard.push(drain(&mut r));
    heard.push(drain(&mut a));
    heard
}

#[test]
fn invalidations_match_redis() {
    let peer: PeerRedis = require_redis();
    let server: Server = common::start();
    let want = scenario(|| peer.client());
    let got = scenario(|| Client::connect(&server));
    assert_eq!(got, want);
    // The scenario heard something in every step it checks.
    assert!(
        want.iter().filter(|h| !h.is_empty()).count() >= 6,
        "{want:?}"
    );
}

#[test]
fn changes_below_the_resp_port_invalidate() {
    let server = common::start();
    let mut a = Client::connect(&server);
    a.cmd(&["HELLO", "3"]);
    assert_eq!(a.cmd(&["CLIENT", "TRACKING", "ON"]), Value::ok());
    assert_eq!(a.cmd(&["GET", "mc"]), Value::Null);
    // As a memcached `set` does: straight into the keyspace.
    use strata_kv::Store;
    let item = strata_kv::NewItem {
        value: b"from memcached"[..].into(),
        flags: 0,
        expires_at: None,
    };
    server.keyspace.store().set(b"mc", item).unwrap();
    let push = Value::Push(vec![
        Value::bulk("invalidate"),
        Value::Array(vec![Value::bulk("mc")]),
    ]);
    assert_eq!(drain(&mut a), vec![push]);
}

#[test]
fn the_table_stays_within_tracking_table_max_keys() {
    let server = common::start();
    let mut a = Client::connect(&server);
    let mut admin = Client::connect(&server);
    assert_eq!(
        admin.cmd(&["CONFIG", "SET", "tracking-table-max-keys", "2"]),
        Value::ok()
    );
    a.cmd(&["HELLO", "3"]);
    a.cmd(&["CLIENT", "TRACKING", "ON"]);
    a.cmd(&["GET", "k1"]);
    a.cmd(&["GET", "k2"]);
    a.cmd(&["GET", "k3"]);
    // The oldest remembered key is invalidated to make room (Redis evicts
    // one in the background; here at once).
    let push = |key: &str| {
        Value::Push(vec![
            Value::bulk("invalidate"),
            Value::Array(vec![Value::bulk(key)]),
        ])
    };
    assert_eq!(drain(&mut a), vec![push("k1")]);
    let info = admin.cmd(&["INFO", "stats"]).text();
    assert!(info.contains("tracking_total_keys:2\r\n"), "{info}");
    let clients = admin.cmd(&["INFO", "clients"]).text();
    assert!(clients.contains("tracking_clients:1\r\n"), "{clients}");
    let list = admin.cmd(&["CLIENT", "LIST"]).text();
    assert!(
        list.contains("flags=t ") && list.contains("redir=0"),
        "{list}"
    );
}

#[test]
fn an_expired_key_is_invalidated_when_a_read_finds_it() {
    let server = common::start();
    let mut a = Client::connect(&server);
    let mut b = Client::connect(&server);
    a.cmd(&["HELLO", "3"]);
    a.cmd(&["CLIENT", "TRACKING", "ON"]);
    assert_eq!(b.cmd(&["SET", "ttl", "v", "PX", "1000"]), Value::ok());
    assert_eq!(a.cmd(&["GET", "ttl"]), Value::bulk("v"));
    server.clock.advance_ms(2_000);
    // Another client's read finds it expired and removes it, as Redis does.
    assert_eq!(b.cmd(&["GET", "ttl"]), Value::Null);
    let push = Value::Push(vec![
        Value::bulk("invalidate"),
        Value::Array(vec![Value::bulk("ttl")]),
    ]);
    assert_eq!(drain(&mut a), vec![push]);
}
