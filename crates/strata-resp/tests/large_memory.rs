//! Measurement (ignored; run with `--ignored --nocapture`, preferably
//! `--release`): the load time and resident-memory growth of one large
//! set (and one sorted set) of `STRATA_MEASURE_MEMBERS` members (default
//! 1,000,000) loaded over RESP with SADD/ZADD of 1000 members each, in
//! this process's server and, when `redis-server` is on PATH, in Redis.
//! `STRATA_MEASURE_KINDS=SADD` measures the set only;
//! `STRATA_MEASURE_LIMIT_MB` sets Strata's memory limit (default 4 GiB).

use crate::common;

use std::time::{Duration, Instant};

use common::{Client, Value};
use strata_kv::KeyspaceConfig;

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

fn members() -> u32 {
    std::env::var("STRATA_MEASURE_MEMBERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000)
}

/// Loads the collection with pipelined batches; returns the load time.
fn load(c: &mut Client, kind: &str, n: u32) -> Duration {
    let start = Instant::now();
    let mut pending = 0;
    for lo in (0..n).step_by(1000) {
        let mut args: Vec<Vec<u8>> = vec![kind.as_bytes().to_vec(), b"big".to_vec()];
        for i in lo..(lo + 1000).min(n) {
            if kind == "ZADD" {
                args.push(format!("{}", f64::from(i) * 0.5).into_bytes());
            }
            args.push(format!("member:{i:09}").into_bytes());
        }
        let refs: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
        c.send(&refs);
        pending += 1;
        if pending == 16 {
            for _ in 0..pending {
                assert!(matches!(c.read(), Value::Int(_)));
            }
            pending = 0;
        }
    }
    for _ in 0..pending {
        assert!(matches!(c.read(), Value::Int(_)));
    }
    start.elapsed()
}

fn report(name: &str, kind: &str, c: &mut Client, pid: u32, n: u32) -> (f64, u64) {
    let before = rss_kib(pid);
    let took = load(c, kind, n);
    std::thread::sleep(Duration::from_millis(500));
    let grown = rss_kib(pid).saturating_sub(before);
    let card = if kind == "SADD" { "SCARD" } else { "ZCARD" };
    assert_eq!(c.cmd(&[card, "big"]), Value::Int(i64::from(n)));
    let encoding = c.cmd(&["OBJECT", "ENCODING", "big"]).text();
    let info = c.cmd(&["INFO", "memory"]).text();
    let used = info.lines().find(|l| l.starts_with("used_memory:"));
    println!("{name}: {}", used.unwrap_or("no used_memory"));
    println!(
        "{kind} {n} members  {name:6}  load {:.2} s  rss +{:.1} MiB  ({encoding})",
        took.as_secs_f64(),
        grown as f64 / 1024.0
    );
    (took.as_secs_f64(), grown)
}

fn redis(kind: &str, n: u32) -> Option<(f64, u64)> {
    let peer = common::peer::spawn_redis()?;
    Some(report("redis", kind, &mut peer.client(), peer.pid(), n))
}

#[test]
#[ignore = "a measurement: minutes, and a redis-server to compare with"]
fn one_large_set_and_sorted_set_against_redis() {
    let n = members();
    let kinds = std::env::var("STRATA_MEASURE_KINDS").unwrap_or("SADD,ZADD".into());
    for kind in kinds.split(',') {
        let server = common::start_with(
            KeyspaceConfig {
                shards: 4,
                memory_limit: std::env::var("STRATA_MEASURE_LIMIT_MB")
                    .ok()
                    .and_then(|v| v.parse::<u64>().ok())
                    .map_or(4 << 30, |mb| mb << 20),
                max_item_size: 64 << 20,
                ..KeyspaceConfig::default()
            },
            None,
        );
        let mut c = Client::from_stream(std::net::TcpStream::connect(server.addr).unwrap());
        let (st, sm) = report("strata", kind, &mut c, std::process::id(), n);
        drop(c);
        drop(server);
        if let Some((rt, rm)) = redis(kind, n) {
            println!(
                "{kind}: strata/redis load time {:.2}x, memory growth {:.2}x",
                st / rt,
                sm as f64 / rm.max(1) as f64
            );
        }
    }
}
