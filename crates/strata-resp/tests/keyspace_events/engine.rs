//! Events the engine starts: `expired` (by the background reclaimer, and
//! when a command finds the key expired) and `evicted` (cache mode), each
//! sent once; FLUSHALL announcing nothing per key; the setting's parsing
//! and `CONFIG GET` compared with Redis; writes that do not come through
//! the RESP port (the memcached port's) announcing nothing of their own.

use std::borrow::Cow;

use strata_kv::{NewItem, Store};

use super::{Pair, Side};
use crate::common::peer::require_redis;
use crate::common::{self, Client, Server, Value};
use crate::memory::info_field;

/// A subscriber to every keyspace channel with notifications set to
/// `flags`, in RESP2.
fn side(server: &Server, flags: &str) -> Side {
    Side::new(Client::connect(server), Client::connect(server), flags, "2")
}

/// The (channel, message) pairs of `messages`.
fn pairs(messages: &[Value]) -> Vec<(String, String)> {
    messages
        .iter()
        .map(|m| {
            let parts = super::message_parts(m);
            let text = |i: usize| parts.get(i).map(Value::text).unwrap_or_default();
            (text(2), text(3))
        })
        .collect()
}

fn event(channel: &str, message: &str) -> (String, String) {
    (channel.to_string(), message.to_string())
}

#[test]
fn expired_is_sent_once_in_background_and_on_access() {
    let server = common::start();
    let mut s = side(&server, "KEx");
    for key in ["bg", "lazy", "write"] {
        s.run(&["SET", key, "v", "PX", "100"]);
    }
    server.clock.advance_ms(200);
    // Looked up: expired then (a read), once.
    let (reply, got) = s.run(&["GET", "lazy"]);
    assert_eq!(reply, Value::Null);
    let lazy = vec![
        event("__keyspace@0__:lazy", "expired"),
        event("__keyevent@0__:expired", "lazy"),
    ];
    assert_eq!(pairs(&got), lazy);
    assert_eq!(s.run(&["EXISTS", "lazy"]).1, vec![]);
    // A write finds it expired: `expired` before the write's own events.
    s.cmd
        .cmd(&["CONFIG", "SET", "notify-keyspace-events", "KEA"]);
    let (_, got) = s.run(&["SET", "write", "w"]);
    let write: Vec<_> = ["expired", "set"]
        .iter()
        .flat_map(|e| {
            [
                event("__keyspace@0__:write", e),
                event(&format!("__keyevent@0__:{e}"), "write"),
            ]
        })
        .collect();
    assert_eq!(pairs(&got), write);
    // An expiry already past: stored and expired at once (Redis sends
    // `expired` at the key's next lookup; Strata keeps nothing).
    let (_, got) = s.run(&["SET", "past", "v", "PXAT", "1"]);
    let names: Vec<String> = pairs(&got).into_iter().map(|(c, _)| c).collect();
    let want = ["set", "expire", "expired"].map(|e| format!("__keyevent@0__:{e}"));
    assert!(names
        .iter()
        .filter(|c| c.starts_with("__keyevent"))
        .eq(want.iter()));
    assert_eq!(s.run(&["GET", "past"]).1, vec![]);
    // Never looked up: the background reclaimer expires it, once.
    server.keyspace.run_maintenance();
    let (_, got) = s.run(&["PING"]);
    let bg = vec![
        event("__keyspace@0__:bg", "expired"),
        event("__keyevent@0__:expired", "bg"),
    ];
    assert_eq!(pairs(&got), bg);
    server.keyspace.run_maintenance();
    assert_eq!(s.run(&["GET", "bg"]).1, vec![]);
    // With `x` off, nothing; reads no longer remove what they find.
    s.cmd
        .cmd(&["CONFIG", "SET", "notify-keyspace-events", "KE$"]);
    s.run(&["SET", "quiet", "v", "PX", "100"]);
    server.clock.advance_ms(200);
    assert_eq!(s.run(&["GET", "quiet"]).1, vec![]);
    server.keyspace.run_maintenance();
    assert_eq!(s.run(&["PING"]).1, vec![]);
}

