//! A stream whose groups hold large pending lists (chunks of the stream,
//! see strata-resp's `stream/pel/`) survives a checkpoint and the log
//! after it: the server is stopped and started again on the same data
//! directory and every group reply is byte for byte the same.

use crate::common;

use std::time::Duration;

use common::test_config;
use strata_server::config::PersistenceMode;
use strata_server::Server;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn resp(words: &[&str]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", words.len()).into_bytes();
    for w in words {
        out.extend_from_slice(format!("${}\r\n{w}\r\n", w.len()).as_bytes());
    }
    out
}

/// Where the RESP2 reply starting at `at` in `buf` ends; `None` while it
/// is incomplete.
fn reply_end(buf: &[u8], at: usize) -> Option<usize> {
    let line = at + buf.get(at..)?.windows(2).position(|w| w == b"\r\n")?;
    let number = || {
        std::str::from_utf8(&buf[at + 1..line])
            .ok()?
            .parse::<i64>()
            .ok()
    };
    match buf[at] {
        b'$' => match number()? {
            n if n < 0 => Some(line + 2),
            n => Some(line + 2 + n as usize + 2).filter(|&end| end <= buf.len()),
        },
        b'*' => {
            let mut end = line + 2;
            for _ in 0..number()?.max(0) {
                end = reply_end(buf, end)?;
            }
            Some(end)
        }
        _ => Some(line + 2),
    }
}

/// Sends `commands` at once and returns each reply's bytes.
async fn pipeline(stream: &mut TcpStream, commands: &[Vec<String>]) -> Vec<Vec<u8>> {
    let mut request = Vec::new();
    for c in commands {
        let words: Vec<&str> = c.iter().map(String::as_str).collect();
        request.extend(resp(&words));
    }
    stream.write_all(&request).await.unwrap();
    let (mut buf, mut replies, mut at) = (Vec::new(), Vec::new(), 0);
    let mut chunk = vec![0u8; 1 << 16];
    while replies.len() < commands.len() {
        match reply_end(&buf, at) {
            Some(end) => {
                replies.push(buf[at..end].to_vec());
                at = end;
            }
            None => {
                let read = stream.read(&mut chunk);
                let n = tokio::time::timeout(Duration::from_secs(20), read)
                    .await
                    .expect("reply in time")
                    .expect("read");
                assert!(n > 0, "closed");
                buf.extend_from_slice(&chunk[..n]);
            }
        }
    }
    replies
}

async fn one(stream: &mut TcpStream, words: &[&str]) -> Vec<u8> {
    let words = words.iter().map(|w| w.to_string()).collect();
    pipeline(stream, &[words]).await.remove(0)
}

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|w| w.to_string()).collect()
}

/// What the groups answer (no idle times, which move with the clock).
async fn snapshot(r: &mut TcpStream) -> Vec<Vec<u8>> {
    let cmds = [
        words(&["XLEN", "s"]),
        words(&["XPENDING", "s", "g"]),
        words(&["XPENDING", "s", "h"]),
        words(&["XINFO", "STREAM", "s", "FULL", "COUNT", "0"]),
        words(&["XINFO", "GROUPS", "s"]),
        words(&["XRANGE", "s", "-", "+", "COUNT", "3"]),
    ];
    pipeline(r, &cmds).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn groups_with_large_pending_lists_survive_a_checkpoint_and_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let config = test_config(&dir, |c| c.persistence = PersistenceMode::Sync);
    let server = Server::start(&config).await.unwrap();
    let mut r = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    let adds: Vec<Vec<String>> = (1..=4000)
        .map(|i| words(&["XADD", "s", &format!("{i}-0"), "f", &i.to_string()]))
        .collect();
    pipeline(&mut r, &adds).await;
    one(&mut r, &["XGROUP", "CREATE", "s", "g", "0"]).await;
    one(&mut r, &["XGROUP", "CREATE", "s", "h", "3000"]).await;
    for (who, n) in [("alice", "1500"), ("bob", "1500"), ("carol", "500")] {
        let read = format!("XREADGROUP GROUP g {who} COUNT {n} STREAMS s >");
        one(&mut r, &read.split(' ').collect::<Vec<_>>()).await;
    }
    one(
        &mut r,
        &["XREADGROUP", "GROUP", "h", "dave", "STREAMS", "s", ">"],
    )
    .await;
    let acks: Vec<Vec<String>> = (1..3500)
        .step_by(5)
        .map(|i| words(&["XACK", "s", "g", &format!("{i}-0")]))
        .collect();
    pipeline(&mut r, &acks).await;
    // The checkpoint holds the stream as it is now; the log what follows.
    assert_eq!(one(&mut r, &["SAVE"]).await, b"+OK\r\n");
    let after = [
        words(&["XACK", "s", "g", "2-0", "3-0", "3333-0"]),
        words(&["XCLAIM", "s", "g", "erin", "0", "100-0", "2000-0", "3499-0"]),
        words(&[
            "XAUTOCLAIM",
            "s",
            "g",
            "frank",
            "0",
            "1000-0",
            "COUNT",
            "30",
        ]),
        words(&["XGROUP", "DELCONSUMER", "s", "g", "carol"]),
        words(&["XDEL", "s", "7-0", "3600-0"]),
        words(&["XADD", "s", "4001-0", "f", "v"]),
        words(&["XREADGROUP", "GROUP", "h", "dave", "STREAMS", "s", ">"]),
        words(&["XTRIM", "s", "MAXLEN", "~", "3500"]),
    ];
    pipeline(&mut r, &after).await;
    let before = snapshot(&mut r).await;
    assert!(
        before[1].starts_with(b"*4\r\n:"),
        "{:?}",
        String::from_utf8_lossy(&before[1])
    );
    drop(r);
    server.shutdown(Duration::from_secs(5)).await;

    let server = Server::start(&config).await.unwrap();
    let mut r = TcpStream::connect(server.resp_addr().unwrap())
        .await
        .unwrap();
    let again = snapshot(&mut r).await;
    for (b, a) in before.iter().zip(&again) {
        assert_eq!(String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    }
    let info = String::from_utf8_lossy(&one(&mut r, &["INFO", "persistence"]).await).to_string();
    let field = |name: &str| -> u64 {
        let line = info
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name}:")));
        line.and_then(|v| v.trim().parse().ok()).unwrap_or(0)
    };
    assert!(field("strata_recovery_snapshot_items") > 0, "{info}");
    assert!(field("strata_recovery_records") > 0, "{info}");
    // And it changes on.
    let acked = one(&mut r, &["XACK", "s", "g", "4-0", "5-0"]).await;
    assert_eq!(acked, b":2\r\n");
    server.shutdown(Duration::from_secs(5)).await;
}
