//! `MONITOR` over TCP, with the line shapes redis-server 7.0.15 wrote for
//! the same requests (where 7.0 and 7.2 differ, 7.2's source decided):
//! other clients' commands in order with their address, scripts' as
//! `[0 lua]`, `MULTI`/`EXEC` as Redis feeds them, admin commands hidden
//! and secrets redacted, what a monitor may still run, `RESET` and `QUIT`,
//! and the output bound on a monitor that never reads.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::{start, Client, Server, Value};

/// One monitor line, split as Redis writes it.
#[derive(Debug)]
struct Line {
    secs: u64,
    micros: String,
    /// `ip:port` or `lua`.
    who: String,
    /// The quoted, escaped arguments.
    args: String,
}

/// A client and the `ip:port` monitors name it by.
fn connect(server: &Server) -> (Client, String) {
    let stream = TcpStream::connect(server.addr).expect("connect");
    let addr = stream.local_addr().expect("local addr").to_string();
    (Client::from_stream(stream), addr)
}

/// A connection in `MONITOR` mode, and its address.
fn monitor(server: &Server) -> (Client, String) {
    let (mut m, addr) = connect(server);
    assert_eq!(m.cmd(&["MONITOR"]), Value::ok());
    (m, addr)
}

/// Reads the next line: `+<secs>.<micros> [0 <who>] <args>`.
fn read_line(m: &mut Client) -> Line {
    let text = match m.read() {
        Value::Simple(text) => text,
        other => panic!("not a monitor line: {other:?}"),
    };
    let (time, rest) = text.split_once(' ').expect("time");
    let (secs, micros) = time.split_once('.').expect("secs.micros");
    let rest = rest.strip_prefix("[0 ").expect("[0 ");
    let (who, args) = rest.split_once("] ").expect("] ");
    Line {
        secs: secs.parse().expect("secs"),
        micros: micros.to_string(),
        who: who.to_string(),
        args: args.to_string(),
    }
}

/// Reads lines until one from `who` shows `args`, returning what came
/// before it from `who` (lines of other connections are skipped).
fn args_until(m: &mut Client, who: &str, args: &str) -> Vec<String> {
    let mut seen = Vec::new();
    loop {
        let line = read_line(m);
        if line.who != who {
            continue;
        }
        if line.args == args {
            return seen;
        }
        seen.push(line.args);
    }
}

