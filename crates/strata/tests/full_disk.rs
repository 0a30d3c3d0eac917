//! Full disks, for real: small tmpfs filesystems (mounted as root; the
//! tests skip, saying why, otherwise) under the command log, the SSD tier
//! and the search indices of a `strata serve` child.
//!
//! - Command log (`sync`): once the disk is full, the write in progress is
//!   held (its reply waits), new writes get `-MISCONF Errors writing to the
//!   AOF file: No space left on device` and are never visible; once space
//!   is freed the held write is acknowledged and writes resume without a
//!   restart, and after a kill -9 every acknowledged write is there.
//! - SSD tier: a file the filesystem cannot hold is refused at start; one
//!   it can is reserved, so filling the filesystem afterwards fails none of
//!   the tier's writes.
//! - Search: while the translog cannot write, bulk items get 429
//!   `cluster_block_exception`; once space is freed they are accepted.

use crate::crash;
use crate::small_fs;
use crate::spawn;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use crash::recovered::info_section;
use crash::resp::{Reply, RespConn};
use crash::server::DurableServer;
use crash::DataDir;
use small_fs::SmallFs;

/// A mounted small filesystem, or `None` after saying why the test skips.
fn small_fs(bytes: u64, test: &str) -> Option<SmallFs> {
    match SmallFs::mount(bytes) {
        Ok(fs) => Some(fs),
        Err(reason) => {
            eprintln!("{test}: skipped: {reason}");
            None
        }
    }
}

fn set(conn: &mut RespConn, key: &str, value: &[u8]) -> Reply {
    conn.call(&[b"SET", key.as_bytes(), value])
        .expect("SET reply")
}

/// Polls `check` every 20 ms for up to 10 s.
fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_full_log_disk_refuses_writes_until_space_is_freed() {
    let Some(fs) = small_fs(
        8 << 20,
        "a_full_log_disk_refuses_writes_until_space_is_freed",
    ) else {
        return;
    };
    let dir = DataDir::new("full-log");
    let options: Vec<String> = [
        "--persistence",
        "sync",
        "--log-dir",
        &fs.path().join("log").display().to_string(),
        "--checkpoint-min-log-size",
        "1gb",
    ]
    .map(String::from)
    .to_vec();
    let mut server = DurableServer::start(dir.path(), &options);
    let mut writer = RespConn::connect(server.resp()).unwrap();
    let mut acked: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let value = |i: usize| format!("value {i} ").repeat(10_000).into_bytes();
    assert_eq!(set(&mut writer, "k0", &value(0)), Reply::ok());
    acked.insert("k0".into(), value(0));
    let filler = fs.fill();
    // Past the zeros the log wrote ahead, a write is held: its record
    // cannot be written, so its reply waits.
    writer.set_read_timeout(Duration::from_secs(2)).unwrap();
    let mut held = None;
    for i in 1..100 {
        let key = format!("k{i}");
        writer
            .send(&[vec![b"SET".to_vec(), key.clone().into_bytes(), value(i)]])
            .unwrap();
        match writer.read_reply() {
            Ok(reply) => {
                assert_eq!(reply, Reply::ok(), "SET {key}");
                acked.insert(key, value(i));
            }
            Err(_) => {
                held = Some((key, value(i)));
                break;
            }
        }
    }
    let (held_key, held_value) = held.expect("a write was held once the disk was full");
    let info = info_section(server.resp(), "persistence");
    assert_eq!(info["aof_last_write_status"], "err", "{info:?}");
    assert_eq!(info["strata_log_write_stalled"], "1", "{info:?}");
    assert_eq!(info["strata_log_poisoned"], "0", "{info:?}");
    let mut other = RespConn::connect(server.resp()).unwrap();
    match set(&mut other, "refused", b"x") {
        Reply::Error(text) => assert_eq!(
            text,
            "MISCONF Errors writing to the AOF file: No space left on device"
        ),
        reply => panic!("a write on a full disk got {reply:?}"),
    }
    assert_eq!(
        other.get_value("refused"),
        None,
        "a refused write is visible"
    );
    assert_eq!(
        other.call(&[b"GET", b"k0"]).unwrap(),
        Reply::Bulk(Some(value(0)))
    );

    // Space is freed: the held write is acknowledged, writes resume.
    std::fs::remove_file(&filler).unwrap();
    writer.set_read_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(
        writer.read_reply().unwrap(),
        Reply::ok(),
        "the held SET {held_key}"
    );
    acked.insert(held_key, held_value);
    eventually("writes resume", || {
        set(&mut other, "after", b"y") == Reply::ok()
    });
    acked.insert("after".into(), b"y".to_vec());
    let info = info_section(server.resp(), "persistence");
    assert_eq!(info["aof_last_write_status"], "ok", "{info:?}");

    server.kill();
    let server = DurableServer::start(dir.path(), &options);
    let mut conn = RespConn::connect(server.resp()).unwrap();
    for (key, value) in &acked {
        assert_eq!(
            conn.get_value(key).as_ref(),
            Some(value),
            "{key} after the restart"
        );
    }
    assert_eq!(conn.get_value("refused"), None);
    drop(server);
    drop(fs);
}

