//! Persistence through the real server and wire: `sync` mode answers
//! pipelined writes in order once durable, reads interleave, INFO and
//! memcached `stats` show the persistence fields, SAVE/BGSAVE/LASTSAVE and
//! BGREWRITEAOF (a checkpoint, which rewrites the log) work,
//! and a restart on the same directory finds everything, including deletes.

use crate::common;

use std::time::Duration;

use common::{round_trip, test_config};
use strata_server::config::PersistenceMode;
use strata_server::{Server, ServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn config(dir: &tempfile::TempDir, mode: PersistenceMode) -> ServerConfig {
    test_config(dir, |c| c.persistence = mode)
}

fn resp(words: &[&str]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", words.len()).into_bytes();
    for w in words {
        out.extend_from_slice(format!("${}\r\n{w}\r\n", w.len()).as_bytes());
    }
    out
}

/// Reads one RESP bulk reply (INFO) or simple line.
async fn read_reply(stream: &mut TcpStream, request: &[u8]) -> String {
    stream.write_all(request).await.unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .expect("reply in time")
            .expect("read");
        buf.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&buf).to_string();
        if let Some(rest) = text.strip_prefix('$') {
            let (len, body) = rest.split_once("\r\n").unwrap_or(("", ""));
            if let Ok(len) = len.parse::<usize>() {
                if body.len() >= len + 2 {
                    return body[..len].to_string();
                }
            }
        } else if text.ends_with("\r\n") {
            return text;
        }
    }
}

