//! `SORT ... STORE` over TCP (the destination replaced by a list of any
//! encoding, or deleted; blocked clients woken), and what `SORT` shares
//! with the rest of the server: ACLs (`BY` and `GET` need every key
//! readable, `STORE` its destination writable), the keys `COMMAND
//! GETKEYS` reports, scripts and transactions.

use std::time::Duration;

use crate::common;

use common::{bulks, start, Client, Value};

// The same keys as the SORT tests.
use super::sort_lcs::setup;

fn err(text: &str) -> Value {
    Value::err(text)
}

#[test]
fn store_replaces_the_destination_with_a_list() {
    let server = start();
    let mut c = Client::connect(&server);
    setup(&mut c);
    c.cmd(&["SET", "d", "old", "EX", "100"]);
    assert_eq!(c.cmd(&["SORT", "l", "STORE", "d"]), Value::Int(4));
    assert_eq!(c.cmd(&["TYPE", "d"]), Value::Simple("list".into()));
    assert_eq!(c.cmd(&["TTL", "d"]), Value::Int(-1), "the old expiry goes");
    assert_eq!(
        c.cmd(&["LRANGE", "d", "0", "-1"]),
        bulks(&["1", "2", "3", "10"])
    );
    assert_eq!(c.cmd(&["OBJECT", "ENCODING", "d"]), Value::bulk("listpack"));
    // Each GET is one element; one that finds nothing stores "".
    let n = c.cmd(&["SORT", "l", "GET", "#", "GET", "o_*->f", "STORE", "d"]);
    assert_eq!(n, Value::Int(8));
    assert_eq!(
        c.cmd(&["LRANGE", "d", "0", "3"]),
        bulks(&["1", "b", "2", ""])
    );
    // Into its own source.
    assert_eq!(c.cmd(&["SORT", "l", "DESC", "STORE", "l"]), Value::Int(4));
    assert_eq!(
        c.cmd(&["LRANGE", "l", "0", "-1"]),
        bulks(&["10", "3", "2", "1"])
    );
    // An empty result deletes the destination (and creates nothing).
    assert_eq!(c.cmd(&["SORT", "nosuch", "STORE", "d"]), Value::Int(0));
    assert_eq!(c.cmd(&["EXISTS", "d"]), Value::Int(0));
    assert_eq!(
        c.cmd(&["SORT", "l", "LIMIT", "10", "10", "STORE", "d"]),
        Value::Int(0)
    );
    assert_eq!(c.cmd(&["EXISTS", "d"]), Value::Int(0));
    // A set kept in its order is sorted as strings when stored.
    c.cmd(&["SADD", "s", "b", "aa", "a", "c", "10"]);
    assert_eq!(
        c.cmd(&["SORT", "s", "BY", "x", "STORE", "d"]),
        Value::Int(5)
    );
    assert_eq!(
        c.cmd(&["LRANGE", "d", "0", "-1"]),
        bulks(&["10", "a", "aa", "b", "c"])
    );
}

#[test]
fn store_goes_large_past_the_list_limit_over_any_value() {
    let server = start();
    let mut c = Client::connect(&server);
    // 300 elements of 40 bytes: past list-max-listpack-size's 8 KiB.
    let members: Vec<String> = (0..300)
        .map(|i| format!("{i:04}{}", "x".repeat(36)))
        .collect();
    let mut hset = vec!["HSET".to_string(), "big".into()];
    for m in &members {
        hset.extend([m.clone(), "v".repeat(100)]);
    }
    let args: Vec<&str> = hset.iter().map(String::as_str).collect();
    c.cmd(&args);
    assert_eq!(
        c.cmd(&["OBJECT", "ENCODING", "big"]),
        Value::bulk("hashtable")
    );
    let mut rpush = vec!["RPUSH", "src"];
    rpush.extend(members.iter().rev().map(String::as_str));
    c.cmd(&rpush);
    assert_eq!(
        c.cmd(&["SORT", "src", "ALPHA", "STORE", "big"]),
        Value::Int(300)
    );
    assert_eq!(
        c.cmd(&["OBJECT", "ENCODING", "big"]),
        Value::bulk("quicklist")
    );
    let want: Vec<&str> = members.iter().map(String::as_str).collect();
    assert_eq!(c.cmd(&["LRANGE", "big", "0", "-1"]), bulks(&want));
    common::model::assert_chunks_whole(&server);
    assert_eq!(
        c.cmd(&["SORT", "src", "ALPHA", "LIMIT", "0", "3", "STORE", "big"]),
        Value::Int(3)
    );
    assert_eq!(
        c.cmd(&["OBJECT", "ENCODING", "big"]),
        Value::bulk("listpack")
    );
    common::model::assert_chunks_whole(&server);
}

#[test]
fn store_wakes_a_client_blocked_on_the_destination() {
    let server = start();
    let mut c = Client::connect(&server);
    let mut waiting = Client::connect(&server);
    c.cmd(&["RPUSH", "l", "2", "1"]);
    waiting.send(&[b"BLPOP", b"d", b"5"]);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(c.cmd(&["SORT", "l", "STORE", "d"]), Value::Int(2));
    assert_eq!(waiting.read(), bulks(&["d", "1"]));
    assert_eq!(c.cmd(&["LRANGE", "d", "0", "-1"]), bulks(&["2"]));
}

