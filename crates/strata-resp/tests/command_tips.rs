//! `COMMAND INFO`'s tips (Redis 7's routing hints for cluster clients)
//! compared with a real redis-server 7.0 for every command and
//! subcommand Strata has, in RESP2 and RESP3, with the rest of each
//! RESP2 entry, but for the tips Redis 7.2 (the version Strata reports)
//! changed, which are checked against 7.2's command table
//! ([`TIPS_72`]); and `COMMAND DOCS`, which carries no tips in 7.0.

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

/// The tips Redis 7.2 gives where 7.0's differ (from 7.2's
/// `src/commands/*.json`).
const TIPS_72: &[(&str, &[&str])] = &[
    ("acl|deluser", ALL_SUCCEEDED),
    ("acl|save", ALL_SUCCEEDED),
    ("acl|setuser", ALL_SUCCEEDED),
    ("client|setname", ALL_SUCCEEDED),
    ("config|resetstat", ALL_SUCCEEDED),
    ("config|rewrite", ALL_SUCCEEDED),
    (
        "latency|reset",
        &["request_policy:all_nodes", "response_policy:agg_sum"],
    ),
    ("msetnx", &[]),
    (
        "randomkey",
        &[
            "request_policy:all_shards",
            "response_policy:special",
            "nondeterministic_output",
        ],
    ),
    (
        "scan",
        &[
            "nondeterministic_output",
            "request_policy:special",
            "response_policy:special",
        ],
    ),
];

const ALL_SUCCEEDED: &[&str] = &["request_policy:all_nodes", "response_policy:all_succeeded"];

/// Redis 7.2's tips of `name` where they differ from 7.0's.
fn tips_72(name: &str) -> Option<Vec<String>> {
    let (_, tips) = TIPS_72.iter().find(|(n, _)| *n == name)?;
    Some(tips.iter().map(|t| t.to_string()).collect())
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
            let want = tips_72(name).unwrap_or(want);
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
        let mut want = info(&mut redis);
        if let (Some(tips), Value::Array(entries)) = (tips_72(name), &mut want) {
            if let Some(Value::Array(entry)) = entries.first_mut() {
                entry[7] = Value::Array(tips.iter().map(|t| Value::bulk(t)).collect());
            }
        }
        assert_eq!(info(&mut strata), want, "{name}");
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
