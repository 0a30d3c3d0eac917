//! `XINFO` over TCP, in RESP2 (flat arrays) and RESP3 (maps), with the
//! replies redis-server 7.0.15 gave for the same commands plus the fields
//! Redis 7.2 added (a consumer's `active-time` in `STREAM FULL` and
//! `inactive` in `CONSUMERS`; 7.0 has neither) and 7.2's HELP footer.
//! Times follow the harness's manual clock, so are exact.

use crate::common;
use crate::stream_groups::{arr, b, entry, err, int, run};

use common::{start, Client, Value, T0_MS};

const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";

/// A map as the protocol writes it: RESP3's map, RESP2's flat array.
fn map(resp3: bool, pairs: Vec<(&str, Value)>) -> Value {
    if resp3 {
        Value::Map(pairs.into_iter().map(|(k, v)| (b(k), v)).collect())
    } else {
        arr(pairs.into_iter().flat_map(|(k, v)| [b(k), v]).collect())
    }
}

fn t(ms: u64) -> Value {
    int((T0_MS + ms) as i64)
}

/// Stream `s`: entries 1-0, 3-0, 4-0 (2-0 deleted); group `g` with
/// alice (1-0, at +0), bob (3-0 and 4-0, at +30) and carol (created at
/// +50, never active); group `g2` at 0-0 with 1 read. The clock ends at
/// +100.
fn described(c: &mut Client, server: &common::Server) {
    assert_eq!(run(c, "XGROUP CREATE s g $ MKSTREAM"), Value::ok());
    for (i, f) in ["a", "b", "c", "d"].iter().enumerate() {
        run(c, &format!("XADD s {}-0 {f} {}", i + 1, i + 1));
    }
    assert_eq!(run(c, "XDEL s 2-0"), int(1));
    assert_eq!(run(c, "XGROUP CREATE s g2 0 ENTRIESREAD 1"), Value::ok());
    run(c, "XREADGROUP GROUP g alice COUNT 1 STREAMS s >");
    server.clock.advance_ms(30);
    run(c, "XREADGROUP GROUP g bob STREAMS s >");
    server.clock.advance_ms(20);
    assert_eq!(run(c, "XGROUP CREATECONSUMER s g carol"), int(1));
    server.clock.advance_ms(50);
}

/// The counters every `XINFO STREAM` of [`described`] starts with.
fn head() -> Vec<(&'static str, Value)> {
    vec![
        ("length", int(3)),
        ("radix-tree-keys", int(1)),
        ("radix-tree-nodes", int(2)),
        ("last-generated-id", b("4-0")),
        ("max-deleted-entry-id", b("2-0")),
        ("entries-added", int(4)),
        ("recorded-first-entry-id", b("1-0")),
    ]
}

fn summary(resp3: bool) -> Value {
    let mut fields = head();
    fields.push(("groups", int(2)));
    fields.push(("first-entry", entry("1-0", &["a", "1"])));
    fields.push(("last-entry", entry("4-0", &["d", "4"])));
    map(resp3, fields)
}

fn groups(resp3: bool) -> Value {
    let g = map(
        resp3,
        vec![
            ("name", b("g")),
            ("consumers", int(3)),
            ("pending", int(3)),
            ("last-delivered-id", b("4-0")),
            ("entries-read", int(4)),
            ("lag", int(0)),
        ],
    );
    // g2 claims one read at 0-0 with a deletion ahead: the lag is unknown.
    let g2 = map(
        resp3,
        vec![
            ("name", b("g2")),
            ("consumers", int(0)),
            ("pending", int(0)),
            ("last-delivered-id", b("0-0")),
            ("entries-read", int(1)),
            ("lag", Value::Null),
        ],
    );
    arr(vec![g, g2])
}

fn consumers(resp3: bool) -> Value {
    let one = |name: &str, pending: i64, idle: i64, inactive: i64| {
        let fields = vec![
            ("name", b(name)),
            ("pending", int(pending)),
            ("idle", int(idle)),
            ("inactive", int(inactive)),
        ];
        map(resp3, fields)
    };
    arr(vec![
        one("alice", 1, 100, 100),
        one("bob", 2, 70, 70),
        one("carol", 0, 50, -1),
    ])
}

