//! `XCLAIM` and `XAUTOCLAIM` over TCP, with the replies redis-server
//! 7.0.15 gave for the same commands but where Redis 7.2 differs (said
//! where). Idle times follow the harness's manual clock, so are exact.

use crate::common;
use crate::stream_groups::{arr, b, entry, err, int, pend, run, stream_with_group};

use common::{start, Client, Value, T0_MS};

const WRONGTYPE: &str = "WRONGTYPE Operation against a key holding the wrong kind of value";
const BAD_ID: &str = "ERR Invalid stream ID specified as stream command argument";

fn v(n: u64) -> Value {
    entry(&format!("{n}-0"), &["f", &format!("v{n}")])
}

/// `XINFO CONSUMERS` names.
fn consumer_names(c: &mut Client) -> Vec<String> {
    let info = run(c, "XINFO CONSUMERS s g");
    info.array().iter().map(|m| m.array()[1].text()).collect()
}

#[test]
fn xclaim_refuses_in_redis_order_and_changes_nothing() {
    let server = start();
    let mut c = Client::connect(&server);
    stream_with_group(&mut c, 3);
    run(&mut c, "XREADGROUP GROUP g alice STREAMS s >");
    run(&mut c, "SET str x");
    let unknown = |o: &str| err(&format!("ERR Unrecognized XCLAIM option '{o}'"));
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    t(
        "XCLAIM nokey g c 0 1-0",
        err("NOGROUP No such key 'nokey' or consumer group 'g'"),
    );
    t("XCLAIM str g c 0 1-0", err(WRONGTYPE));
    // The group is looked up before the arguments are read.
    t(
        "XCLAIM s nog c x 1-0",
        err("NOGROUP No such key 's' or consumer group 'nog'"),
    );
    t(
        "XCLAIM s g c x 1-0",
        err("ERR Invalid min-idle-time argument for XCLAIM"),
    );
    t("XCLAIM s g c 0 1-0 IDLE", unknown("IDLE"));
    t(
        "XCLAIM s g c 0 1-0 idle x",
        err("ERR Invalid IDLE option argument for XCLAIM"),
    );
    t(
        "XCLAIM s g c 0 1-0 TIME x",
        err("ERR Invalid TIME option argument for XCLAIM"),
    );
    t(
        "XCLAIM s g c 0 1-0 RETRYCOUNT x",
        err("ERR Invalid RETRYCOUNT option argument for XCLAIM"),
    );
    t("XCLAIM s g c 0 1-0 LASTID x", err(BAD_ID));
    t("XCLAIM s g c 0 1-0 LASTID +", err(BAD_ID));
    t("XCLAIM s g c 0 1-0 bogus", unknown("bogus"));
    // Identifiers end at the first argument that is not one.
    t("XCLAIM s g c 0 FORCE 1-0", unknown("1-0"));
    t("XCLAIM s g c 0 1-0 justid 2-0", unknown("2-0"));
    t("XCLAIM s g c 0 +", unknown("+"));
    t(
        "XCLAIM s g c 0",
        err("ERR wrong number of arguments for 'xclaim' command"),
    );
    assert_eq!(consumer_names(&mut c), ["alice"]);
    let all = vec![
        pend("1-0", "alice", 0, 1),
        pend("2-0", "alice", 0, 1),
        pend("3-0", "alice", 0, 1),
    ];
    assert_eq!(run(&mut c, "XPENDING s g - + 10"), arr(all));
}

