//! Consumer groups over TCP: `XGROUP`, `XACK`, `XPENDING` and ACL rules
//! reaching the group subcommands here (with the helpers the other two
//! files share), `XCLAIM` and `XAUTOCLAIM` in `stream_groups_claims.rs`,
//! `XINFO` in `stream_groups_info.rs`. Expected replies are those
//! redis-server 7.0.15 gave for the same commands, but where Redis 7.2
//! (Strata's reference, `t_stream.c` at 7.2.0) differs: each such place
//! says so. Times come from the harness's manual clock, so idle times are
//! exact here (Redis's own were within a few ms).

use crate::common;

use common::{start, Client, Value};

pub fn b(s: &str) -> Value {
    Value::bulk(s)
}

pub fn int(n: i64) -> Value {
    Value::Int(n)
}

pub fn arr(items: Vec<Value>) -> Value {
    Value::Array(items)
}

pub fn err(s: &str) -> Value {
    Value::err(s)
}

/// `[id, [field, value, ...]]`.
pub fn entry(id: &str, fields: &[&str]) -> Value {
    arr(vec![b(id), arr(fields.iter().map(|f| b(f)).collect())])
}

/// An `XPENDING` row: `[id, consumer, idle, deliveries]`.
pub fn pend(id: &str, consumer: &str, idle: i64, count: i64) -> Value {
    arr(vec![b(id), b(consumer), int(idle), int(count)])
}

/// Sends a command of space-free words.
pub fn run(c: &mut Client, line: &str) -> Value {
    c.cmd(&line.split_whitespace().collect::<Vec<_>>())
}

/// Stream `s` with entries `1-0` .. `n-0` (`f vN`) and group `g` at `0`.
pub fn stream_with_group(c: &mut Client, n: u64) {
    for i in 1..=n {
        let added = c.cmd(&["XADD", "s", &format!("{i}-0"), "f", &format!("v{i}")]);
        assert_eq!(added, b(&format!("{i}-0")));
    }
    assert_eq!(run(c, "XGROUP CREATE s g 0"), Value::ok());
}

/// An `XINFO GROUPS` element in RESP2 (`None`: null).
pub fn group_info(
    name: &str,
    consumers: i64,
    pending: i64,
    last: &str,
    read: Option<i64>,
    lag: Option<i64>,
) -> Value {
    let or_null = |n: Option<i64>| n.map_or(Value::Null, int);
    arr(vec![
        b("name"),
        b(name),
        b("consumers"),
        int(consumers),
        b("pending"),
        int(pending),
        b("last-delivered-id"),
        b(last),
        b("entries-read"),
        or_null(read),
        b("lag"),
        or_null(lag),
    ])
}

const NEEDS_KEY: &str = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.";
const BAD_ID: &str = "ERR Invalid stream ID specified as stream command argument";
const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";

fn subcommand_error(sub: &str) -> Value {
    err(&format!(
        "ERR unknown subcommand or wrong number of arguments for '{sub}'. Try XGROUP HELP."
    ))
}