/// `XINFO STREAM s FULL` of [`described`] with lists cut at `limit`.
fn full(resp3: bool, limit: usize) -> Value {
    let cut = |v: Vec<Value>| arr(v.into_iter().take(limit).collect());
    let pel = |id: &str, at: u64| arr(vec![b(id), t(at), int(1)]);
    let consumer = |name: &str, seen: u64, active: Value, pending: Vec<Value>| {
        let fields = vec![
            ("name", b(name)),
            ("seen-time", t(seen)),
            ("active-time", active),
            ("pel-count", int(pending.len() as i64)),
            ("pending", cut(pending)),
        ];
        map(resp3, fields)
    };
    let g = map(
        resp3,
        vec![
            ("name", b("g")),
            ("last-delivered-id", b("4-0")),
            ("entries-read", int(4)),
            ("lag", int(0)),
            ("pel-count", int(3)),
            (
                "pending",
                cut(vec![
                    arr(vec![b("1-0"), b("alice"), t(0), int(1)]),
                    arr(vec![b("3-0"), b("bob"), t(30), int(1)]),
                    arr(vec![b("4-0"), b("bob"), t(30), int(1)]),
                ]),
            ),
            (
                "consumers",
                arr(vec![
                    consumer("alice", 0, t(0), vec![pel("1-0", 0)]),
                    consumer("bob", 30, t(30), vec![pel("3-0", 30), pel("4-0", 30)]),
                    consumer("carol", 50, int(-1), vec![]),
                ]),
            ),
        ],
    );
    let g2 = map(
        resp3,
        vec![
            ("name", b("g2")),
            ("last-delivered-id", b("0-0")),
            ("entries-read", int(1)),
            ("lag", Value::Null),
            ("pel-count", int(0)),
            ("pending", arr(vec![])),
            ("consumers", arr(vec![])),
        ],
    );
    let mut fields = head();
    let all = vec![
        entry("1-0", &["a", "1"]),
        entry("3-0", &["c", "3"]),
        entry("4-0", &["d", "4"]),
    ];
    fields.push(("entries", cut(all)));
    fields.push(("groups", arr(vec![g, g2])));
    map(resp3, fields)
}

#[test]
fn xinfo_stream_groups_and_consumers_in_resp2() {
    let server = start();
    let mut c = Client::connect(&server);
    described(&mut c, &server);
    assert_eq!(run(&mut c, "XINFO STREAM s"), summary(false));
    assert_eq!(run(&mut c, "XINFO GROUPS s"), groups(false));
    assert_eq!(run(&mut c, "XINFO CONSUMERS s g"), consumers(false));
    assert_eq!(run(&mut c, "XINFO CONSUMERS s g2"), arr(vec![]));
    assert_eq!(run(&mut c, "XINFO STREAM s full"), full(false, usize::MAX));
    assert_eq!(run(&mut c, "XINFO STREAM s FULL COUNT 1"), full(false, 1));
    assert_eq!(
        run(&mut c, "XINFO STREAM s FULL COUNT 0"),
        full(false, usize::MAX)
    );
    assert_eq!(run(&mut c, "XINFO STREAM s FULL COUNT -3"), full(false, 10));
}

#[test]
fn xinfo_replies_are_maps_in_resp3() {
    let server = start();
    let mut c = Client::connect(&server);
    described(&mut c, &server);
    run(&mut c, "HELLO 3");
    assert_eq!(run(&mut c, "XINFO STREAM s"), summary(true));
    assert_eq!(run(&mut c, "XINFO GROUPS s"), groups(true));
    assert_eq!(run(&mut c, "XINFO CONSUMERS s g"), consumers(true));
    assert_eq!(run(&mut c, "XINFO STREAM s FULL COUNT 1"), full(true, 1));
    // An emptied stream keeps its counters; its edges are null.
    assert_eq!(run(&mut c, "XTRIM s MAXLEN 0"), int(3));
    let mut fields = head();
    fields[0].1 = int(0);
    fields[1].1 = int(0);
    fields[2].1 = int(1);
    fields[6].1 = b("0-0");
    fields.push(("groups", int(2)));
    fields.push(("first-entry", Value::Null));
    fields.push(("last-entry", Value::Null));
    assert_eq!(run(&mut c, "XINFO STREAM s"), map(true, fields));
}