#[test]
fn expired_is_sent_from_transactions_and_scripts() {
    let server = common::start();
    let mut s = side(&server, "Ex");
    for key in ["m", "l", "e"] {
        s.run(&["SET", key, "v", "PX", "100"]);
    }
    s.run(&["RPUSH", "list", "a"]);
    s.run(&["PEXPIRE", "list", "100"]);
    server.clock.advance_ms(200);
    s.cmd.cmd(&["MULTI"]);
    s.cmd.cmd(&["GET", "m"]);
    s.cmd.cmd(&["LRANGE", "list", "0", "-1"]);
    let (_, got) = s.run(&["EXEC"]);
    let keys: Vec<String> = pairs(&got).into_iter().map(|(_, key)| key).collect();
    assert_eq!(keys, ["m", "list"]);
    let (_, got) = s.run(&["EVAL", "return redis.call('EXISTS', KEYS[1])", "1", "l"]);
    assert_eq!(pairs(&got), vec![event("__keyevent@0__:expired", "l")]);
    // Once only: the key is gone.
    let (_, got) = s.run(&["EVAL", "return redis.call('EXISTS', KEYS[1])", "1", "l"]);
    assert_eq!(got, vec![]);
}

/// A write over an expired key: `expired` first, then `new` and the
/// write's events, as Redis sends them (its lookup expires the key).
#[test]
fn writes_over_expired_keys_send_expired_first() {
    let server = common::start();
    let mut s = side(&server, "KEAn");
    s.run(&["RPUSH", "list", "a"]);
    s.run(&["PEXPIRE", "list", "100"]);
    s.run(&["SET", "dst", "v", "PX", "100"]);
    s.run(&["SET", "src", "v"]);
    server.clock.advance_ms(200);
    let events = |got: &[Value]| -> Vec<String> {
        pairs(got)
            .into_iter()
            .filter_map(|(c, k)| Some(format!("{} {k}", c.strip_prefix("__keyevent@0__:")?)))
            .collect()
    };
    let (_, got) = s.run(&["LPUSH", "list", "b"]);
    assert_eq!(events(&got), ["expired list", "new list", "lpush list"]);
    let (_, got) = s.run(&["RENAME", "src", "dst"]);
    let want = ["expired dst", "new dst", "rename_from src", "rename_to dst"];
    assert_eq!(events(&got), want);
}

#[test]
fn evicted_is_sent_for_every_key_evicted() {
    let server = common::start_cache(1 << 20);
    let mut s = side(&server, "Ee");
    let value = "y".repeat(10_000);
    let mut evicted = Vec::new();
    for i in 0..300 {
        let (reply, got) = s.run(&["SET", &format!("key{i}"), &value]);
        assert_eq!(reply, Value::ok());
        evicted.extend(pairs(&got));
    }
    let counted = info_field(&mut s.cmd, "stats", "evicted_keys");
    assert!(counted > 0);
    assert_eq!(evicted.len() as u64, counted);
    for (channel, key) in &evicted {
        assert_eq!(channel, "__keyevent@0__:evicted");
        assert_eq!(s.cmd.cmd(&["EXISTS", key]), Value::Int(0), "{key}");
    }
}

#[test]
fn flushall_and_the_setting_match_redis() {
    let peer = require_redis();
    let server = common::start();
    let mut pair = Pair::new(&peer, &server, "KEA", "3");
    for line in [
        "SET a 1",
        "RPUSH b x",
        "SET c 1 EX 100",
        "FLUSHALL",
        "FLUSHDB",
        "SET d 1",
    ] {
        pair.check(line);
    }
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    for flags in [
        "A",
        "KA",
        "xyz",
        "",
        "K",
        "E",
        "AKE",
        "EKA",
        "KEg$lshzxetd",
        "Elg",
        "Kx",
        "mE",
        "n",
        "AKEn",
        "AKEm",
        "nm",
        "Kz ",
        "kea",
        "KE\u{e9}",
        "$$$",
        "d",
        "gx",
    ] {
        let set = ["CONFIG", "SET", "notify-keyspace-events", flags];
        let get = ["CONFIG", "GET", "notify-keyspace-events"];
        assert_eq!(strata.cmd(&set), redis.cmd(&set), "CONFIG SET {flags:?}");
        assert_eq!(strata.cmd(&get), redis.cmd(&get), "after {flags:?}");
    }
    let set = [
        "CONFIG",
        "SET",
        "notify-keyspace-events",
        "A",
        "notify-keyspace-events",
        "K",
    ];
    let both = (strata.cmd(&set), redis.cmd(&set));
    assert!(
        matches!(both, (Value::Error(_), Value::Error(_))),
        "{both:?}"
    );
}

