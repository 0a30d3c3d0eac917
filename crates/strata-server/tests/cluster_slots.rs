//! Cluster mode's slot-to-keys index across a restart: keys written
//! through the RESP port and the memcached port, some before a checkpoint
//! and some only in the log after it, some deleted or flushed, are counted
//! and listed by `CLUSTER COUNTKEYSINSLOT`/`GETKEYSINSLOT` after recovery
//! exactly as before it.

use crate::common::{round_trip, test_config};

use std::time::Duration;

use strata_server::config::PersistenceMode;
use strata_server::{Server, ServerConfig};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

/// One RESP2 reply: an integer, a line, a bulk, or an array of bulks
/// (one string each).
async fn ask(stream: &mut BufReader<TcpStream>, words: &[&str]) -> Vec<String> {
    let mut request = format!("*{}\r\n", words.len());
    for word in words {
        request.push_str(&format!("${}\r\n{word}\r\n", word.len()));
    }
    let conn = stream.get_mut();
    conn.write_all(request.as_bytes()).await.unwrap();
    let head = line(stream).await;
    match head.split_at(1) {
        ("*", n) => {
            let mut items = Vec::new();
            for _ in 0..n.parse::<usize>().unwrap() {
                let len = line(stream).await;
                items.push(bulk(stream, &len[1..]).await);
            }
            items
        }
        ("$", len) => vec![bulk(stream, len).await],
        (_, text) => vec![text.to_string()],
    }
}

async fn line(stream: &mut BufReader<TcpStream>) -> String {
    let mut line = String::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_line(&mut line))
        .await
        .expect("reply in time")
        .unwrap();
    line.trim_end().to_string()
}

async fn bulk(stream: &mut BufReader<TcpStream>, len: &str) -> String {
    let mut bulk = vec![0; len.parse::<usize>().unwrap() + 2];
    stream.read_exact(&mut bulk).await.unwrap();
    String::from_utf8(bulk[..bulk.len() - 2].to_vec()).unwrap()
}

fn config(dir: &tempfile::TempDir) -> ServerConfig {
    test_config(dir, |c| {
        c.cluster_enabled = true;
        c.http_enabled = false;
        c.persistence = PersistenceMode::Sync;
    })
}

/// Each tag's slot count and its keys, sorted.
async fn slots(c: &mut BufReader<TcpStream>) -> Vec<(String, Vec<String>)> {
    let mut state = Vec::new();
    for tag in ["{a}", "{b}", "{c}", "{m}"] {
        let slot = ask(c, &["CLUSTER", "KEYSLOT", tag]).await.remove(0);
        let count = ask(c, &["CLUSTER", "COUNTKEYSINSLOT", &slot])
            .await
            .remove(0);
        let mut keys = ask(c, &["CLUSTER", "GETKEYSINSLOT", &slot, "100"]).await;
        keys.sort();
        assert_eq!(count, keys.len().to_string(), "{tag}: {keys:?}");
        state.push((count, keys));
    }
    state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_slot_index_is_rebuilt_exactly_after_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let config = config(&dir);
    let server = Server::start(&config).await.unwrap();
    let mut c = BufReader::new(
        TcpStream::connect(server.resp_addr().unwrap())
            .await
            .unwrap(),
    );
    let mut mc = TcpStream::connect(server.memcache_addr().unwrap())
        .await
        .unwrap();
    for key in ["{a}1", "{a}2", "{b}1", "{c}gone"] {
        ask(&mut c, &["SET", key, "v"]).await;
    }
    let mut big = vec!["ZADD", "{b}big"];
    let members: Vec<String> = (0..300).map(|i| format!("m{i}")).collect();
    for m in &members {
        big.extend(["1", m.as_str()]);
    }
    ask(&mut c, &big).await;
    round_trip(&mut mc, b"set {m}1 0 0 1\r\nx\r\n", b"STORED\r\n").await;
    // A checkpoint, then changes only the log holds.
    assert_eq!(ask(&mut c, &["SAVE"]).await, ["OK"]);
    ask(&mut c, &["DEL", "{c}gone"]).await;
    ask(&mut c, &["RENAME", "{a}2", "{a}3"]).await;
    ask(&mut c, &["SADD", "{c}set", "x"]).await;
    round_trip(&mut mc, b"set {m}2 0 0 1\r\ny\r\n", b"STORED\r\n").await;
    round_trip(&mut mc, b"delete {m}1\r\n", b"DELETED\r\n").await;
    let before = slots(&mut c).await;
    let held: usize = before.iter().map(|(_, keys)| keys.len()).sum();
    assert_eq!(held, 6, "{before:?}");
    server.shutdown(Duration::from_secs(5)).await;

    let server = Server::start(&config).await.unwrap();
    let mut c = BufReader::new(
        TcpStream::connect(server.resp_addr().unwrap())
            .await
            .unwrap(),
    );
    assert_eq!(slots(&mut c).await, before);
    // And it goes on following changes.
    assert_eq!(ask(&mut c, &["FLUSHALL"]).await, ["OK"]);
    ask(&mut c, &["SET", "{a}new", "v"]).await;
    let after = slots(&mut c).await;
    assert_eq!(after[0], ("1".to_string(), vec!["{a}new".to_string()]));
    assert!(after[1..].iter().all(|(n, _)| n == "0"), "{after:?}");
    server.shutdown(Duration::from_secs(5)).await;
}
