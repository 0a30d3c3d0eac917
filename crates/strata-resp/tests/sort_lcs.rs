//! `SORT`, `SORT_RO` and `LCS` over TCP: the orders, patterns, weights,
//! limits and error texts Redis 7.2 answers (its documentation and its
//! own tests, `tests/unit/sort.tcl` and `tests/unit/type/string.tcl`).
//! `STORE`, ACLs, scripts, transactions and `COMMAND GETKEYS` are in
//! `sort_lcs_store.rs`; the random comparison with a real Redis is
//! `sort_lcs_diff.rs`.

use crate::common;

use common::{bulks, start, Client, Value};

fn err(text: &str) -> Value {
    Value::err(text)
}

fn ints(items: &[i64]) -> Value {
    Value::Array(items.iter().map(|&n| Value::Int(n)).collect())
}

/// A list to sort, weights (`w_*`) and hashes (`o_*`) for `BY` and `GET`.
pub(crate) fn setup(c: &mut Client) {
    c.cmd(&["RPUSH", "l", "3", "1", "10", "2"]);
    c.cmd(&["MSET", "w_1", "4", "w_2", "3", "w_3", "2", "w_10", "1"]);
    c.cmd(&["HSET", "o_1", "f", "b"]);
    c.cmd(&["HSET", "o_3", "f", "a"]);
    c.cmd(&["HSET", "o_10", "f", "c"]);
}

#[test]
fn sorts_numbers_words_and_by_patterns() {
    let server = start();
    let mut c = Client::connect(&server);
    setup(&mut c);
    assert_eq!(c.cmd(&["SORT", "l"]), bulks(&["1", "2", "3", "10"]));
    assert_eq!(c.cmd(&["SORT", "l", "DESC"]), bulks(&["10", "3", "2", "1"]));
    assert_eq!(
        c.cmd(&["SORT", "l", "ALPHA"]),
        bulks(&["1", "10", "2", "3"])
    );
    assert_eq!(c.cmd(&["SORT", "l", "LIMIT", "1", "2"]), bulks(&["2", "3"]));
    assert_eq!(
        c.cmd(&["SORT", "l", "BY", "w_*"]),
        bulks(&["10", "3", "2", "1"])
    );
    // A missing field sorts first with ALPHA.
    let by_field = c.cmd(&["SORT", "l", "BY", "o_*->f", "ALPHA"]);
    assert_eq!(by_field, bulks(&["2", "3", "1", "10"]));
    let got = c.cmd(&[
        "SORT", "l", "BY", "w_*", "GET", "#", "GET", "o_*->f", "GET", "nokey",
    ]);
    let b = |s: &str| Value::bulk(s);
    let want = [
        [b("10"), b("c"), Value::Null],
        [b("3"), b("a"), Value::Null],
        [b("2"), Value::Null, Value::Null],
        [b("1"), b("b"), Value::Null],
    ];
    assert_eq!(got, Value::Array(want.concat()));
    // Native order, reversed by DESC, cut by LIMIT.
    assert_eq!(
        c.cmd(&["SORT", "l", "BY", "nosort"]),
        bulks(&["3", "1", "10", "2"])
    );
    let cut = c.cmd(&["SORT", "l", "BY", "nosort", "DESC", "LIMIT", "1", "2"]);
    assert_eq!(cut, bulks(&["10", "1"]));
    c.cmd(&[
        "ZADD", "z", "1", "a", "5", "b", "2", "c", "10", "d", "3", "e",
    ]);
    assert_eq!(
        c.cmd(&["SORT", "z", "BY", "nosort"]),
        bulks(&["a", "c", "e", "b", "d"])
    );
    assert_eq!(
        c.cmd(&["SORT", "z", "BY", "nosort", "DESC"]),
        bulks(&["d", "b", "e", "c", "a"])
    );
    assert_eq!(
        c.cmd(&["SORT", "z", "BY", "nosort", "DESC", "LIMIT", "0", "2"]),
        bulks(&["d", "b"])
    );
    assert_eq!(
        c.cmd(&["SORT", "z", "BY", "nosort", "LIMIT", "5", "10"]),
        bulks(&[])
    );
    assert_eq!(
        c.cmd(&["SORT", "z", "ALPHA", "DESC"]),
        bulks(&["e", "d", "c", "b", "a"])
    );
    // Equal weights go by the elements; an arrow at the end is part of the key.
    c.cmd(&["SADD", "s", "b", "a", "c"]);
    assert_eq!(
        c.cmd(&["SORT", "s", "BY", "same_*"]),
        bulks(&["a", "b", "c"])
    );
    c.cmd(&["SET", "x:a->", "100"]);
    assert_eq!(
        c.cmd(&["SORT_RO", "s", "BY", "nosort", "GET", "x:*->", "LIMIT", "0", "1"])
            .array()
            .len(),
        1
    );
    // A missing key sorts as an empty list.
    assert_eq!(
        c.cmd(&["SORT", "nosuch", "BY", "w_*", "GET", "#"]),
        bulks(&[])
    );
}