#[test]
fn xclaim_moves_entries_and_honours_its_options() {
    let server = start();
    let mut c = Client::connect(&server);
    stream_with_group(&mut c, 6);
    run(&mut c, "XREADGROUP GROUP g alice COUNT 3 STREAMS s >");
    server.clock.advance_ms(100);
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    // Repeats are claimed again; entries never in the stream are skipped.
    t("XCLAIM s g bob 0 1-0 9-0 1-0", arr(vec![v(1), v(1)]));
    t("XCLAIM s g bob 0 2-0 JUSTID", arr(vec![b("2-0")]));
    let want = vec![
        pend("1-0", "bob", 0, 3),
        pend("2-0", "bob", 0, 1),
        pend("3-0", "alice", 100, 1),
    ];
    t("XPENDING s g - + 10", arr(want));
    // Not idle long enough: nothing claimed.
    t("XCLAIM s g carol 3600000 3-0", arr(vec![]));
    t(
        "XCLAIM s g carol 0 5-0 9-0 FORCE JUSTID",
        arr(vec![b("5-0")]),
    );
    t(
        "XCLAIM s g carol 0 4-0 FORCE RETRYCOUNT 7 IDLE 5000",
        arr(vec![v(4)]),
    );
    // A negative RETRYCOUNT is none; a negative IDLE is "now".
    t(
        "XCLAIM s g carol 0 3-0 RETRYCOUNT -1 IDLE -5",
        arr(vec![v(3)]),
    );
    let want = vec![
        pend("1-0", "bob", 0, 3),
        pend("2-0", "bob", 0, 1),
        pend("3-0", "carol", 0, 2),
        pend("4-0", "carol", 5000, 7),
        pend("5-0", "carol", 0, 1),
    ];
    t("XPENDING s g - + 10", arr(want));
    // LASTID moves the group's last delivered identifier up, never down.
    let group = |last: &str| {
        let fields = vec![
            b("name"),
            b("g"),
            b("consumers"),
            int(3),
            b("pending"),
            int(5),
            b("last-delivered-id"),
            b(last),
            b("entries-read"),
            int(3),
            b("lag"),
            int(3),
        ];
        arr(vec![arr(fields)])
    };
    t("XCLAIM s g carol 0 8-0 LASTID 7-0", arr(vec![]));
    t("XINFO GROUPS s", group("7-0"));
    t("XCLAIM s g carol 0 8-0 LASTID 6-0", arr(vec![]));
    t("XINFO GROUPS s", group("7-0"));
    // A pending entry deleted from the stream leaves the pending list.
    t("XDEL s 1-0", int(1));
    t("XCLAIM s g dave 0 1-0 2-0", arr(vec![v(2)]));
    let held = arr(vec![
        arr(vec![b("carol"), b("3")]),
        arr(vec![b("dave"), b("1")]),
    ]);
    t("XPENDING s g", arr(vec![int(4), b("2-0"), b("5-0"), held]));
    // TIME sets the delivery time; one in the future is taken as now.
    let time = format!("XCLAIM s g dave 0 2-0 TIME {} JUSTID", T0_MS + 50);
    t(&time, arr(vec![b("2-0")]));
    t(
        "XPENDING s g 2-0 2-0 1",
        arr(vec![pend("2-0", "dave", 50, 2)]),
    );
    t(
        "XCLAIM s g dave 0 2-0 TIME 99999999999999 JUSTID",
        arr(vec![b("2-0")]),
    );
    t(
        "XPENDING s g 2-0 2-0 1",
        arr(vec![pend("2-0", "dave", 0, 2)]),
    );
    t("XCLAIM s g erin 60 4-0 5-0 JUSTID", arr(vec![b("4-0")]));
}

#[test]
fn xclaim_creates_its_consumer_even_when_it_claims_nothing() {
    // Redis 7.2 creates the consumer first (7.0 only on a claim).
    let server = start();
    let mut c = Client::connect(&server);
    stream_with_group(&mut c, 2);
    run(&mut c, "XREADGROUP GROUP g alice STREAMS s >");
    assert_eq!(run(&mut c, "XCLAIM s g bob 3600000 1-0"), arr(vec![]));
    assert_eq!(
        run(&mut c, "XAUTOCLAIM s g carol 3600000 0"),
        arr(vec![b("0-0"), arr(vec![]), arr(vec![])])
    );
    assert_eq!(consumer_names(&mut c), ["alice", "bob", "carol"]);
}