#[test]
fn acl_needs_every_key_readable_for_by_and_get() {
    let server = start();
    let mut admin = Client::connect(&server);
    setup(&mut admin);
    let rules = ["ACL", "SETUSER", "u", "on", "nopass", "+@all", "~l", "~d"];
    assert_eq!(admin.cmd(&rules), Value::ok());
    let mut u = Client::connect(&server);
    assert_eq!(u.cmd(&["AUTH", "u", "x"]), Value::ok());
    assert_eq!(
        u.cmd(&["SORT", "l", "BY", "w_*"]),
        err("ERR BY option of SORT denied due to insufficient ACL permissions.")
    );
    let get_denied = err("ERR GET option of SORT denied due to insufficient ACL permissions.");
    assert_eq!(u.cmd(&["SORT", "l", "GET", "#"]), get_denied);
    assert_eq!(
        u.cmd(&["SORT", "l", "BY", "nosort"]),
        bulks(&["3", "1", "10", "2"])
    );
    assert_eq!(u.cmd(&["SORT", "l", "STORE", "d"]), Value::Int(4));
    let noperm = err("NOPERM No permissions to access a key");
    assert_eq!(u.cmd(&["SORT", "l", "STORE", "other"]), noperm);
    assert_eq!(u.cmd(&["SORT", "w_1"]), noperm);
    // Reading every key is enough, even without writing any.
    let rules = [
        "ACL", "SETUSER", "r", "on", "nopass", "+@all", "%R~*", "%W~d",
    ];
    assert_eq!(admin.cmd(&rules), Value::ok());
    assert_eq!(u.cmd(&["AUTH", "r", "x"]), Value::ok());
    assert_eq!(
        u.cmd(&["SORT_RO", "l", "BY", "w_*", "GET", "#"]),
        bulks(&["10", "3", "2", "1"])
    );
    assert_eq!(u.cmd(&["SORT", "l", "STORE", "l"]), noperm);
}

#[test]
fn keys_as_command_getkeys_and_info_report_them() {
    let server = start();
    let mut c = Client::connect(&server);
    let getkeys = |c: &mut Client, args: &[&str]| {
        let mut line = vec!["COMMAND", "GETKEYS"];
        line.extend(args);
        c.cmd(&line)
    };
    assert_eq!(
        getkeys(&mut c, &["sort", "abc", "store", "def"]),
        bulks(&["abc", "def"])
    );
    let several = [
        "sort", "abc", "store", "invalid", "store", "stillbad", "store", "def",
    ];
    assert_eq!(getkeys(&mut c, &several), bulks(&["abc", "def"]));
    let skipped = ["sort", "abc", "get", "store", "limit", "store", "1"];
    assert_eq!(getkeys(&mut c, &skipped), bulks(&["abc"]));
    assert_eq!(
        getkeys(&mut c, &["sort_ro", "abc", "get", "x"]),
        bulks(&["abc"])
    );
    assert_eq!(
        getkeys(&mut c, &["lcs", "a", "b", "len"]),
        bulks(&["a", "b"])
    );
    let info = c.cmd(&["COMMAND", "INFO", "sort", "sort_ro", "lcs"]);
    let rows = info.array();
    let flags =
        |row: &Value| -> Vec<String> { row.array()[2].array().iter().map(Value::text).collect() };
    assert_eq!(flags(&rows[0]), ["write", "denyoom", "movablekeys"]);
    assert_eq!(flags(&rows[1]), ["readonly", "movablekeys"]);
    assert_eq!(flags(&rows[2]), ["readonly"]);
    assert_eq!(&rows[2].array()[1..2], &[Value::Int(-3)]);
    assert_eq!(
        &rows[2].array()[3..6],
        &[Value::Int(1), Value::Int(2), Value::Int(1)]
    );
    let categories: Vec<String> = rows[0].array()[6].array().iter().map(Value::text).collect();
    assert_eq!(
        categories,
        [
            "@write",
            "@set",
            "@sortedset",
            "@list",
            "@slow",
            "@dangerous"
        ]
    );
}

#[test]
fn scripts_sort_a_set_kept_in_its_order_and_transactions_run_it() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SADD", "s", "c", "a", "b", "10"]);
    let script = "return redis.call('sort', KEYS[1], 'by', 'nosort', 'desc')";
    assert_eq!(
        c.cmd(&["EVAL", script, "1", "s"]),
        bulks(&["c", "b", "a", "10"])
    );
    c.cmd(&["ZADD", "z", "1", "a", "5", "b", "2", "c"]);
    let zscript = "return redis.call('sort_ro', KEYS[1], 'by', 'nosort', 'desc')";
    assert_eq!(
        c.cmd(&["EVAL_RO", zscript, "1", "z"]),
        bulks(&["b", "c", "a"])
    );
    c.cmd(&["MSET", "w_a", "3", "w_b", "1", "w_c", "2"]);
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    c.cmd(&["SORT", "z", "BY", "w_*", "GET", "w_*"]);
    c.cmd(&["SORT", "z", "BY", "w_*", "STORE", "d"]);
    c.cmd(&["LCS", "w_a", "w_b", "LEN"]);
    let replies = c.cmd(&["EXEC"]);
    let want = Value::Array(vec![bulks(&["1", "2", "3"]), Value::Int(3), Value::Int(0)]);
    assert_eq!(replies, want);
    assert_eq!(c.cmd(&["LRANGE", "d", "0", "-1"]), bulks(&["b", "c", "a"]));
}