#[test]
fn the_ssd_tier_reserves_its_file_so_a_full_filesystem_fails_none_of_its_writes() {
    let test = "the_ssd_tier_reserves_its_file_so_a_full_filesystem_fails_none_of_its_writes";
    let Some(fs) = small_fs(8 << 20, test) else {
        return;
    };
    let dir = DataDir::new("full-ssd");
    let ssd = fs.path().join("ssd");
    let tier = |size: &str| crate::crash::ssd_options(&ssd, size, "20ms");
    // More than the filesystem holds: refused at start, naming the file.
    let mut args = vec![
        "serve".to_string(),
        "--data-dir".into(),
        dir.path().display().to_string(),
    ];
    args.extend(
        [
            "--no-http",
            "--resp-port",
            "0",
            "--memcache-port",
            "0",
            "--log-format",
            "json",
        ]
        .map(String::from),
    );
    args.extend(tier("16mb"));
    match spawn::spawn_serve(&args, Duration::from_secs(30)) {
        Ok(mut s) => {
            let _ = s.child.kill();
            panic!("a 16 MiB SSD tier started on an 8 MiB filesystem");
        }
        Err(mut s) => {
            let status = s.child.wait().unwrap();
            assert!(!status.success());
            let log = s.log.lock().unwrap().join("\n");
            assert!(
                log.contains("reserving") && log.contains("No space left on device"),
                "{log}"
            );
        }
    }
    // One that fits is reserved: filling the filesystem afterwards fails
    // none of its writes.
    let options = tier("4mb");
    let mut server = DurableServer::start(dir.path(), &options);
    let tiers = info_section(server.resp(), "tiers");
    assert_eq!(tiers["tier_ssd_space_reserved"], "1", "{tiers:?}");
    let filler = fs.fill();
    let mut conn = RespConn::connect(server.resp()).unwrap();
    let value = |i: usize| format!("ssd value {i} ").repeat(200).into_bytes();
    for i in 0..600 {
        assert_eq!(
            set(&mut conn, &format!("k{}", i % 300), &value(i)),
            Reply::ok(),
            "SET {i}"
        );
    }
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        server.is_running(),
        "the server stopped: {}",
        server.log_tail()
    );
    server.kill();
    let server = DurableServer::start(dir.path(), &options);
    let mut conn = RespConn::connect(server.resp()).unwrap();
    for k in 0..300 {
        assert_eq!(
            conn.get_value(&format!("k{k}")),
            Some(value(300 + k)),
            "k{k}"
        );
    }
    drop(server);
    std::fs::remove_file(filler).unwrap();
    drop(fs);
}

/// One HTTP/1.1 request; (status, body), or `None` if no reply came within
/// `wait` (a held write).
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    wait: Duration,
) -> Option<(u16, serde_json::Value)> {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(wait)).unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).unwrap();
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).ok()?;
    let split = reply.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&reply[..split]).to_string();
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((
        status,
        serde_json::from_slice(&reply[split + 4..]).unwrap_or_default(),
    ))
}

fn bulk_body(from: usize, n: usize) -> String {
    let mut body = String::new();
    for id in from..from + n {
        body.push_str(&format!("{{\"index\":{{\"_id\":\"{id}\"}}}}\n"));
        body.push_str(&format!(
            "{{\"n\":{id},\"text\":\"{}\"}}\n",
            "words ".repeat(100)
        ));
    }
    body
}

#[test]
fn search_writes_are_blocked_while_the_translog_disk_is_full() {
    let Some(fs) = small_fs(
        16 << 20,
        "search_writes_are_blocked_while_the_translog_disk_is_full",
    ) else {
        return;
    };
    let mut args = vec![
        "serve".to_string(),
        "--data-dir".into(),
        fs.path().display().to_string(),
    ];
    args.extend(
        [
            "--bind",
            "127.0.0.1",
            "--http-port",
            "0",
            "--resp-port",
            "0",
            "--memcache-port",
            "0",
            "--log-format",
            "json",
        ]
        .map(String::from),
    );
    let spawned = spawn::spawn_serve(&args, Duration::from_secs(60))
        .unwrap_or_else(|s| panic!("not ready:\n{}", s.log.lock().unwrap().join("\n")));
    let mut child = spawned.child;
    let addr = spawned.http.unwrap();
    let long = Duration::from_secs(30);
    let settings = r#"{"settings":{"number_of_shards":1,"refresh_interval":"-1"}}"#;
    assert_eq!(http(addr, "PUT", "/logs", settings, long).unwrap().0, 200);
    let (status, reply) = http(addr, "POST", "/logs/_bulk", &bulk_body(0, 50), long).unwrap();
    assert!(status == 200 && reply["errors"] == false, "{reply}");
    let filler = fs.fill();
    // Bulks until one is held (its translog records cannot be written).
    let mut next = 50;
    let held = loop {
        assert!(next < 50_000, "no bulk was ever held");
        let body = bulk_body(next, 200);
        let done = http(addr, "POST", "/logs/_bulk", &body, Duration::from_secs(2));
        next += 200;
        match done {
            Some((200, reply)) if reply["errors"] == false => continue,
            Some((status, reply)) => panic!("before the stall: {status} {reply}"),
            None => break next - 200,
        }
    };
    let (status, reply) = http(addr, "POST", "/logs/_bulk", &bulk_body(next, 5), long).unwrap();
    assert_eq!(status, 200, "{reply}");
    let item = &reply["items"][0]["index"];
    assert_eq!(item["status"], 429, "{reply}");
    assert_eq!(item["error"]["type"], "cluster_block_exception", "{reply}");
    let reason = item["error"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("disk usage exceeded flood-stage watermark"),
        "{reason}"
    );
    std::fs::remove_file(&filler).unwrap();
    let mut resumed = false;
    for _ in 0..100 {
        let (status, reply) =
            http(addr, "POST", "/logs/_bulk", &bulk_body(next + 5, 5), long).unwrap();
        if status == 200 && reply["errors"] == false {
            resumed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(resumed, "search writes did not resume once space was freed");
    // The held bulk was acknowledged meanwhile (its documents are there).
    let (_, doc) = http(addr, "GET", &format!("/logs/_doc/{held}"), "", long).unwrap();
    assert_eq!(doc["found"], true, "{doc}");
    let _ = child.kill();
    let _ = child.wait();
    drop(fs);
}