#[test]
fn xgroup_create_and_setid_with_their_options_and_errors() {
    let server = start();
    let mut c = Client::connect(&server);
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    t("XGROUP CREATE s g 0", err(NEEDS_KEY));
    t("XGROUP CREATE s g $ MKSTREAM", Value::ok());
    t("EXISTS s", int(1));
    t("XLEN s", int(0));
    t(
        "XGROUP CREATE s g 0",
        err("BUSYGROUP Consumer Group name already exists"),
    );
    for i in 1..=3 {
        t(&format!("XADD s {i}-0 f v"), b(&format!("{i}-0")));
    }
    t("XGROUP CREATE s g2 $", Value::ok());
    t("XGROUP CREATE s g3 0 ENTRIESREAD 2", Value::ok());
    t("XGROUP CREATE s g4 +", err(BAD_ID));
    t(
        "XGROUP CREATE s g4 0 ENTRIESREAD -2",
        err("ERR value for ENTRIESREAD must be positive or -1"),
    );
    t(
        "XGROUP CREATE s g4 0 ENTRIESREAD x",
        err("ERR value is not an integer or out of range"),
    );
    t(
        "XGROUP create s g4 0 MKSTREAM ENTRIESREAD 1 x",
        subcommand_error("create"),
    );
    t("XGROUP CREATE s g4 0 NOPE", subcommand_error("CREATE"));
    t(
        "XGROUP CREATE s g4 0 MKSTREAM MKSTREAM MKSTREAM MKSTREAM",
        subcommand_error("CREATE"),
    );
    // Options are read before the key is looked at.
    t(
        "XGROUP CREATE nokey g 0 ENTRIESREAD -2",
        err("ERR value for ENTRIESREAD must be positive or -1"),
    );
    t("SET str x", Value::ok());
    t("XGROUP CREATE str g 0", err(WRONGTYPE));
    t("XGROUP CREATE str g 0 MKSTREAM", err(WRONGTYPE));
    // MKSTREAM creates nothing when the identifier is refused.
    t("XGROUP CREATE nokey g bad MKSTREAM", err(BAD_ID));
    t("EXISTS nokey", int(0));
    let groups = arr(vec![
        group_info("g", 0, 0, "0-0", None, Some(3)),
        group_info("g2", 0, 0, "3-0", None, Some(0)),
        group_info("g3", 0, 0, "0-0", Some(2), Some(1)),
    ]);
    t("XINFO GROUPS s", groups);
    t(
        "XGROUP SETID s nog 0",
        err("NOGROUP No such consumer group 'nog' for key name 's'"),
    );
    t("XGROUP SETID nokey g 0", err(NEEDS_KEY));
    t("XGROUP SETID s g bad", err(BAD_ID));
    t("XGROUP SETID s g 2 ENTRIESREAD 2", Value::ok());
    // SETID takes `-` and `+` (CREATE does not); without ENTRIESREAD the
    // counter becomes unknown.
    t("XGROUP SETID s g2 -", Value::ok());
    t("XGROUP SETID s g3 $", Value::ok());
    t("XGROUP SETID s g 0 ENTRIESREAD", subcommand_error("SETID"));
    t(
        "XGROUP SETID s g 0 ENTRIESREAD 1 ENTRIESREAD 2",
        subcommand_error("SETID"),
    );
    t(
        "XGROUP SETID nokey g 0 ENTRIESREAD 1 ENTRIESREAD 2",
        err(NEEDS_KEY),
    );
    t("XGROUP SETID s g 0 MKSTREAM", subcommand_error("SETID"));
    let groups = arr(vec![
        group_info("g", 0, 0, "2-0", Some(2), Some(1)),
        group_info("g2", 0, 0, "0-0", None, Some(3)),
        group_info("g3", 0, 0, "3-0", None, Some(0)),
    ]);
    t("XINFO GROUPS s", groups);
    t("XGROUP SETID s g2 + ENTRIESREAD -1", Value::ok());
    let info = run(&mut c, "XINFO GROUPS s");
    let want = group_info(
        "g2",
        0,
        0,
        "18446744073709551615-18446744073709551615",
        None,
        None,
    );
    assert_eq!(info.array()[1], want);
}