/// A blocked client served by another's push: the push's events, then
/// the blocked command's, in both servers (the marker is published once
/// the blocked client has its reply).
#[test]
fn blocked_clients_served_by_a_push_match_redis() {
    let peer = require_redis();
    let server = common::start();
    let cases: &[(&str, &str)] = &[
        ("BLPOP q 5", "RPUSH q a"),
        ("BLMOVE q2 dst LEFT RIGHT 5", "LPUSH q2 a b"),
        ("BZPOPMAX z 5", "ZADD z 1 a"),
        ("BLMPOP 5 1 q3 LEFT COUNT 3", "RPUSH q3 a b"),
    ];
    let mut runs = Vec::new();
    for (mut s, mut blocked) in [
        (
            Side::new(peer.client(), peer.client(), "KEAn", "2"),
            peer.client(),
        ),
        (side(&server, "KEAn"), Client::connect(&server)),
    ] {
        let mut got = Vec::new();
        for (wait, push) in cases {
            let words: Vec<&str> = wait.split(' ').collect();
            let args: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
            blocked.send(&args);
            std::thread::sleep(std::time::Duration::from_millis(100));
            s.cmd.cmd(&push.split(' ').collect::<Vec<_>>());
            let served = blocked.read();
            assert!(!matches!(served, Value::Null | Value::NullArray), "{wait}");
            got.push(pairs(&s.run(&["PING"]).1));
        }
        runs.push(got);
    }
    assert_eq!(runs[1], runs[0], "strata, then redis");
}

/// Events wait in the subscriber's mailbox as messages do: one that
/// never reads is disconnected past the `pubsub` output limit.
#[test]
fn a_subscriber_that_never_reads_is_bounded() {
    let server = common::start();
    let mut c = Client::connect(&server);
    let limit = [
        "CONFIG",
        "SET",
        "client-output-buffer-limit",
        "pubsub 64kb 0 0",
    ];
    assert_eq!(c.cmd(&limit), Value::ok());
    let setting = ["CONFIG", "SET", "notify-keyspace-events", "KEA"];
    assert_eq!(c.cmd(&setting), Value::ok());
    let mut sub = Client::connect(&server);
    sub.cmd(&["PSUBSCRIBE", "__key*"]);
    let long = "k".repeat(2_000);
    let field = "client_output_buffer_limit_disconnections";
    let mut i = 0;
    while info_field(&mut c, "stats", field) == 0 {
        assert!(i < 20_000, "never disconnected");
        for _ in 0..100 {
            c.cmd(&["SET", &format!("{long}{i}"), "v"]);
            i += 1;
        }
    }
    assert!(sub.is_closed());
}

#[test]
fn writes_beside_the_resp_port_announce_only_expiry() {
    let server = common::start();
    let mut s = side(&server, "KEA");
    // What the memcached port does: store through the engine directly.
    let item = |expires_at| NewItem {
        value: Cow::Borrowed(&b"v"[..]),
        flags: 0,
        expires_at,
    };
    let mut store = server.keyspace.store();
    let soon = common::T0_MS + 100;
    store.set(b"mc", item(Some(soon))).expect("set");
    store.set(b"mc2", item(None)).expect("set");
    store.delete(b"mc2").expect("delete");
    assert_eq!(s.run(&["PING"]).1, vec![]);
    server.clock.advance_ms(200);
    server.keyspace.run_maintenance();
    let (_, got) = s.run(&["PING"]);
    let expired = vec![
        event("__keyspace@0__:mc", "expired"),
        event("__keyevent@0__:expired", "mc"),
    ];
    assert_eq!(pairs(&got), expired);
}