#[test]
fn a_monitor_sees_other_clients_commands_in_order_with_their_address() {
    let server = start();
    let (mut m, _) = monitor(&server);
    let (mut c, addr) = connect(&server);
    let value: &[u8] = b"v\"\\\n\r\t\x07\x08\x01\xc3\xbf e";
    assert_eq!(c.cmd_bytes(&[b"SET", b"k", value]), Value::ok());
    assert_eq!(c.cmd(&["GET", "k"]), Value::Bulk(value.to_vec()));
    assert_eq!(c.cmd(&["ECHO", ""]), Value::bulk(""));
    // Refused before running: not fed (as Redis, which never calls them).
    assert!(matches!(c.cmd(&["NOSUCH"]), Value::Error(_)));
    assert!(matches!(c.cmd(&["GET"]), Value::Error(_)));
    assert!(matches!(c.cmd(&["CLIENT", "NOSUCH"]), Value::Error(_)));
    c.cmd(&["PING"]);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let first = read_line(&mut m);
    assert_eq!(first.who, addr);
    assert!(first.secs.abs_diff(now) <= 5, "{first:?}");
    assert_eq!(first.micros.len(), 6, "{first:?}");
    assert!(first.micros.bytes().all(|b| b.is_ascii_digit()));
    // Byte for byte what redis-server 7.0.15 wrote for the same value.
    assert_eq!(first.args, r#""SET" "k" "v\"\\\n\r\t\a\b\x01\xc3\xbf e""#);
    let mut last = (first.secs, first.micros);
    let mut rest = Vec::new();
    for _ in 0..3 {
        let line = read_line(&mut m);
        assert_eq!(line.who, addr);
        let at = (line.secs, line.micros.clone());
        assert!(at >= last, "times go back: {last:?} then {at:?}");
        last = at;
        rest.push(line.args);
    }
    assert_eq!(rest, [r#""GET" "k""#, r#""ECHO" """#, r#""PING""#]);
}

#[test]
fn admin_commands_are_hidden_and_secrets_redacted() {
    let server = start();
    let (mut m, _) = monitor(&server);
    let (mut c, addr) = connect(&server);
    c.cmd(&["AUTH", "hunter2"]);
    c.cmd(&["AUTH", "default", "hunter2"]);
    // Refused before Redis reads the arguments: shown as sent.
    c.cmd(&["AUTH", "a", "b", "c"]);
    c.cmd(&["HELLO", "2", "AUTH", "default", "hunter2", "SETNAME", "n"]);
    c.cmd(&["HELLO", "9", "AUTH", "u", "p"]);
    c.cmd(&["CONFIG", "SET", "timeout", "0"]);
    c.cmd(&["CONFIG", "GET", "timeout"]);
    c.cmd(&["CLIENT", "LIST"]);
    c.cmd(&["SLOWLOG", "LEN"]);
    c.cmd(&["CLIENT", "SETNAME", "app"]);
    c.cmd(&["CLIENT", "INFO"]);
    c.cmd(&["PING"]);
    assert_eq!(
        args_until(&mut m, &addr, r#""PING""#),
        [
            r#""AUTH" "(redacted)""#,
            r#""AUTH" "(redacted)" "(redacted)""#,
            r#""AUTH" "a" "b" "c""#,
            r#""HELLO" "2" "AUTH" "(redacted)" "(redacted)" "SETNAME" "n""#,
            r#""HELLO" "9" "AUTH" "u" "p""#,
            r#""CLIENT" "SETNAME" "app""#,
            r#""CLIENT" "INFO""#,
        ]
    );
}

#[test]
fn scripts_commands_are_shown_as_lua_after_the_script() {
    let server = start();
    let (mut m, _) = monitor(&server);
    let (mut c, addr) = connect(&server);
    let body = "redis.call('set','x',1.5) return redis.call('get','x')";
    assert_eq!(c.cmd(&["EVAL", body, "0"]), Value::bulk("1.5"));
    let lib = "#!lua name=lib\nredis.register_function('f', function(keys) return redis.call('get', keys[1]) end)";
    assert_eq!(c.cmd(&["FUNCTION", "LOAD", lib]), Value::bulk("lib"));
    c.cmd(&["FCALL", "f", "1", "x"]);
    c.cmd(&["EVALSHA", "abc", "0"]);
    c.cmd(&["PING"]);
    let lines: Vec<(String, String)> = std::iter::from_fn(|| Some(read_line(&mut m)))
        .map(|l| (l.who, l.args))
        .take_while(|(_, args)| args != r#""PING""#)
        .collect();
    let lua = "lua".to_string();
    assert_eq!(
        lines,
        [
            (addr.clone(), format!(r#""EVAL" "{body}" "0""#)),
            (lua.clone(), r#""set" "x" "1.5""#.into()),
            (lua.clone(), r#""get" "x""#.into()),
            (
                addr.clone(),
                format!(r#""FUNCTION" "LOAD" "{}""#, lib.replace('\n', "\\n"))
            ),
            (addr.clone(), r#""FCALL" "f" "1" "x""#.into()),
            (lua, r#""get" "x""#.into()),
            // Fed before the script is looked up, as Redis does.
            (addr, r#""EVALSHA" "abc" "0""#.into()),
        ]
    );
}

#[test]
fn multi_exec_is_shown_as_redis_feeds_it() {
    let server = start();
    let (mut m, _) = monitor(&server);
    let (mut c, addr) = connect(&server);
    assert_eq!(c.cmd(&["MULTI"]), Value::ok());
    assert_eq!(c.cmd(&["SET", "a", "1"]), Value::Simple("QUEUED".into()));
    assert_eq!(c.cmd(&["INCR", "a"]), Value::Simple("QUEUED".into()));
    assert_eq!(
        c.cmd(&["EXEC"]),
        Value::Array(vec![Value::ok(), Value::Int(2)])
    );
    // A transaction refused while queuing: MULTI and EXEC only.
    c.cmd(&["MULTI"]);
    assert!(matches!(c.cmd(&["NOSUCH"]), Value::Error(_)));
    assert!(matches!(c.cmd(&["EXEC"]), Value::Error(e) if e.starts_with("EXECABORT")));
    // MONITOR is queued and refused by EXEC, as in Redis 7.2.
    c.cmd(&["MULTI"]);
    assert_eq!(c.cmd(&["MONITOR"]), Value::Simple("QUEUED".into()));
    assert_eq!(
        c.cmd(&["EXEC"]),
        Value::Array(vec![Value::err(
            "ERR MONITOR isn't allowed for DENY BLOCKING client"
        )])
    );
    c.cmd(&["MULTI"]);
    c.cmd(&["DISCARD"]);
    c.cmd(&["PING"]);
    assert_eq!(
        args_until(&mut m, &addr, r#""PING""#),
        [
            r#""MULTI""#,
            r#""SET" "a" "1""#,
            r#""INCR" "a""#,
            r#""EXEC""#,
            r#""MULTI""#,
            r#""EXEC""#,
            r#""MULTI""#,
            r#""EXEC""#,
            r#""MULTI""#,
            r#""DISCARD""#,
        ]
    );
}

#[test]
fn a_blocked_command_is_shown_once() {
    let server = start();
    let (mut m, _) = monitor(&server);
    let (mut waiter, waiter_addr) = connect(&server);
    let (mut pusher, pusher_addr) = connect(&server);
    waiter.send(&[b"BLPOP", b"q", b"0"]);
    let line = read_line(&mut m);
    let blpop = (waiter_addr.clone(), r#""BLPOP" "q" "0""#.to_string());
    assert_eq!((line.who, line.args), blpop);
    assert_eq!(pusher.cmd(&["LPUSH", "q", "x"]), Value::Int(1));
    assert_eq!(
        waiter.read(),
        Value::Array(vec![Value::bulk("q"), Value::bulk("x")])
    );
    pusher.cmd(&["PING"]);
    waiter.cmd(&["PING"]);
    // Nothing came between: the served BLPOP was not fed again.
    let lines: Vec<(String, String)> = (0..3)
        .map(|_| read_line(&mut m))
        .map(|l| (l.who, l.args))
        .collect();
    assert_eq!(
        lines,
        [
            (pusher_addr.clone(), r#""LPUSH" "q" "x""#.into()),
            (pusher_addr, r#""PING""#.into()),
            (waiter_addr, r#""PING""#.into()),
        ]
    );
}

#[test]
fn a_monitor_may_not_touch_the_keyspace_and_sees_itself() {
    let server = start();
    let (mut m, addr) = monitor(&server);
    assert_eq!(m.cmd(&["PING"]), Value::Simple("PONG".into()));
    assert_eq!(read_line(&mut m).args, r#""PING""#);
    let refused = Value::err("ERR Replica can't interact with the keyspace");
    assert_eq!(m.cmd(&["GET", "k"]), refused);
    assert_eq!(m.cmd(&["PUBLISH", "c", "x"]), refused);
    assert_eq!(m.cmd(&["OBJECT", "ENCODING", "k"]), refused);
    // A second MONITOR is ignored: no reply at all.
    m.send(&[b"MONITOR"]);
    assert_eq!(m.cmd(&["ECHO", "hi"]), Value::bulk("hi"));
    assert_eq!(read_line(&mut m).args, r#""ECHO" "hi""#);
    let (mut c, _) = connect(&server);
    let list = c.cmd(&["CLIENT", "LIST"]).text();
    let mine = list
        .lines()
        .find(|l| l.contains(&format!("addr={addr} ")))
        .expect("the monitor is listed");
    assert!(mine.contains(" flags=O "), "{mine}");
    // RESET ends monitoring: later commands are not fed, and the keyspace
    // is open again.
    assert_eq!(m.cmd(&["RESET"]), Value::Simple("RESET".into()));
    assert_eq!(c.cmd(&["SET", "k", "v"]), Value::ok());
    assert_eq!(m.cmd(&["GET", "k"]), Value::bulk("v"));
    let list = c.cmd(&["CLIENT", "LIST"]).text();
    assert!(!list.contains("flags=O"), "{list}");
}

#[test]
fn quit_ends_a_monitor_and_other_monitors_see_it() {
    let server = start();
    let mut a = TcpStream::connect(server.addr).unwrap();
    let a_addr = a.local_addr().unwrap().to_string();
    a.write_all(&common::encode(&[b"MONITOR"])).unwrap();
    let mut ok = [0u8; 5];
    a.read_exact(&mut ok).unwrap();
    assert_eq!(&ok, b"+OK\r\n");
    let (mut b, _) = monitor(&server);
    a.write_all(&common::encode(&[b"QUIT"])).unwrap();
    // Nothing follows the `+OK`: not even its own QUIT line.
    let mut rest = Vec::new();
    a.read_to_end(&mut rest).unwrap();
    assert_eq!(String::from_utf8_lossy(&rest), "+OK\r\n");
    let line = read_line(&mut b);
    assert_eq!((line.who, line.args), (a_addr, r#""QUIT""#.into()));
    let (mut c, c_addr) = connect(&server);
    c.cmd(&["PING"]);
    let line = read_line(&mut b);
    assert_eq!((line.who, line.args), (c_addr, r#""PING""#.into()));
}

/// A monitor that never reads is disconnected once its waiting lines pass
/// the hard limit, and what waits for it never grows past that limit.
#[test]
fn a_monitor_that_never_reads_is_disconnected() {
    let server = start();
    let mut admin = Client::connect(&server);
    let limit = "pubsub 1mb 256kb 60";
    let set = ["CONFIG", "SET", "client-output-buffer-limit", limit];
    assert_eq!(admin.cmd(&set), Value::ok());
    let mut stream = TcpStream::connect(server.addr).unwrap();
    stream.write_all(&common::encode(&[b"MONITOR"])).unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !admin.cmd(&["CLIENT", "LIST"]).text().contains("flags=O") {
        assert!(Instant::now() < deadline, "MONITOR never took effect");
        std::thread::sleep(Duration::from_millis(10));
    }
    let payload = vec![b'x'; 64 * 1024];
    let mut writer = Client::connect(&server);
    let mut most_waiting = 0u64;
    // 64 MB of commands: far more than the socket buffers and the limit.
    for i in 0..1024 {
        assert_eq!(writer.cmd_bytes(&[b"SET", b"flood", &payload]), Value::ok());
        if i % 4 != 0 {
            continue;
        }
        let list = admin.cmd(&["CLIENT", "LIST"]).text();
        let Some(monitor) = list.lines().find(|l| l.contains("flags=O")) else {
            break;
        };
        let omem: u64 = monitor
            .split(' ')
            .find_map(|f| f.strip_prefix("omem="))
            .and_then(|v| v.parse().ok())
            .expect("omem");
        most_waiting = most_waiting.max(omem);
    }
    let info = admin.cmd(&["INFO", "stats"]).text();
    assert!(
        info.contains("client_output_buffer_limit_disconnections:1"),
        "{info}"
    );
    assert!(!admin.cmd(&["CLIENT", "LIST"]).text().contains("flags=O"));
    // Waiting lines (plus the batch being written) stay within about
    // twice the hard limit.
    assert!(
        most_waiting <= 2 * 1024 * 1024 + 256 * 1024,
        "{most_waiting}"
    );
    let mut closed = Client::from_stream(stream);
    assert!(closed.is_closed(), "the slow monitor was not closed");
}