#[test]
fn xgroup_consumers_destroy_and_help() {
    let server = start();
    let mut c = Client::connect(&server);
    stream_with_group(&mut c, 3);
    assert_eq!(run(&mut c, "XGROUP SETID s g 2-0"), Value::ok());
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    t("XGROUP CREATECONSUMER s g alice", int(1));
    t("XGROUP CREATECONSUMER s g alice", int(0));
    t(
        "XGROUP CREATECONSUMER s nog alice",
        err("NOGROUP No such consumer group 'nog' for key name 's'"),
    );
    t("XGROUP CREATECONSUMER nokey g alice", err(NEEDS_KEY));
    t("XGROUP DELCONSUMER s g alice", int(0));
    t("XGROUP DELCONSUMER s g alice", int(0));
    let read = arr(vec![arr(vec![
        b("s"),
        arr(vec![entry("3-0", &["f", "v3"])]),
    ])]);
    t("XREADGROUP GROUP g bob STREAMS s >", read);
    // The consumer's pending entries go with it.
    t("XGROUP DELCONSUMER s g bob", int(1));
    t(
        "XPENDING s g",
        arr(vec![int(0), Value::Null, Value::Null, Value::NullArray]),
    );
    t("XGROUP CREATE s g2 0", Value::ok());
    t("XGROUP DESTROY s g2", int(1));
    t("XGROUP DESTROY s g2", int(0));
    t("XGROUP DESTROY nokey g", err(NEEDS_KEY));
    t("SET str x", Value::ok());
    t("XGROUP DESTROY str g", err(WRONGTYPE));
    t(
        "XGROUP DESTROY s g2 extra",
        err("ERR wrong number of arguments for 'xgroup|destroy' command"),
    );
    t(
        "XGROUP HELP extra",
        err("ERR wrong number of arguments for 'xgroup|help' command"),
    );
    t(
        "XGROUP FOO",
        err("ERR unknown subcommand 'FOO'. Try XGROUP HELP."),
    );
    t(
        "XGROUP",
        err("ERR wrong number of arguments for 'xgroup' command"),
    );
    let help = run(&mut c, "XGROUP HELP");
    let lines: Vec<String> = help.array().iter().map(Value::text).collect();
    assert_eq!(lines.len(), 17);
    assert_eq!(
        lines[0],
        "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"
    );
    assert_eq!(
        lines[14],
        "    Set the current group ID and entries_read counter."
    );
    // Redis 7.2's footer (7.0 says "Prints").
    assert_eq!(lines[16], "    Print this help.");
}

#[test]
fn xgroup_destroy_wakes_a_blocked_reader_with_nogroup() {
    let server = start();
    let mut reader = Client::connect(&server);
    let mut c = Client::connect(&server);
    assert_eq!(run(&mut c, "XGROUP CREATE s g $ MKSTREAM"), Value::ok());
    reader.send(&[
        b"XREADGROUP",
        b"GROUP",
        b"g",
        b"alice",
        b"BLOCK",
        b"0",
        b"STREAMS",
        b"s",
        b">",
    ]);
    // Let the reader block before the group goes.
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert_eq!(run(&mut c, "XGROUP DESTROY s g"), int(1));
    // Redis 7.2 runs the read again (7.0 answered "NOGROUP the consumer
    // group this client was blocked on no longer exists").
    let want = "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option";
    assert_eq!(reader.read(), err(want));
}

#[test]
fn xack_acknowledges_only_pending_entries() {
    let server = start();
    let mut c = Client::connect(&server);
    stream_with_group(&mut c, 5);
    run(&mut c, "XREADGROUP GROUP g alice COUNT 3 STREAMS s >");
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    t("XACK s g 1-0 1-0 9-0", int(1));
    // One bad identifier refuses them all.
    t("XACK s g 2-0 bad", err(BAD_ID));
    t(
        "XPENDING s g",
        arr(vec![
            int(2),
            b("2-0"),
            b("3-0"),
            arr(vec![arr(vec![b("alice"), b("2")])]),
        ]),
    );
    // No key or group: nothing to acknowledge, identifiers unread.
    t("XACK s nog bad", int(0));
    t("XACK nokey g bad", int(0));
    t("SET str x", Value::ok());
    t("XACK str g 1-0", err(WRONGTYPE));
    t("XACK s g +", err(BAD_ID));
    t("XACK s g 2", int(1));
    t(
        "XACK s g",
        err("ERR wrong number of arguments for 'xack' command"),
    );
}