#[test]
fn xautoclaim_refuses_in_redis_order() {
    let server = start();
    let mut c = Client::connect(&server);
    stream_with_group(&mut c, 2);
    run(&mut c, "SET str x");
    let count = err("ERR COUNT must be > 0");
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    t(
        "XAUTOCLAIM nokey g c 0 0",
        err("NOGROUP No such key 'nokey' or consumer group 'g'"),
    );
    t("XAUTOCLAIM str g c 0 0", err(WRONGTYPE));
    // Arguments are read before the key is looked at.
    t(
        "XAUTOCLAIM str g c x 0",
        err("ERR Invalid min-idle-time argument for XAUTOCLAIM"),
    );
    t("XAUTOCLAIM s g c 0 x", err(BAD_ID));
    t(
        "XAUTOCLAIM s g c 0 (18446744073709551615-18446744073709551615",
        err("ERR invalid start ID for the interval"),
    );
    t("XAUTOCLAIM s g c 0 (+", err(BAD_ID));
    t("XAUTOCLAIM s g c 0 0 COUNT 0", count.clone());
    t("XAUTOCLAIM s g c 0 0 COUNT x", count.clone());
    t("XAUTOCLAIM s g c 0 0 COUNT -1", count.clone());
    t(
        "XAUTOCLAIM s g c 0 0 COUNT 576460752303423488",
        count.clone(),
    );
    t("XAUTOCLAIM s nog c 0 0 COUNT 0", count);
    t("XAUTOCLAIM s g c 0 0 bogus", err("ERR syntax error"));
    t("XAUTOCLAIM s g c 0 0 COUNT", err("ERR syntax error"));
    t("XAUTOCLAIM nokey g c 0 0 bogus", err("ERR syntax error"));
    t(
        "XAUTOCLAIM s nog c 0 0",
        err("NOGROUP No such key 's' or consumer group 'nog'"),
    );
    // Redis allocates COUNT identifiers first and refuses when it cannot
    // ("Insufficient memory ..."); Strata allocates by what it finds.
    t(
        "XAUTOCLAIM s g c 0 0 COUNT 576460752303423487",
        arr(vec![b("0-0"), arr(vec![]), arr(vec![])]),
    );
}

#[test]
fn xautoclaim_scans_with_a_cursor_and_reports_deleted_entries() {
    let server = start();
    let mut c = Client::connect(&server);
    stream_with_group(&mut c, 6);
    run(&mut c, "XREADGROUP GROUP g alice STREAMS s >");
    run(&mut c, "XDEL s 2-0");
    server.clock.advance_ms(100);
    let none = || arr(vec![]);
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    // The deleted entry counts against COUNT.
    t(
        "XAUTOCLAIM s g bob 0 0 COUNT 2",
        arr(vec![b("3-0"), arr(vec![v(1)]), arr(vec![b("2-0")])]),
    );
    t(
        "XAUTOCLAIM s g bob 0 (3-0 COUNT 1 JUSTID",
        arr(vec![b("5-0"), arr(vec![b("4-0")]), none()]),
    );
    t(
        "XAUTOCLAIM s g bob 0 +",
        arr(vec![b("0-0"), none(), none()]),
    );
    t(
        "XAUTOCLAIM s g bob 3600000 0",
        arr(vec![b("0-0"), none(), none()]),
    );
    let want = vec![
        pend("1-0", "bob", 0, 2),
        pend("3-0", "alice", 100, 1),
        pend("4-0", "bob", 0, 1),
        pend("5-0", "alice", 100, 1),
        pend("6-0", "alice", 100, 1),
    ];
    t("XPENDING s g - + 10", arr(want));
    let ids = arr(["1-0", "3-0", "4-0", "5-0", "6-0"]
        .iter()
        .map(|i| b(i))
        .collect());
    t(
        "XAUTOCLAIM s g carol 0 - count 10 justid justid",
        arr(vec![b("0-0"), ids, none()]),
    );
    t(
        "XAUTOCLAIM s g carol 0 5",
        arr(vec![b("0-0"), arr(vec![v(5), v(6)]), none()]),
    );
    let want = vec![
        pend("1-0", "carol", 0, 2),
        pend("3-0", "carol", 0, 1),
        pend("4-0", "carol", 0, 1),
        pend("5-0", "carol", 0, 2),
        pend("6-0", "carol", 0, 2),
    ];
    t("XPENDING s g - + 10", arr(want));
}

#[test]
fn xautoclaim_looks_at_ten_entries_per_count() {
    let server = start();
    let mut c = Client::connect(&server);
    stream_with_group(&mut c, 30);
    run(&mut c, "XREADGROUP GROUP g alice STREAMS s >");
    let none = || arr(vec![]);
    let mut t = |line: &str, want: Value| assert_eq!(run(&mut c, line), want, "{line}");
    t(
        "XAUTOCLAIM s g bob 3600000 - COUNT 1",
        arr(vec![b("11-0"), none(), none()]),
    );
    t(
        "XAUTOCLAIM s g bob 3600000 11 COUNT 2",
        arr(vec![b("0-0"), none(), none()]),
    );
    t(
        "XAUTOCLAIM s g bob 0 (29-0 COUNT 1",
        arr(vec![b("0-0"), arr(vec![v(30)]), none()]),
    );
}