#[test]
fn weights_are_read_as_strtod_reads_them() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["RPUSH", "l", "0x10", " 3", "1e1", "inf", "-inf", "2.5", ""]);
    let sorted = bulks(&["-inf", "", "2.5", " 3", "1e1", "0x10", "inf"]);
    assert_eq!(c.cmd(&["SORT", "l"]), sorted);
    let not_double = err("ERR One or more scores can't be converted into double");
    for bad in ["3 ", "nan", "1e400", "1e-400", "abc", "0x"] {
        c.cmd(&["DEL", "m"]);
        c.cmd(&["RPUSH", "m", "1", bad]);
        assert_eq!(c.cmd(&["SORT", "m"]), not_double, "{bad:?}");
        // Nothing is stored then.
        assert_eq!(c.cmd(&["SORT", "m", "STORE", "d"]), not_double);
        assert_eq!(c.cmd(&["EXISTS", "d"]), Value::Int(0));
    }
    c.cmd(&["SET", "w_1", "x"]);
    assert_eq!(c.cmd(&["SORT", "m", "BY", "w_*"]), not_double);
    assert_eq!(c.cmd(&["SORT", "m", "BY", "w_*", "ALPHA"]).array().len(), 2);
}

#[test]
fn refusals_as_redis_words_them() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "str", "x"]);
    c.cmd(&["RPUSH", "l", "1"]);
    assert_eq!(
        c.cmd(&["SORT"]),
        err("ERR wrong number of arguments for 'sort' command")
    );
    assert_eq!(c.cmd(&["SORT", "l", "LIMIT", "1"]), err("ERR syntax error"));
    assert_eq!(c.cmd(&["SORT", "l", "BOGUS"]), err("ERR syntax error"));
    assert_eq!(
        c.cmd(&["SORT_RO", "l", "STORE", "d"]),
        err("ERR syntax error")
    );
    let not_int = err("ERR value is not an integer or out of range");
    assert_eq!(c.cmd(&["SORT", "l", "LIMIT", "0", "x"]), not_int);
    // Options are checked before the key's type.
    assert_eq!(c.cmd(&["SORT", "str", "BOGUS"]), err("ERR syntax error"));
    let wrongtype = err("WRONGTYPE Operation against a key holding the wrong kind of value");
    assert_eq!(c.cmd(&["SORT", "str"]), wrongtype);
    assert_eq!(c.cmd(&["SORT_RO", "str", "BY", "nosort"]), wrongtype);
    // The destination's type does not matter.
    assert_eq!(c.cmd(&["SORT", "l", "STORE", "str"]), Value::Int(1));
    assert_eq!(c.cmd(&["LRANGE", "str", "0", "-1"]), bulks(&["1"]));
}

