//! RDB snapshots (`REPLCONF rdb-only 1`, then `SYNC` or `PSYNC`) with the
//! real tools: `redis-cli --rdb` saves Strata's dataset of every type (TTLs
//! and function libraries included), `redis-check-rdb` passes the file, a
//! real `redis-server` loads it and holds the same data (`DEBUG DIGEST`
//! equal); `redis-cli --functions-rdb` saves the libraries alone.
//! `REPLCONF`'s replies and refusals are Redis 7.0's; `SYNC` from a
//! connection that wants replication is refused.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use strata_resp::protected::Protected;

use crate::common;

use common::peer::{replies_match_redis, spawn_redis_with, PeerRedis};
use common::random_writes::command;
use common::{Client, Server, Value};

const LIBRARY: &str =
    "#!lua name=snaplib\nredis.register_function('snapf', function() return 7 end)";

#[test]
fn replconf_replies_as_redis() {
    let cases: Vec<Vec<String>> = [
        "REPLCONF",
        "REPLCONF listening-port",
        "REPLCONF listening-port 6380",
        "REPLCONF listening-port abc",
        "REPLCONF capa eof capa psync2",
        "REPLCONF ip-address 10.0.0.1",
        "REPLCONF nosuch 1",
        "REPLCONF rdb-only 2",
        "REPLCONF rdb-only abc",
        "REPLCONF rdb-filter-only bogus",
        "REPLCONF rdb-only 0",
        "COMMAND INFO sync psync replconf",
        "MULTI",
        "SYNC",
        "PSYNC ? -1",
        "DISCARD",
    ]
    .iter()
    .map(|c| c.split(' ').map(str::to_owned).collect())
    .collect();
    replies_match_redis(&cases);
}

/// Strata with data of every type, two keys with a TTL and a library.
fn filled() -> (Server, Client) {
    let server = common::start_debug(Protected::Yes);
    // Expiry times must be in the loading Redis's future: the test
    // server's manual clock is set to the real time.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    server.clock.set_ms(now.unwrap().as_millis() as u64);
    let mut c = Client::connect(&server);
    let mut rng = SmallRng::seed_from_u64(7);
    let mut next_ms = 0;
    for _ in 0..3_000 {
        let words = command(&mut rng, &mut next_ms);
        let args: Vec<&str> = words.iter().map(String::as_str).collect();
        c.cmd(&args);
    }
    c.cmd(&["SET", "ttl1", "v", "EX", "5000"]);
    c.cmd(&["HSET", "ttl2", "f", "v"]);
    c.cmd(&["PEXPIRE", "ttl2", "9000000"]);
    assert_eq!(
        c.cmd(&["FUNCTION", "LOAD", LIBRARY]),
        Value::bulk("snaplib")
    );
    (server, c)
}

fn redis_cli(server: &Server, flag: &str, file: &Path) {
    let status = Command::new("redis-cli")
        .args([
            "-h",
            "127.0.0.1",
            "-p",
            &server.addr.port().to_string(),
            flag,
        ])
        .arg(file)
        .output()
        .expect("redis-cli is needed (scripts/test installs it)");
    assert!(status.status.success(), "redis-cli {flag}: {status:?}");
}

/// A real Redis that loaded `file` at start, and a client of it.
fn redis_loading(file: &Path) -> (PeerRedis, Client) {
    let dir = file.parent().unwrap().to_str().unwrap();
    let name = file.file_name().unwrap().to_str().unwrap();
    let extra = [
        "--dir",
        dir,
        "--dbfilename",
        name,
        "--enable-debug-command",
        "yes",
    ];
    let peer = spawn_redis_with(&extra).expect("redis-server is needed");
    let mut c = peer.client();
    // Loading answers -LOADING until done.
    while c.cmd(&["PING"]) != Value::Simple("PONG".into()) {
        std::thread::sleep(Duration::from_millis(20));
    }
    (peer, c)
}

#[test]
fn redis_cli_rdb_saves_what_a_real_redis_loads_as_the_same_data() {
    let (server, mut strata) = filled();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("strata.rdb");
    redis_cli(&server, "--rdb", &file);
    let check = Command::new("redis-check-rdb")
        .arg(&file)
        .output()
        .expect("redis-check-rdb");
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    let (_peer, mut redis) = redis_loading(&file);
    for words in [
        &["DEBUG", "DIGEST"][..],
        &["DBSIZE"],
        &["FUNCTION", "LIST"],
        &["FCALL", "snapf", "0"],
    ] {
        assert_eq!(redis.cmd(words), strata.cmd(words), "{words:?}");
    }
    for key in ["ttl1", "ttl2"] {
        let ttl = |c: &mut Client| match c.cmd(&["PTTL", key]) {
            Value::Int(ms) => ms,
            other => panic!("{other:?}"),
        };
        let (loaded, kept) = (ttl(&mut redis), ttl(&mut strata));
        assert!((kept - loaded).abs() < 5_000, "{key}: {loaded} vs {kept}");
    }
    // The libraries alone.
    let functions = dir.path().join("functions.rdb");
    redis_cli(&server, "--functions-rdb", &functions);
    let (_functions_peer, mut redis) = redis_loading(&functions);
    assert_eq!(redis.cmd(&["DBSIZE"]), Value::Int(0));
    assert_eq!(redis.cmd(&["FCALL", "snapf", "0"]), Value::Int(7));
}

#[test]
fn psync_answers_fullresync_then_the_file_and_closes() {
    let (server, mut strata) = filled();
    let run_id = strata.cmd(&["INFO", "server"]).text();
    let run_id = run_id
        .lines()
        .find_map(|l| l.strip_prefix("run_id:"))
        .unwrap()
        .trim()
        .to_string();
    let mut raw = TcpStream::connect(server.addr).unwrap();
    raw.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    raw.write_all(b"REPLCONF rdb-only 1\r\nPSYNC ? -1\r\n")
        .unwrap();
    let mut got = Vec::new();
    raw.read_to_end(&mut got).unwrap();
    let head = format!("+OK\r\n+FULLRESYNC {run_id} 0\r\n$");
    assert!(
        got.starts_with(head.as_bytes()),
        "{:?}",
        String::from_utf8_lossy(&got[..80])
    );
    let rest = &got[head.len()..];
    let newline = rest.iter().position(|&b| b == b'\n').unwrap();
    let len: usize = std::str::from_utf8(&rest[..newline - 1])
        .unwrap()
        .parse()
        .unwrap();
    let file = &rest[newline + 1..];
    assert_eq!(
        file.len(),
        len,
        "the file and nothing after it, then the close"
    );
    assert!(file.starts_with(b"REDIS0010"));
    // Without rdb-only: no replication here, said so.
    let mut c = Client::connect(&server);
    let refused = c.cmd(&["SYNC"]);
    assert!(
        refused.text().contains("Strata does not replicate"),
        "{refused:?}"
    );
    assert_eq!(c.cmd(&["PING"]), Value::Simple("PONG".into()));
}