fn field(info: &str, name: &str) -> String {
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .unwrap_or_else(|| panic!("{name} missing in {info}"))
        .trim()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_mode_pipelines_in_order_and_survives_restart() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&config(&dir, PersistenceMode::Sync))
        .await
        .unwrap();
    let mut r = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    // A pipeline mixing writes and reads: replies in order.
    let mut pipeline = Vec::new();
    let mut want = Vec::new();
    for i in 0..50 {
        pipeline.extend(resp(&["SET", &format!("k{i}"), &format!("v{i}")]));
        want.extend_from_slice(b"+OK\r\n");
        pipeline.extend(resp(&["GET", &format!("k{i}")]));
        want.extend(format!("${}\r\nv{i}\r\n", format!("v{i}").len()).into_bytes());
    }
    pipeline.extend(resp(&["DEL", "k7"]));
    want.extend_from_slice(b":1\r\n");
    pipeline.extend(resp(&["INCR", "counter"]));
    want.extend_from_slice(b":1\r\n");
    round_trip(&mut r, &pipeline, &want).await;

    let info = read_reply(&mut r, &resp(&["INFO", "persistence"])).await;
    assert_eq!(field(&info, "aof_enabled"), "1");
    assert_eq!(field(&info, "strata_persistence"), "sync");
    let last: u64 = field(&info, "strata_log_last_lsn").parse().unwrap();
    let durable: u64 = field(&info, "strata_log_durable_lsn").parse().unwrap();
    assert!(
        last >= 52 && durable == last,
        "every acknowledged write is durable: {info}"
    );

    round_trip(&mut r, &resp(&["SAVE"]), b"+OK\r\n").await;
    round_trip(
        &mut r,
        &resp(&["SAVE", "x"]),
        b"-ERR wrong number of arguments for 'save' command\r\n",
    )
    .await;
    round_trip(&mut r, &resp(&["MULTI"]), b"+OK\r\n").await;
    round_trip(
        &mut r,
        &resp(&["SAVE"]),
        b"-ERR Command not allowed inside a transaction\r\n",
    )
    .await;
    round_trip(&mut r, &resp(&["DISCARD"]), b"+OK\r\n").await;
    round_trip(&mut r, &resp(&["SET", "after", "save"]), b"+OK\r\n").await;
    let bg = read_reply(&mut r, &resp(&["BGSAVE"])).await;
    assert!(
        bg == "+Background saving started\r\n" || bg.starts_with("-ERR Background save already"),
        "{bg}"
    );
    let lastsave = read_reply(&mut r, &resp(&["LASTSAVE"])).await;
    assert!(lastsave.starts_with(':'), "{lastsave}");

    let mut mc = TcpStream::connect(server.memcache_addr().unwrap())
        .await
        .unwrap();
    round_trip(
        &mut mc,
        b"set m 5 0 2\r\nhi\r\ndelete k8\r\n",
        b"STORED\r\nDELETED\r\n",
    )
    .await;
    mc.write_all(b"stats\r\n").await.unwrap();
    let mut stats = Vec::new();
    while !stats.ends_with(b"END\r\n") {
        let mut chunk = [0u8; 4096];
        let n = mc.read(&mut chunk).await.unwrap();
        stats.extend_from_slice(&chunk[..n]);
    }
    let stats = String::from_utf8_lossy(&stats);
    assert!(stats.contains("STAT persistence sync\r\n"), "{stats}");
    assert!(stats.contains("STAT log_poisoned 0\r\n"), "{stats}");

    drop((r, mc));
    server.shutdown(Duration::from_secs(5)).await;

    let server = Server::start(&config(&dir, PersistenceMode::Sync))
        .await
        .unwrap();
    let mut r = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    round_trip(&mut r, &resp(&["GET", "k49"]), b"$3\r\nv49\r\n").await;
    round_trip(&mut r, &resp(&["EXISTS", "k7", "k8"]), b":0\r\n").await;
    round_trip(&mut r, &resp(&["GET", "counter"]), b"$1\r\n1\r\n").await;
    round_trip(&mut r, &resp(&["GET", "after"]), b"$4\r\nsave\r\n").await;
    let mut mc = TcpStream::connect(server.memcache_addr().unwrap())
        .await
        .unwrap();
    round_trip(&mut mc, b"get m\r\n", b"VALUE m 5 2\r\nhi\r\nEND\r\n").await;
    let info = read_reply(&mut r, &resp(&["INFO", "persistence"])).await;
    let recovered: u64 = field(&info, "strata_recovery_snapshot_items")
        .parse::<u64>()
        .unwrap()
        + field(&info, "strata_recovery_records")
            .parse::<u64>()
            .unwrap();
    assert!(recovered > 0, "{info}");
    server.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn persistence_off_refuses_save_and_reports_off() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&config(&dir, PersistenceMode::Off))
        .await
        .unwrap();
    let mut r = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    let save = read_reply(&mut r, &resp(&["BGSAVE"])).await;
    assert!(save.starts_with("-ERR persistence is off"), "{save}");
    let rewrite = read_reply(&mut r, &resp(&["BGREWRITEAOF"])).await;
    assert!(rewrite.starts_with("-ERR persistence is off"), "{rewrite}");
    let info = read_reply(&mut r, &resp(&["INFO", "persistence"])).await;
    assert_eq!(field(&info, "aof_enabled"), "0");
    assert_eq!(field(&info, "strata_persistence"), "off");
    assert!(!dir.path().join("data/log").exists(), "no log when off");
    server.shutdown(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bgrewriteaof_checkpoints_and_drops_the_log_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&config(&dir, PersistenceMode::Sync))
        .await
        .unwrap();
    let mut r = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    let value = "v".repeat(1000);
    for i in 0..200 {
        let key = format!("k{i}");
        round_trip(&mut r, &resp(&["SET", &key, &value]), b"+OK\r\n").await;
    }
    let info = read_reply(&mut r, &resp(&["INFO", "persistence"])).await;
    let saves: u64 = field(&info, "rdb_saves").parse().unwrap();
    let log_before: u64 = field(&info, "aof_current_size").parse().unwrap();
    assert!(log_before >= 200_000, "{info}");
    round_trip(
        &mut r,
        &resp(&["BGREWRITEAOF"]),
        b"+Background append only file rewriting started\r\n",
    )
    .await;
    // A second one while it runs is refused in Redis's words (or starts
    // anew if the first already ended).
    let again = read_reply(&mut r, &resp(&["BGREWRITEAOF"])).await;
    assert!(
        again == "+Background append only file rewriting started\r\n"
            || again == "-ERR Background append only file rewriting already in progress\r\n",
        "{again}"
    );
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let info = loop {
        let info = read_reply(&mut r, &resp(&["INFO", "persistence"])).await;
        let done = field(&info, "aof_rewrite_in_progress") == "0"
            && field(&info, "rdb_saves").parse::<u64>().unwrap() > saves;
        if done || std::time::Instant::now() > deadline {
            break info;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(
        field(&info, "rdb_saves").parse::<u64>().unwrap() > saves,
        "{info}"
    );
    assert_eq!(field(&info, "aof_last_bgrewrite_status"), "ok");
    let log_after: u64 = field(&info, "aof_current_size").parse().unwrap();
    assert!(log_after < log_before / 10, "{log_before} -> {log_after}");
    round_trip(
        &mut r,
        &resp(&["GET", "k0"]),
        format!("${}\r\n{value}\r\n", value.len()).as_bytes(),
    )
    .await;
    server.shutdown(Duration::from_secs(5)).await;
}
