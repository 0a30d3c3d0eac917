//! `WAITAOF` on a real server: with the command log in `async` mode the
//! reply waits for the log's next sync of the connection's writes (and a
//! kill right after it loses none of them); in `sync` mode it answers at
//! once; with persistence off `numlocal` 1 is refused as Redis refuses it
//! with appendonly off; replicas asked for are waited out to the timeout.

use crate::crash;

use std::time::{Duration, Instant};

use crash::resp::{Reply, RespConn};
use crash::server::DurableServer;
use crash::DataDir;

fn pair(local: i64) -> Reply {
    Reply::Array(Some(vec![Reply::Integer(local), Reply::Integer(0)]))
}

#[test]
fn waitaof_waits_for_the_log_in_async_mode_and_keeps_the_writes() {
    let dir = DataDir::new("waitaof-async");
    let options = ["--persistence", "async", "--sync-interval", "1s"].map(String::from);
    let mut server = DurableServer::start(dir.path(), &options);
    let mut c = RespConn::connect(server.resp()).expect("connect");
    // Nothing written yet: nothing to wait for.
    assert_eq!(c.call(&[b"WAITAOF", b"1", b"0", b"0"]).unwrap(), pair(1));
    for i in 0..50 {
        let key = format!("k{i}");
        assert_eq!(
            c.call(&[b"SET", key.as_bytes(), b"v"]).unwrap(),
            Reply::ok()
        );
    }
    let asked = Instant::now();
    assert_eq!(c.call(&[b"WAITAOF", b"1", b"0", b"0"]).unwrap(), pair(1));
    let waited = asked.elapsed();
    assert!(waited < Duration::from_secs(5), "{waited:?}");
    // What WAITAOF vouched for survives a kill at once.
    server.kill();
    let server = DurableServer::start(dir.path(), &options);
    let mut c = RespConn::connect(server.resp()).expect("connect");
    assert_eq!(c.call(&[b"DBSIZE"]).unwrap(), Reply::Integer(50));
    // Replicas: none, waited out to the timeout.
    let asked = Instant::now();
    assert_eq!(c.call(&[b"WAITAOF", b"0", b"1", b"200"]).unwrap(), pair(1));
    assert!(asked.elapsed() >= Duration::from_millis(180));
    let err = |r: Reply| matches!(r, Reply::Error(_));
    assert!(err(c.call(&[b"WAITAOF", b"2", b"0", b"0"]).unwrap()));
    assert!(err(c.call(&[b"WAITAOF", b"0", b"-1", b"0"]).unwrap()));
}

#[test]
fn waitaof_without_a_log_refuses_numlocal() {
    let dir = DataDir::new("waitaof-off");
    let server = DurableServer::start(dir.path(), &[]);
    let mut c = RespConn::connect(server.resp()).expect("connect");
    c.call(&[b"SET", b"k", b"v"]).unwrap();
    assert_eq!(
        c.call(&[b"WAITAOF", b"1", b"0", b"0"]).unwrap(),
        Reply::Error(
            "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.".into()
        )
    );
    assert_eq!(c.call(&[b"WAITAOF", b"0", b"0", b"0"]).unwrap(), pair(0));
}

#[test]
fn waitaof_answers_at_once_in_sync_mode() {
    let dir = DataDir::new("waitaof-sync");
    let options = ["--persistence", "sync"].map(String::from);
    let server = DurableServer::start(dir.path(), &options);
    let mut c = RespConn::connect(server.resp()).expect("connect");
    c.call(&[b"SET", b"k", b"v"]).unwrap();
    assert_eq!(c.call(&[b"WAITAOF", b"1", b"0", b"0"]).unwrap(), pair(1));
    // Pipelined behind a write not yet synced: it waits for that sync.
    let cmd = |args: &[&str]| args.iter().map(|a| a.as_bytes().to_vec()).collect();
    c.send(&[
        cmd(&["SET", "k2", "v"]),
        cmd(&["WAITAOF", "1", "0", "1000"]),
    ])
    .unwrap();
    assert_eq!(c.read_reply().unwrap(), Reply::ok());
    assert_eq!(c.read_reply().unwrap(), pair(1));
}

#[test]
fn waitaof_answers_what_is_durable_when_its_timeout_passes() {
    let dir = DataDir::new("waitaof-timeout");
    // Synced every 30 s: nothing written here is durable within the test.
    let options = ["--persistence", "async", "--sync-interval", "30s"].map(String::from);
    let server = DurableServer::start(dir.path(), &options);
    let mut c = RespConn::connect(server.resp()).expect("connect");
    assert_eq!(c.call(&[b"SET", b"k", b"v"]).unwrap(), Reply::ok());
    // Nothing asked for: what is durable now, at once.
    let asked = Instant::now();
    assert_eq!(c.call(&[b"WAITAOF", b"0", b"0", b"0"]).unwrap(), pair(0));
    assert!(asked.elapsed() < Duration::from_secs(2));
    // The log asked for: the timeout passes first, and the reply says so.
    let asked = Instant::now();
    assert_eq!(c.call(&[b"WAITAOF", b"1", b"0", b"200"]).unwrap(), pair(0));
    let waited = asked.elapsed();
    assert!(
        waited >= Duration::from_millis(180) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
    // Inside MULTI nothing waits: answered at once with what is durable.
    assert_eq!(c.call(&[b"MULTI"]).unwrap(), Reply::ok());
    c.call(&[b"WAITAOF", b"1", b"0", b"0"]).unwrap();
    let asked = Instant::now();
    assert_eq!(
        c.call(&[b"EXEC"]).unwrap(),
        Reply::Array(Some(vec![pair(0)]))
    );
    assert!(asked.elapsed() < Duration::from_secs(2));
    // A wait without a timeout ends with CLIENT UNBLOCK, as the timeout's.
    let Reply::Integer(id) = c.call(&[b"CLIENT", b"ID"]).unwrap() else {
        panic!("CLIENT ID");
    };
    c.send(&[vec![
        b"WAITAOF".to_vec(),
        b"1".to_vec(),
        b"0".to_vec(),
        b"0".to_vec(),
    ]])
    .unwrap();
    let mut other = RespConn::connect(server.resp()).expect("connect");
    let id = id.to_string();
    let unblocked = (0..100).any(|_| {
        std::thread::sleep(Duration::from_millis(20));
        other.call(&[b"CLIENT", b"UNBLOCK", id.as_bytes()]).unwrap() == Reply::Integer(1)
    });
    assert!(unblocked, "the WAITAOF connection never blocked");
    assert_eq!(c.read_reply().unwrap(), pair(0));
    // A second client's writes are its own: this one has none to wait for.
    assert_eq!(
        other.call(&[b"WAITAOF", b"1", b"0", b"100"]).unwrap(),
        pair(1)
    );
}
