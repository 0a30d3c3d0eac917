//! `OBJECT IDLETIME` over TCP with a manual clock: seconds since the key was
//! last read or written (Redis under a non-LFU policy), untouched by
//! commands Redis runs without touching the key (`TYPE`, `EXISTS`, `TTL`,
//! `OBJECT` itself); `OBJECT FREQ` keeps Redis's non-LFU error. `TOUCH`
//! is an access that reads no value.

use crate::common;

use common::{start, Client, Value};

#[test]
fn idletime_follows_reads_and_writes() {
    let server = start();
    let mut c = Client::connect(&server);
    let idle = |c: &mut Client, key: &str| c.cmd(&["OBJECT", "IDLETIME", key]);
    assert_eq!(idle(&mut c, "k"), Value::Null);
    c.cmd(&["SET", "k", "v"]);
    assert_eq!(idle(&mut c, "k"), Value::Int(0));
    server.clock.advance_ms(5_000);
    for cmd in [&["TYPE", "k"][..], &["EXISTS", "k"], &["TTL", "k"]] {
        c.cmd(cmd);
    }
    assert_eq!(idle(&mut c, "k"), Value::Int(5));
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("v"));
    assert_eq!(idle(&mut c, "k"), Value::Int(0));
    server.clock.advance_ms(3_000);
    assert_eq!(idle(&mut c, "k"), Value::Int(3));
    // EXPIRE and a write count as accesses.
    c.cmd(&["EXPIRE", "k", "100"]);
    assert_eq!(idle(&mut c, "k"), Value::Int(0));
    server.clock.advance_ms(2_000);
    c.cmd(&["APPEND", "k", "w"]);
    assert_eq!(idle(&mut c, "k"), Value::Int(0));
    // Collections: a read of a field is an access.
    c.cmd(&["HSET", "h", "f", "1"]);
    server.clock.advance_ms(7_000);
    assert_eq!(idle(&mut c, "h"), Value::Int(7));
    c.cmd(&["HGET", "h", "f"]);
    assert_eq!(idle(&mut c, "h"), Value::Int(0));
    let freq = c.cmd(&["OBJECT", "FREQ", "h"]);
    assert!(
        freq.text()
            .contains("An LFU maxmemory policy is not selected"),
        "{freq:?}"
    );
    // Inside MULTI/EXEC too.
    server.clock.advance_ms(4_000);
    c.cmd(&["MULTI"]);
    c.cmd(&["OBJECT", "IDLETIME", "h"]);
    c.cmd(&["HGET", "h", "f"]);
    c.cmd(&["OBJECT", "IDLETIME", "h"]);
    let replies = c.cmd(&["EXEC"]);
    assert_eq!(replies.array()[0], Value::Int(4));
    assert_eq!(replies.array()[2], Value::Int(0));
}

/// The `keyspace_hits` and `keyspace_misses` of `INFO stats`.
fn hits_and_misses(c: &mut Client) -> (u64, u64) {
    let info = c.cmd(&["INFO", "stats"]).text();
    let field = |name: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}:")))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {info}"))
    };
    (field("keyspace_hits"), field("keyspace_misses"))
}

#[test]
fn touch_counts_existing_keys_and_resets_their_idle_time() {
    let server = start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "k", "v"]);
    c.cmd(&["RPUSH", "l", "a"]);
    server.clock.advance_ms(6_000);
    let before = hits_and_misses(&mut c);
    assert_eq!(c.cmd(&["TOUCH", "k", "missing", "k"]), Value::Int(2));
    let after = hits_and_misses(&mut c);
    assert_eq!((after.0 - before.0, after.1 - before.1), (2, 1));
    assert_eq!(c.cmd(&["OBJECT", "IDLETIME", "k"]), Value::Int(0));
    assert_eq!(c.cmd(&["OBJECT", "IDLETIME", "l"]), Value::Int(6));
    assert_eq!(c.cmd(&["TOUCH", "l"]), Value::Int(1));
    assert_eq!(c.cmd(&["OBJECT", "IDLETIME", "l"]), Value::Int(0));
    // Inside MULTI/EXEC, and on no key at all.
    server.clock.advance_ms(2_000);
    c.cmd(&["MULTI"]);
    c.cmd(&["TOUCH", "k"]);
    c.cmd(&["OBJECT", "IDLETIME", "k"]);
    let replies = c.cmd(&["EXEC"]);
    assert_eq!(replies.array(), &[Value::Int(1), Value::Int(0)]);
    assert_eq!(
        c.cmd(&["TOUCH"]),
        Value::err("ERR wrong number of arguments for 'touch' command")
    );
}

#[test]
fn no_touch_clients_leave_idle_times_alone_but_touch() {
    let server = start();
    let mut c = Client::connect(&server);
    let idle = |c: &mut Client| c.cmd(&["OBJECT", "IDLETIME", "k"]);
    c.cmd(&["SET", "k", "v"]);
    server.clock.advance_ms(10_000);
    assert_eq!(c.cmd(&["CLIENT", "NO-TOUCH", "on"]), Value::ok());
    assert!(c.cmd(&["CLIENT", "INFO"]).text().contains(" flags=T "));
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("v"));
    assert_eq!(c.cmd(&["EXPIRE", "k", "100"]), Value::Int(1));
    assert_eq!(
        idle(&mut c),
        Value::Int(10),
        "reads and EXPIRE touched nothing"
    );
    assert_eq!(c.cmd(&["TOUCH", "k"]), Value::Int(1));
    assert_eq!(idle(&mut c), Value::Int(0), "TOUCH still touches");
    server.clock.advance_ms(5_000);
    // Another client's read counts as before.
    let mut other = Client::connect(&server);
    assert_eq!(other.cmd(&["GET", "k"]), Value::bulk("v"));
    assert_eq!(idle(&mut c), Value::Int(0));
    server.clock.advance_ms(5_000);
    assert_eq!(c.cmd(&["CLIENT", "NO-TOUCH", "off"]), Value::ok());
    c.cmd(&["GET", "k"]);
    assert_eq!(idle(&mut c), Value::Int(0));
    assert_eq!(
        c.cmd(&["CLIENT", "NO-TOUCH", "maybe"]),
        Value::err("ERR syntax error")
    );
}