#[test]
fn limits_past_the_elements_cost_nothing() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["RPUSH", "L", "2", "1", "0"]);
    c.cmd(&["ZADD", "Z", "1", "a", "2", "b"]);
    let max = "9223372036854775807";
    let min = "-9223372036854775808";
    assert_eq!(
        c.cmd(&["SORT_RO", "L", "BY", "a", "LIMIT", "2", max]),
        bulks(&["0"])
    );
    assert_eq!(c.cmd(&["SORT", "L", "LIMIT", max, max]), bulks(&[]));
    assert_eq!(
        c.cmd(&["SORT", "L", "LIMIT", min, max]),
        bulks(&["0", "1", "2"])
    );
    assert_eq!(c.cmd(&["SORT", "L", "LIMIT", "1", min]), bulks(&["1", "2"]));
    assert_eq!(
        c.cmd(&["SORT", "Z", "BY", "x", "DESC", "LIMIT", "1", max]),
        bulks(&["a"])
    );
    let huge = c.cmd(&[
        "SORT", "L", "LIMIT", "0", max, "GET", "#", "GET", "#", "STORE", "d",
    ]);
    assert_eq!(huge, Value::Int(6));
}

#[test]
fn lcs_replies_in_resp2_and_resp3() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["MSET", "key1", "ohmytext", "key2", "mynewtext"]);
    assert_eq!(c.cmd(&["LCS", "key1", "key2"]), Value::bulk("mytext"));
    assert_eq!(c.cmd(&["LCS", "key1", "key2", "LEN"]), Value::Int(6));
    assert_eq!(c.cmd(&["LCS", "key1", "nosuch"]), Value::bulk(""));
    let ranges = |a: [i64; 2], b: [i64; 2], len: Option<i64>| {
        let mut row = vec![ints(&a), ints(&b)];
        row.extend(len.map(Value::Int));
        Value::Array(row)
    };
    let idx = c.cmd(&[
        "LCS",
        "key1",
        "key2",
        "IDX",
        "MINMATCHLEN",
        "4",
        "WITHMATCHLEN",
    ]);
    let matches = Value::Array(vec![ranges([4, 7], [5, 8], Some(4))]);
    let flat = vec![
        Value::bulk("matches"),
        matches.clone(),
        Value::bulk("len"),
        Value::Int(6),
    ];
    assert_eq!(idx, Value::Array(flat));
    c.cmd(&["HELLO", "3"]);
    let idx = c.cmd(&["LCS", "key1", "key2", "IDX"]);
    let all = Value::Array(vec![
        ranges([4, 7], [5, 8], None),
        ranges([2, 3], [0, 1], None),
    ]);
    let map = vec![
        (Value::bulk("matches"), all),
        (Value::bulk("len"), Value::Int(6)),
    ];
    assert_eq!(idx, Value::Map(map));
    c.cmd(&["RPUSH", "l", "x"]);
    assert_eq!(
        c.cmd(&["LCS", "key1", "l"]),
        err("ERR The specified keys must contain string values")
    );
    // The keys' types are checked before the options.
    assert_eq!(
        c.cmd(&["LCS", "l", "key1", "BOGUS"]),
        err("ERR The specified keys must contain string values")
    );
    assert_eq!(
        c.cmd(&["LCS", "key1", "key2", "BOGUS"]),
        err("ERR syntax error")
    );
    assert_eq!(
        c.cmd(&["LCS", "key1", "key2", "LEN", "IDX"]),
        err("ERR If you want both the length and indexes, please just use IDX.")
    );
    assert_eq!(
        c.cmd(&["LCS", "key1"]),
        err("ERR wrong number of arguments for 'lcs' command")
    );
    // RESP3's null for a GET that finds nothing.
    c.cmd(&["RPUSH", "n", "1"]);
    assert_eq!(
        c.cmd(&["SORT", "n", "GET", "nokey"]),
        Value::Array(vec![Value::Null])
    );
}

