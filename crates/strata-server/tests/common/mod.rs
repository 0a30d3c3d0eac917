//! What the in-process server tests share: a test configuration on port 0
//! and request/reply exchanges over raw TCP (RESP requests, INFO fields).

#![allow(dead_code)] // Each test binary uses a different part.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use strata_server::{ByteSize, ServerConfig};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Every front end on port 0, 64 MiB, data under `dir`; `adjust` changes
/// settings before validation.
pub fn test_config(
    dir: &tempfile::TempDir,
    adjust: impl FnOnce(&mut ServerConfig),
) -> ServerConfig {
    let mut config = ServerConfig {
        memcache_port: 0,
        resp_port: 0,
        http_port: 0,
        threads: 2,
        memory_limit: ByteSize::new(64 << 20).unwrap(),
        data_dir: dir.path().join("data"),
        ..ServerConfig::default()
    };
    adjust(&mut config);
    config.validate().expect("valid test config");
    config
}

/// Sends `request` and reads until `want.len()` bytes arrived, which must
/// equal `want`.
pub async fn round_trip(stream: &mut TcpStream, request: &[u8], want: &[u8]) {
    stream.write_all(request).await.unwrap();
    let mut got = vec![0u8; want.len()];
    tokio::time::timeout(Duration::from_secs(10), stream.read_exact(&mut got))
        .await
        .expect("reply in time")
        .expect("reply");
    assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(want));
}

/// One HTTP/1.1 exchange on a fresh connection: (status, body).
pub async fn http(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut reply = Vec::new();
    tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut reply))
        .await
        .expect("reply in time")
        .unwrap();
    let text = String::from_utf8(reply).unwrap();
    let status = text[9..12].parse().unwrap();
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    // Chunked bodies are small here: drop the chunk-size lines.
    let body = if text
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body.lines()
            .filter(|l| !l.chars().all(|c| c.is_ascii_hexdigit()))
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        body.to_string()
    };
    (status, body)
}

/// A RESP request of `args`.
pub fn resp_command(args: &[&str]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for a in args {
        out.extend_from_slice(format!("${}\r\n{a}\r\n", a.len()).as_bytes());
    }
    out
}

/// `INFO <section>`'s numeric fields as `field → value`.
pub async fn info_numbers(resp: &mut TcpStream, section: &str) -> BTreeMap<String, u64> {
    resp.write_all(&resp_command(&["INFO", section]))
        .await
        .unwrap();
    let mut got = Vec::new();
    let text = loop {
        let mut chunk = [0u8; 4096];
        let n = tokio::time::timeout(Duration::from_secs(10), resp.read(&mut chunk))
            .await
            .expect("reply in time")
            .unwrap();
        assert!(n > 0, "connection closed");
        got.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8(got.clone()).unwrap();
        let Some((head, body)) = text.split_once("\r\n") else {
            continue;
        };
        let len: usize = head.trim_start_matches('$').parse().unwrap();
        if body.len() >= len + 2 {
            break body[..len].to_string();
        }
    };
    assert!(text.starts_with("# "), "{text}");
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .filter_map(|(k, v)| Some((k.to_string(), v.parse().ok()?)))
        .collect()
}
