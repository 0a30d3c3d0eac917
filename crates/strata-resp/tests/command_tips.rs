//! `COMMAND INFO`'s tips (Redis 7's routing hints for cluster clients)
//! compared with a real redis-server 7.0 for every command and
//! subcommand Strata has, in RESP2 and RESP3, with the rest of each
//! RESP2 entry; and `COMMAND DOCS`, which carries no tips in 7.0.

use crate::common::peer::require_redis;
use crate::common::{self, Client, Value};

/// Every command and subcommand name Strata lists.
fn names(c: &mut Client) -> Vec<String> {
    c.cmd(&["COMMAND", "LIST"])
        .array()
        .iter()
        .map(Value::text)
        .collect()
}

/// The tips of `name`'s `COMMAND INFO` entry as strings (Redis 7.0 sends
/// an empty RESP3 set and a full array; Strata arrays both), `None` when
/// the command is unknown.
fn tips(c: &mut Client, name: &str) -> Option<Vec<String>> {
    match c.cmd(&["COMMAND", "INFO", name]).array().first()? {
        Value::Array(entry) => match &entry[7] {
            Value::Array(t) | Value::Set(t) => Some(t.iter().map(Value::text).collect()),
            other => panic!("tips of {name}: {other:?}"),
        },
        _ => None,
    }
}

#[test]
fn tips_match_redis_for_every_command() {
    let peer = require_redis();
    let server = common::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    let all = names(&mut strata);
    assert!(all.len() > 300, "{}", all.len());
    for resp in ["2", "3"] {
        for c in [&mut redis, &mut strata] {
            c.cmd(&["HELLO", resp]);
        }
        let (mut compared, mut tipped) = (0, 0);
        for name in &all {
            let Some(want) = tips(&mut redis, name) else {
                continue;
            };
            assert_eq!(
                tips(&mut strata, name),
                Some(want.clone()),
                "{name} RESP{resp}"
            );
            compared += 1;
            tipped += usize::from(!want.is_empty());
        }
        // Redis 7.0 has tips on 88 commands; Strata has all but MIGRATE.
        assert!(compared > 300 && tipped >= 85, "{compared} {tipped}");
    }
}

/// Containers are left out: Redis lists their subcommands in hash order.
#[test]
fn tipped_entries_match_redis_whole() {
    let peer = require_redis();
    let server = common::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    for name in [
        "dbsize",
        "del",
        "keys",
        "scan",
        "ping",
        "info",
        "msetnx",
        "hgetall",
        "config|set",
        "function|stats",
        "slowlog|len",
        "latency|reset",
    ] {
        let info = |c: &mut Client| c.cmd(&["COMMAND", "INFO", name]);
        assert_eq!(info(&mut strata), info(&mut redis), "{name}");
    }
}

#[test]
fn docs_carry_no_tips() {
    let peer = require_redis();
    let server = common::start();
    let (mut redis, mut strata) = (peer.client(), Client::connect(&server));
    for c in [&mut redis, &mut strata] {
        c.cmd(&["HELLO", "3"]);
        let docs = c.cmd(&["COMMAND", "DOCS", "dbsize", "scan", "function"]);
        let Value::Map(entries) = docs else {
            panic!("{docs:?}")
        };
        assert_eq!(entries.len(), 3);
        for (_, doc) in entries {
            let Value::Map(fields) = doc else {
                panic!("{doc:?}")
            };
            assert!(fields.iter().all(|(k, _)| k.text() != "tips"), "{fields:?}");
        }
    }
}