#[test]
fn xpending_summary_and_extended_forms() {
    let server = start();
    let mut c = Client::connect(&server);
    stream_with_group(&mut c, 5);
    run(&mut c, "XREADGROUP GROUP g alice COUNT 3 STREAMS s >");
    server.clock.advance_ms(100);
    run(&mut c, "XREADGROUP GROUP g bob COUNT 2 STREAMS s >");
    run(&mut c, "XGROUP CREATECONSUMER s g carol");
    run(&mut c, "XACK s g 1-0 2-0");
    run(&mut c, "SET str x");
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    let held = arr(vec![
        arr(vec![b("alice"), b("1")]),
        arr(vec![b("bob"), b("2")]),
    ]);
    t("XPENDING s g", arr(vec![int(3), b("3-0"), b("5-0"), held]));
    t(
        "XPENDING s nog",
        err("NOGROUP No such key 's' or consumer group 'nog'"),
    );
    t(
        "XPENDING nokey g",
        err("NOGROUP No such key 'nokey' or consumer group 'g'"),
    );
    t("XPENDING str g", err(WRONGTYPE));
    t("XPENDING s g - +", err("ERR syntax error"));
    t("XPENDING s g - + 10 alice x y z", err("ERR syntax error"));
    t(
        "XPENDING s g x - + 10",
        err("ERR value is not an integer or out of range"),
    );
    t(
        "XPENDING s g - + x",
        err("ERR value is not an integer or out of range"),
    );
    t("XPENDING s g x + 10", err(BAD_ID));
    t(
        "XPENDING s g (18446744073709551615-18446744073709551615 + 10",
        err("ERR invalid start ID for the interval"),
    );
    t(
        "XPENDING s g - (0-0 10",
        err("ERR invalid end ID for the interval"),
    );
    t("XPENDING s g IDLE 10 - +", err("ERR syntax error"));
    t(
        "XPENDING s g IDLE x - + 10",
        err("ERR value is not an integer or out of range"),
    );
    // Arguments are read before the key is looked at.
    t("XPENDING nokey g x + 10", err(BAD_ID));
    t("XPENDING str g - + 10", err(WRONGTYPE));
    let all = vec![
        pend("3-0", "alice", 100, 1),
        pend("4-0", "bob", 0, 1),
        pend("5-0", "bob", 0, 1),
    ];
    t("XPENDING s g - + 10", arr(all.clone()));
    t("XPENDING s g (3-0 + 10", arr(all[1..].to_vec()));
    t("XPENDING s g - (5 10", arr(all.clone()));
    t("XPENDING s g - 4 1", arr(all[..1].to_vec()));
    t("XPENDING s g - + -5", arr(vec![]));
    t("XPENDING s g 4 3 10", arr(vec![]));
    t("XPENDING s g IDLE 50 - + 10", arr(all[..1].to_vec()));
    t("XPENDING s g IDLE 50 - + 10 bob", arr(vec![]));
    t("XPENDING s g idle -5 - + 10 bob", arr(all[1..].to_vec()));
    t("XPENDING s g 3 + 1 bob", arr(all[1..2].to_vec()));
    // Without IDLE, what follows the consumer is ignored (as in Redis).
    t("XPENDING s g - + 10 alice extra", arr(all[..1].to_vec()));
    t("XPENDING s g - + 10 nobody", arr(vec![]));
    t("XPENDING s g - + 10 carol", arr(vec![]));
    t("XGROUP CREATE s empty $", Value::ok());
    t(
        "XPENDING s empty",
        arr(vec![int(0), Value::Null, Value::Null, Value::NullArray]),
    );
    t("XPENDING s empty - + 10", arr(vec![]));
}

#[test]
fn acl_rules_reach_the_group_subcommands() {
    let server = start();
    let mut c = Client::connect(&server);
    let setup = "ACL SETUSER u on >p +@stream ~* +xgroup +acl|setuser -xinfo|help";
    assert_eq!(run(&mut c, setup), Value::ok());
    assert_eq!(run(&mut c, "AUTH u p"), Value::ok());
    assert_eq!(run(&mut c, "XGROUP CREATE s g $ MKSTREAM"), Value::ok());
    assert_eq!(run(&mut c, "XGROUP CREATECONSUMER s g alice"), int(1));
    assert_eq!(run(&mut c, "XINFO CONSUMERS s g").array().len(), 1);
    assert_eq!(run(&mut c, "XINFO STREAM s").array().len(), 20);
    let refused = "NOPERM User u has no permissions to run the 'xinfo|help' command";
    assert_eq!(run(&mut c, "XINFO HELP"), err(refused));
}
