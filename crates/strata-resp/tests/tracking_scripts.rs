//! `CLIENT TRACKING` and scripts compared with a real Redis 7.0: a
//! read-only command a script runs remembers, for the caller, the keys
//! the script command declared (not the keys the command names), in the
//! caller's mode (`OPTIN` with `CLIENT CACHING YES`, `OPTOUT` unless `NO`,
//! nothing in `BCAST`), with `NOLOOP`, through `EVAL`, `EVALSHA`,
//! `EVAL_RO`, `FCALL`, `FCALL_RO` and inside `MULTI`; RESP3 pushes and
//! RESP2 messages through a redirect.

use crate::common::peer::require_redis;
use crate::common::{self, Client, Value};
use crate::tracking::{drain, id};

const GET: &str = "return redis.call('get', KEYS[1])";
const LIBRARY: &str = "#!lua name=t\n\
    redis.register_function('g', function(k) return redis.call('get', k[1]) end)\n\
    redis.register_function{function_name='gro', \
    callback=function(k) return redis.call('get', k[1]) end, flags={'no-writes'}}";

/// Each step: the tracking client's commands (words split on `|`), then
/// `b` changes `k`, `j` and `h`, then what the client heard.
const STEPS: &[(&str, &[&str])] = &[
    ("CLIENT|TRACKING|ON", &[]),
    ("default", &["EVAL|GET|1|k"]),
    (
        "another key read",
        &["EVAL|return redis.call('get','j')|1|k"],
    ),
    (
        "no command",
        &["EVAL|return 1|1|k", "EVAL|return redis.call('ping')|1|k"],
    ),
    ("no keys", &["EVAL|return redis.call('get','j')|0"]),
    (
        "write only",
        &["EVAL|redis.call('set','j','x') return 1|1|k"],
    ),
    ("failed read", &["EVAL|return redis.pcall('get','h')|2|k|h"]),
    ("two keys", &["EVAL|return redis.call('exists','zz')|2|j|k"]),
    ("eval_ro", &["EVAL_RO|return 1|1|k", "EVAL_RO|GET|2|k|j"]),
    ("evalsha", &["SCRIPT|LOAD|GET", "EVALSHA|SHA|1|j"]),
    ("fcall", &["FCALL|g|1|k", "FCALL_RO|gro|1|j"]),
    ("multi", &["MULTI", "EVAL|GET|1|k", "GET|j", "EXEC"]),
    (
        "own write",
        &["EVAL|redis.call('get','k') redis.call('set','k','x') return 1|1|k"],
    ),
    (
        "own later write",
        &[
            "EVAL|GET|1|j",
            "EVAL|redis.call('set','j','y') return 1|1|k",
        ],
    ),
    ("CLIENT|TRACKING|ON|NOLOOP", &[]),
    (
        "noloop own write",
        &["EVAL|redis.call('get','k') redis.call('set','k','x') return 1|1|k"],
    ),
    ("noloop other", &["EVAL|GET|1|j"]),
    ("CLIENT|TRACKING|OFF", &[]),
    ("CLIENT|TRACKING|ON|OPTIN", &[]),
    ("optin", &["EVAL|GET|1|k"]),
    (
        "optin yes",
        &[
            "CLIENT|CACHING|YES",
            "EVAL|redis.call('get','k') return redis.call('get','j')|2|k|h",
            "EVAL|GET|1|j",
        ],
    ),
    ("CLIENT|TRACKING|OFF", &[]),
    ("CLIENT|TRACKING|ON|OPTOUT", &[]),
    ("optout", &["EVAL|GET|1|k"]),
    (
        "optout no",
        &["CLIENT|CACHING|NO", "EVAL|GET|1|k", "EVAL|GET|1|j"],
    ),
    ("CLIENT|TRACKING|OFF", &[]),
    ("CLIENT|TRACKING|ON|BCAST|PREFIX|zz", &[]),
    ("bcast", &["EVAL|GET|1|k"]),
    ("CLIENT|TRACKING|OFF", &[]),
];

fn words<'a>(line: &'a str, sha: &'a str) -> Vec<&'a str> {
    line.split('|')
        .map(|w| match w {
            "GET" => GET,
            "SHA" => sha,
            w => w,
        })
        .collect()
}

/// The steps on one server: (step, replies, what the client heard), in
/// RESP3 and then in RESP2 through a redirect.
fn scenario(mut connect: impl FnMut() -> Client) -> Vec<(String, Vec<Value>, Vec<Value>)> {
    let (mut a, mut b, mut r) = (connect(), connect(), connect());
    let sha = b.cmd(&["SCRIPT", "LOAD", GET]).text();
    b.cmd(&["FUNCTION", "LOAD", "REPLACE", LIBRARY]);
    let r_id = id(&mut r);
    r.cmd(&["SUBSCRIBE", "__redis__:invalidate"]);
    let mut heard = Vec::new();
    for resp in ["3", "2"] {
        a.cmd(&["HELLO", resp]);
        for (name, commands) in STEPS {
            let mut name = name.to_string();
            if name.starts_with("CLIENT|TRACKING|ON") && resp == "2" {
                name = format!("{name}|REDIRECT|{r_id}");
            }
            if name.starts_with("CLIENT|") {
                assert_eq!(a.cmd(&words(&name, &sha)), Value::ok(), "{name}");
                continue;
            }
            b.cmd(&["MSET", "k", "1", "j", "1"]);
            b.cmd(&["HSET", "h", "f", "v"]);
            let replies = commands.iter().map(|c| a.cmd(&words(c, &sha))).collect();
            b.cmd(&["SET", "k", "2"]);
            b.cmd(&["SET", "j", "2"]);
            b.cmd(&["HSET", "h", "f", "w"]);
            let mut got = drain(&mut a);
            if resp == "2" {
                got.extend(drain(&mut r));
            }
            heard.push((format!("{name} RESP{resp}"), replies, got));
        }
    }
    heard
}

#[test]
fn script_reads_are_tracked_as_redis_tracks_them() {
    let peer = require_redis();
    let server = common::start();
    let want = scenario(|| peer.client());
    let got = scenario(|| Client::connect(&server));
    for (w, g) in want.iter().zip(&got) {
        assert_eq!(g, w, "step {}", w.0);
    }
    assert_eq!(got.len(), want.len());
    // The steps that must be heard were: default, failed read, eval_ro,
    // fcall, optin yes, ... in both protocols.
    let heard = want.iter().filter(|(_, _, h)| !h.is_empty()).count();
    assert!(heard >= 24, "{heard} {want:?}");
}
