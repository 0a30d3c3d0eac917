//! The commands about databases and replication a single-database server
//! without replicas still answers (`MOVE`, `SWAPDB`, `WAIT`): the replies
//! below are redis-server 7.0.15's with `--databases 1` for the same
//! commands.

use std::time::{Duration, Instant};

use crate::common::{self, Client, Value};

#[test]
fn move_and_swapdb_answer_as_a_one_database_redis() {
    let server = common::start();
    let mut c = Client::connect(&server);
    c.cmd(&["SET", "k", "v"]);
    let cases: &[(&[&str], Value)] = &[
        (
            &["MOVE", "k", "0"],
            Value::err("ERR source and destination objects are the same"),
        ),
        (
            &["MOVE", "k", "1"],
            Value::err("ERR DB index is out of range"),
        ),
        (
            &["MOVE", "k", "x"],
            Value::err("ERR value is not an integer or out of range"),
        ),
        (
            &["MOVE", "k", "99999999999"],
            Value::err("ERR value is out of range, value must between -2147483648 and 2147483647"),
        ),
        (&["SWAPDB", "0", "0"], Value::ok()),
        (
            &["SWAPDB", "0", "1"],
            Value::err("ERR DB index is out of range"),
        ),
        (
            &["SWAPDB", "x", "0"],
            Value::err("ERR invalid first DB index"),
        ),
        (
            &["SWAPDB", "0", "y"],
            Value::err("ERR invalid second DB index"),
        ),
        (&["WAIT", "0", "0"], Value::Int(0)),
        (
            &["WAIT", "x", "50"],
            Value::err("ERR value is not an integer or out of range"),
        ),
        (
            &["WAIT", "1", "x"],
            Value::err("ERR timeout is not an integer or out of range"),
        ),
        (&["WAIT", "1", "-1"], Value::err("ERR timeout is negative")),
    ];
    for (cmd, want) in cases {
        assert_eq!(&c.cmd(cmd), want, "{cmd:?}");
    }
    assert_eq!(c.cmd(&["GET", "k"]), Value::bulk("v"));
}

#[test]
fn wait_for_a_replica_blocks_until_its_timeout_and_not_in_multi() {
    let server = common::start();
    let mut c = Client::connect(&server);
    let started = Instant::now();
    assert_eq!(c.cmd(&["WAIT", "1", "150"]), Value::Int(0));
    assert!(started.elapsed() >= Duration::from_millis(150));
    // Another connection is served meanwhile: the wait holds no thread.
    let mut waiting = Client::connect(&server);
    waiting.send(&[b"WAIT", b"2", b"0"]);
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
    drop(waiting);
    c.cmd(&["MULTI"]);
    c.cmd(&["WAIT", "1", "0"]);
    let started = Instant::now();
    assert_eq!(c.cmd(&["EXEC"]), Value::Array(vec![Value::Int(0)]));
    assert!(started.elapsed() < Duration::from_secs(2));
}
