//! Redis's `SHUTDOWN` from a client: refused with Redis's errors where it
//! must be (inside `MULTI`, `ABORT`, conflicting options, `SAVE` with
//! nowhere to save), and otherwise the server stops as on SIGTERM: no
//! reply, the connection closes, exit code 0, and everything acknowledged
//! is there after a restart, even in `async` mode, whose unsynced tail a
//! kill would lose. `SAVE` checkpoints first: the restart loads the keys
//! from the snapshot rather than the log.

use crate::crash;

use std::time::Duration;

use crash::recovered::info_section;
use crash::resp::{Reply, RespConn};
use crash::server::DurableServer;
use crash::DataDir;

const EXIT_WITHIN: Duration = Duration::from_secs(20);

fn set_keys(conn: &mut RespConn, range: std::ops::Range<u32>) {
    for i in range {
        let (key, value) = (format!("k{i}"), format!("v{i}"));
        let reply = conn.call(&[b"SET", key.as_bytes(), value.as_bytes()]);
        assert_eq!(reply.unwrap(), Reply::ok(), "SET {key}");
    }
}

/// Sends `SHUTDOWN` with `options` and checks the connection closes
/// without a reply and the server exits with code 0.
fn shut_down(server: &mut DurableServer, options: &[&[u8]]) {
    let mut conn = RespConn::connect(server.resp()).expect("connect");
    let mut args: Vec<&[u8]> = vec![b"SHUTDOWN"];
    args.extend_from_slice(options);
    let reply = conn.call(&args);
    assert!(reply.is_err(), "SHUTDOWN answered {reply:?}");
    let status = server.wait_exit(EXIT_WITHIN, "SHUTDOWN");
    assert!(
        status.success(),
        "exit {status:?}; log:\n{}",
        server.log_tail()
    );
}

fn error(conn: &mut RespConn, args: &[&[u8]]) -> String {
    match conn.call(args).expect("reply") {
        Reply::Error(e) => e,
        other => panic!("{args:?} answered {other:?}"),
    }
}

fn check_keys(server: &DurableServer, upto: u32, loaded_from_snapshot: &str) {
    let mut conn = RespConn::connect(server.resp()).expect("connect");
    for i in 0..upto {
        assert_eq!(
            conn.get_value(&format!("k{i}")),
            Some(format!("v{i}").into_bytes()),
            "k{i}"
        );
    }
    let persistence = info_section(server.resp(), "persistence");
    assert_eq!(
        persistence
            .get("rdb_last_load_keys_loaded")
            .map(String::as_str),
        Some(loaded_from_snapshot),
        "{persistence:?}"
    );
}

#[test]
fn shutdown_stops_cleanly_and_keeps_every_acknowledged_write() {
    let dir = DataDir::new("shutdown");
    let options: Vec<String> = ["--persistence", "async", "--sync-interval", "5s"]
        .map(String::from)
        .to_vec();
    let mut server = DurableServer::start(dir.path(), &options);
    let mut conn = RespConn::connect(server.resp()).expect("connect");
    set_keys(&mut conn, 0..200);
    assert_eq!(
        error(&mut conn, &[b"SHUTDOWN", b"ABORT"]),
        "ERR No shutdown in progress."
    );
    for bad in [
        &[b"SAVE".as_slice(), b"NOSAVE"][..],
        &[b"ABORT", b"NOW"],
        &[b"LATER"],
    ] {
        let mut args: Vec<&[u8]> = vec![b"SHUTDOWN"];
        args.extend_from_slice(bad);
        assert_eq!(error(&mut conn, &args), "ERR syntax error", "{bad:?}");
    }
    assert_eq!(conn.call(&[b"MULTI"]).unwrap(), Reply::ok());
    assert_eq!(
        error(&mut conn, &[b"SHUTDOWN"]),
        "ERR Command not allowed inside a transaction"
    );
    assert!(error(&mut conn, &[b"EXEC"]).starts_with("EXECABORT"));
    // Still serving after every refusal.
    assert_eq!(conn.get_value("k7"), Some(b"v7".to_vec()));

    shut_down(&mut server, &[]);
    let mut server = DurableServer::start(dir.path(), &options);
    check_keys(&server, 200, "0");

    let mut conn = RespConn::connect(server.resp()).expect("connect");
    set_keys(&mut conn, 200..300);
    shut_down(&mut server, &[b"now", b"save"]);
    let server = DurableServer::start(dir.path(), &options);
    check_keys(&server, 300, "300");
}

#[test]
fn shutdown_save_without_persistence_is_refused_unless_forced() {
    let dir = DataDir::new("shutdown-off");
    let options: Vec<String> = ["--persistence", "off"].map(String::from).to_vec();
    let mut server = DurableServer::start(dir.path(), &options);
    let mut conn = RespConn::connect(server.resp()).expect("connect");
    assert_eq!(
        error(&mut conn, &[b"SHUTDOWN", b"SAVE"]),
        "ERR Errors trying to SHUTDOWN. Check logs."
    );
    assert_eq!(conn.call(&[b"PING"]).unwrap(), Reply::Simple("PONG".into()));
    shut_down(&mut server, &[b"SAVE", b"FORCE"]);
}

/// A server whose keyspace a script that wrote holds forever (past the
/// busy threshold), and a connection to it.
fn held_by_an_unkillable_script(name: &str) -> (DataDir, DurableServer, RespConn) {
    let dir = DataDir::new(name);
    let options: Vec<String> = ["--persistence", "async"].map(String::from).to_vec();
    let server = DurableServer::start(dir.path(), &options);
    let mut admin = RespConn::connect(server.resp()).expect("connect");
    let threshold = admin.call(&[b"CONFIG", b"SET", b"busy-reply-threshold", b"100"]);
    assert_eq!(threshold.unwrap(), Reply::ok());
    let mut runner = RespConn::connect(server.resp()).expect("connect");
    let script: &[u8] = b"redis.call('SET', 'w', 1) while true do end";
    runner
        .send(&[vec![b"EVAL".to_vec(), script.to_vec(), b"0".to_vec()]])
        .expect("send EVAL");
    // Past the threshold every other command is answered BUSY (before the
    // script starts, GET answers; under the threshold it waits).
    let deadline = std::time::Instant::now() + EXIT_WITHIN;
    loop {
        match admin.call(&[b"GET", b"w"]).expect("reply") {
            Reply::Error(e) if e.starts_with("BUSY") => break,
            other => assert!(
                std::time::Instant::now() < deadline,
                "never busy: {other:?}"
            ),
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    std::mem::forget(runner); // its reply never comes
    (dir, server, admin)
}

#[test]
fn shutdown_nosave_ends_a_server_held_by_an_unkillable_script() {
    let (_dir, mut server, mut admin) = held_by_an_unkillable_script("shutdown-busy");
    // A plain SHUTDOWN is answered BUSY, as any other command.
    assert!(error(&mut admin, &[b"SHUTDOWN"]).starts_with("BUSY"));
    shut_down(&mut server, &[b"NOSAVE"]);
}

#[test]
fn a_second_sigterm_ends_a_stop_that_waits_for_a_script() {
    let (_dir, mut server, _admin) = held_by_an_unkillable_script("sigterm-busy");
    // The clean stop waits for the script, as Redis's does...
    server.signal(rustix::process::Signal::TERM);
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        server.is_running(),
        "stopped with the script holding the keyspace"
    );
    // ... and a second signal ends it at once.
    server.signal(rustix::process::Signal::TERM);
    let status = server.wait_exit(EXIT_WITHIN, "a second SIGTERM");
    assert_eq!(status.code(), Some(1), "log:\n{}", server.log_tail());
}
