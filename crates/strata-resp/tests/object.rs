//! `OBJECT IDLETIME` over TCP with a manual clock: seconds since the key was
//! last read or written (Redis under a non-LFU policy), untouched by
//! commands Redis runs without touching the key (`TYPE`, `EXISTS`, `TTL`,
//! `OBJECT` itself); `OBJECT FREQ` keeps Redis's non-LFU error.

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
