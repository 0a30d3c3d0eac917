//! Lua scripts as bad input over TCP: one that loops forever (BUSY for
//! others, SCRIPT KILL, watches still dropped), one that wrote
//! (UNKILLABLE), one that allocates without bound.

use crate::common;
use crate::scripting::eval;

use std::time::{Duration, Instant};

use common::{start, Client, Value};

#[test]
fn endless_script_makes_others_busy_and_is_killed() {
    let server = start();
    let mut admin = Client::connect(&server);
    admin.cmd(&["CONFIG", "SET", "busy-reply-threshold", "200"]);
    let mut runner = Client::connect(&server);
    runner.send(&[b"EVAL", b"while true do end", b"0"]);
    std::thread::sleep(Duration::from_millis(400));
    let mut other = Client::connect(&server);
    assert_eq!(
        other.cmd(&["GET", "k"]),
        Value::err("BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")
    );
    assert_eq!(admin.cmd(&["SCRIPT", "KILL"]), Value::ok());
    let reply = runner.read().text();
    assert!(
        reply.contains("Script killed by user with SCRIPT KILL"),
        "{reply}"
    );
    assert_eq!(other.cmd(&["GET", "k"]), Value::Null);
    assert_eq!(
        admin.cmd(&["SCRIPT", "KILL"]),
        Value::err("NOTBUSY No scripts in execution right now.")
    );
    // A script that catches errors with pcall still ends.
    runner.send(&[
        b"EVAL",
        b"while true do pcall(function() while true do end end) end",
        b"0",
    ]);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(admin.cmd(&["SCRIPT", "KILL"]), Value::ok());
    assert!(runner.read().text().contains("Script killed"));
}

/// Watches ended while a script holds the keyspace (`UNWATCH`, `DISCARD`,
/// `RESET`, all allowed then) are answered at once: a watch's end never
/// waits for the shard lock the script holds (it used to stop the
/// connection's worker thread until the script ended).
#[test]
fn watches_end_at_once_while_a_script_holds_the_keyspace() {
    let server = start();
    let mut admin = Client::connect(&server);
    admin.cmd(&["CONFIG", "SET", "busy-reply-threshold", "100"]);
    let mut watchers: Vec<Client> = (0..3).map(|_| Client::connect(&server)).collect();
    for (i, watcher) in watchers.iter_mut().enumerate() {
        assert_eq!(watcher.cmd(&["WATCH", &format!("k{i}"), "k"]), Value::ok());
    }
    assert_eq!(watchers[1].cmd(&["MULTI"]), Value::ok());
    let mut runner = Client::connect(&server);
    runner.send(&[b"EVAL", b"while true do end", b"0"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while !matches!(admin.cmd(&["GET", "k"]), Value::Error(e) if e.starts_with("BUSY")) {
        assert!(Instant::now() < deadline, "never busy");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(watchers[0].cmd(&["UNWATCH"]), Value::ok());
    assert_eq!(watchers[1].cmd(&["DISCARD"]), Value::ok());
    assert_eq!(watchers[2].cmd(&["RESET"]), Value::Simple("RESET".into()));
    assert_eq!(admin.cmd(&["SCRIPT", "KILL"]), Value::ok());
    assert!(runner.read().text().contains("Script killed"));
    // Watching works as before once the keys are unwatched.
    let mut w = Client::connect(&server);
    assert_eq!(w.cmd(&["WATCH", "k"]), Value::ok());
    assert_eq!(admin.cmd(&["SET", "k", "1"]), Value::ok());
    assert_eq!(w.cmd(&["MULTI"]), Value::ok());
    w.cmd(&["GET", "k"]);
    assert_eq!(w.cmd(&["EXEC"]), Value::NullArray);
}

/// `SCRIPT KILL` (allowed while a script runs) until it finds the script
/// running, for the scripts here that write first; its refusal.
fn until_running(admin: &mut Client) -> String {
    // Past the script's start, so a KILL never lands before its first
    // write (it would stop the script).
    std::thread::sleep(Duration::from_millis(30));
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let reply = admin.cmd(&["SCRIPT", "KILL"]).text();
        if !reply.starts_with("NOTBUSY") {
            return reply;
        }
        assert!(Instant::now() < deadline, "the script never ran");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn script_that_wrote_is_unkillable_and_others_wait_under_the_threshold() {
    let server = start();
    let mut admin = Client::connect(&server);
    admin.cmd(&["CONFIG", "SET", "busy-reply-threshold", "100"]);
    let mut runner = Client::connect(&server);
    // Writes, then spins until the server's (manual) clock moves 600 ms.
    let spin = |ms: u32, then: &str| {
        format!(
            "local function now() local t = redis.call('TIME') return t[1] * 1000000 + t[2] end \
             {then} local start = now() while now() - start < {ms}000 do end return redis.call('GET', 'w')"
        )
    };
    let first = spin(600, "redis.call('SET', 'w', 1)");
    runner.send(&[b"EVAL", first.as_bytes(), b"0"]);
    assert_eq!(
        until_running(&mut admin),
        "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."
    );
    server.clock.advance_ms(600);
    assert_eq!(runner.read(), Value::bulk("1"));
    // Under the threshold, another client's command waits for the script.
    admin.cmd(&["CONFIG", "SET", "busy-reply-threshold", "60000"]);
    let second = spin(300, "redis.call('INCR', 'w')");
    runner.send(&[b"EVAL", second.as_bytes(), b"0"]);
    assert!(until_running(&mut admin).starts_with("UNKILLABLE"));
    let clock = server.clock.clone();
    let mover = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        clock.advance_ms(300);
    });
    let started = Instant::now();
    assert_eq!(
        admin.cmd(&["INCR", "w"]),
        Value::Int(3),
        "ran after the script"
    );
    assert!(started.elapsed() >= Duration::from_millis(100));
    mover.join().unwrap();
    assert_eq!(runner.read(), Value::bulk("2"));
}

#[test]
fn script_that_allocates_without_bound_fails() {
    let server = start();
    let mut c = Client::connect(&server);
    let err = eval(
        &mut c,
        "local t = {} local i = 0 while true do i = i + 1 t[i] = {i, i, i, i, i, i, i, i} end",
        &[],
        &[],
    )
    .text();
    assert!(err.contains("memory"), "{err}");
    assert_eq!(eval(&mut c, "return 1", &[], &[]), Value::Int(1));
}