#[test]
fn xinfo_refuses_in_redis_order() {
    let server = start();
    let mut c = Client::connect(&server);
    assert_eq!(run(&mut c, "XGROUP CREATE s g $ MKSTREAM"), Value::ok());
    run(&mut c, "SET str x");
    let stream_args =
        err("ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.");
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    t("XINFO STREAM nokey", err("ERR no such key"));
    t("XINFO STREAM str", err(WRONGTYPE));
    t("XINFO GROUPS nokey", err("ERR no such key"));
    t("XINFO CONSUMERS nokey g", err("ERR no such key"));
    t("XINFO CONSUMERS str g", err(WRONGTYPE));
    t(
        "XINFO CONSUMERS s nog",
        err("NOGROUP No such consumer group 'nog' for key name 's'"),
    );
    t(
        "XINFO HELP extra",
        err("ERR wrong number of arguments for 'xinfo|help' command"),
    );
    t(
        "XINFO FOO",
        err("ERR unknown subcommand 'FOO'. Try XINFO HELP."),
    );
    t(
        "XINFO",
        err("ERR wrong number of arguments for 'xinfo' command"),
    );
    t(
        "XINFO STREAM",
        err("ERR wrong number of arguments for 'xinfo|stream' command"),
    );
    t(
        "XINFO GROUPS s extra",
        err("ERR wrong number of arguments for 'xinfo|groups' command"),
    );
    t(
        "XINFO STREAM s FULL COUNT x",
        err("ERR value is not an integer or out of range"),
    );
    t("XINFO STREAM s FULL COUNT", stream_args.clone());
    t("XINFO STREAM s FULL x 1", stream_args.clone());
    t("XINFO STREAM s x", stream_args.clone());
    t("XINFO STREAM s FULL COUNT 1 x", stream_args);
    // The key is looked up before the options are read.
    t("XINFO STREAM nokey FULL x", err("ERR no such key"));
    let empty = vec![
        ("length", int(0)),
        ("radix-tree-keys", int(0)),
        ("radix-tree-nodes", int(1)),
        ("last-generated-id", b("0-0")),
        ("max-deleted-entry-id", b("0-0")),
        ("entries-added", int(0)),
        ("recorded-first-entry-id", b("0-0")),
        ("groups", int(1)),
        ("first-entry", Value::Null),
        ("last-entry", Value::Null),
    ];
    t("XINFO STREAM s", map(false, empty));
    let help = run(&mut c, "XINFO HELP");
    let lines: Vec<String> = help.array().iter().map(Value::text).collect();
    assert_eq!(lines.len(), 9);
    assert_eq!(lines[5], "STREAM <key> [FULL [COUNT <count>]");
    // Redis 7.2's footer (7.0 says "Prints").
    assert_eq!(lines[8], "    Print this help.");
}

#[test]
fn xinfo_stream_describes_the_node_tree_as_redis() {
    let server = start();
    let mut c = Client::connect(&server);
    let shape = |c: &mut Client| {
        let info = run(c, "XINFO STREAM r");
        let v = info.array();
        (v[1].clone(), v[3].clone(), v[5].clone())
    };
    for i in 1..=250 {
        run(&mut c, &format!("XADD r {i}-0 f v"));
    }
    // Nodes of 100 entries keyed 1-0, 101-0, 201-0: 3 keys, 8 tree nodes.
    assert_eq!(shape(&mut c), (int(250), int(3), int(8)));
    assert_eq!(run(&mut c, "XTRIM r MAXLEN ~ 120"), int(100));
    assert_eq!(shape(&mut c), (int(150), int(2), int(6)));
    for i in 251..=260 {
        run(&mut c, &format!("XADD r {i}-0 f v"));
    }
    assert_eq!(shape(&mut c), (int(160), int(2), int(6)));
}