/// The table's bound, compared with a real Redis: refused past
/// `proto-max-bulk-len`, answered below it.
#[test]
fn lcs_table_is_bounded_by_proto_max_bulk_len() {
    let peer = common::peer::require_redis();
    let server = start();
    let mut redis = peer.client();
    let mut strata = Client::connect(&server);
    let a = "ab".repeat(300);
    let b = "ba".repeat(300);
    for c in [&mut redis, &mut strata] {
        assert_eq!(
            c.cmd(&["CONFIG", "SET", "proto-max-bulk-len", "1mb"]),
            Value::ok()
        );
        c.cmd(&["MSET", "a", &a, "b", &b, "short", "xy"]);
    }
    for line in [
        &["LCS", "a", "b", "LEN"][..],
        &["LCS", "a", "b", "IDX", "BOGUS"],
        &["LCS", "a", "short", "IDX", "WITHMATCHLEN"],
        &["LCS", "short", "a"],
    ] {
        let want = redis.cmd(line);
        assert_eq!(strata.cmd(line), want, "{line:?}");
    }
    assert_eq!(
        strata.cmd(&["LCS", "a", "b"]),
        err("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len")
    );
}

/// Large encodings (a quicklist, a hashtable set, a skiplist sorted set,
/// hashtable hashes) read the same as packed ones.
#[test]
fn large_collections_and_hashes_sort_as_small_ones() {
    let server = start();
    let mut c = Client::connect(&server);
    for (name, value) in [
        ("list-max-listpack-size", "4"),
        ("set-max-intset-entries", "4"),
        ("set-max-listpack-entries", "4"),
        ("zset-max-listpack-entries", "4"),
        ("hash-max-listpack-entries", "4"),
    ] {
        assert_eq!(c.cmd(&["CONFIG", "SET", name, value]), Value::ok());
    }
    let numbers: Vec<String> = (0..40).map(|i| ((i * 17) % 40).to_string()).collect();
    let mut sorted: Vec<i64> = numbers.iter().map(|n| n.parse().unwrap()).collect();
    sorted.sort_unstable();
    let sorted: Vec<String> = sorted.iter().map(i64::to_string).collect();
    let sorted: Vec<&str> = sorted.iter().map(String::as_str).collect();
    let mut fill = |cmd: &str, key: &str, scored: bool| {
        let mut line = vec![cmd.to_string(), key.to_string()];
        for n in &numbers {
            if scored {
                line.push(format!("-{n}"));
            }
            line.push(n.clone());
        }
        let args: Vec<&str> = line.iter().map(String::as_str).collect();
        c.cmd(&args);
    };
    fill("RPUSH", "l", false);
    fill("SADD", "s", false);
    fill("ZADD", "z", true);
    for (key, encoding) in [("l", "quicklist"), ("s", "hashtable"), ("z", "skiplist")] {
        assert_eq!(c.cmd(&["OBJECT", "ENCODING", key]), Value::bulk(encoding));
        assert_eq!(c.cmd(&["SORT", key]), bulks(&sorted), "{key}");
        assert_eq!(
            c.cmd(&["SORT", key, "LIMIT", "35", "10"]),
            bulks(&sorted[35..])
        );
    }
    let native: Vec<&str> = numbers.iter().map(String::as_str).collect();
    let cut = c.cmd(&["SORT", "l", "BY", "nosort", "LIMIT", "5", "3", "DESC"]);
    assert_eq!(cut, bulks(&[native[34], native[33], native[32]]));
    // The sorted set's own order: by score, the highest number first.
    let top = c.cmd(&["SORT", "z", "BY", "nosort", "LIMIT", "0", "2"]);
    assert_eq!(top, bulks(&["39", "38"]));
    // Weights and GETs from hashes in the hashtable encoding.
    for (i, key) in ["H1", "H2", "H3"].iter().enumerate() {
        let mut line = vec![
            "HSET".to_string(),
            key.to_string(),
            "w".into(),
            (3 - i).to_string(),
        ];
        for f in 0..10 {
            line.extend([format!("f{f}"), format!("{key}:{f}")]);
        }
        let args: Vec<&str> = line.iter().map(String::as_str).collect();
        c.cmd(&args);
    }
    assert_eq!(
        c.cmd(&["OBJECT", "ENCODING", "H1"]),
        Value::bulk("hashtable")
    );
    c.cmd(&["RPUSH", "names", "H2", "H1", "H3"]);
    let got = c.cmd(&["SORT", "names", "BY", "*->w", "GET", "#", "GET", "*->f7"]);
    assert_eq!(got, bulks(&["H3", "H3:7", "H2", "H2:7", "H1", "H1:7"]));
}
