//! What the transport tests share: test certificates written where a
//! server configuration points, a Rust TLS client, and reads that report
//! when the server closed the connection.

#![allow(dead_code)] // Each test binary uses a different part.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata_net::test_certs::{self, Issued, TestCa};
use strata_server::ServerConfig;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;

/// Longest any single wait in these tests.
pub const WAIT: Duration = Duration::from_secs(10);

/// A test CA, the server certificate it signed, and their files.
pub struct Pki {
    pub ca: TestCa,
    pub server: Issued,
    pub cert: PathBuf,
    pub key: PathBuf,
    pub ca_file: PathBuf,
}

impl Pki {
    /// Fresh certificates written under `dir`.
    pub fn new(dir: &std::path::Path) -> Pki {
        let ca = TestCa::new("strata test CA");
        let server = ca.server_cert();
        let (cert, key) = server.write(dir, "server");
        let ca_file = ca.write(dir, "ca");
        Pki {
            ca,
            server,
            cert,
            key,
            ca_file,
        }
    }

    /// Points `config` at the server certificate and key.
    pub fn configure(&self, config: &mut ServerConfig) {
        config.tls_cert_file = Some(self.cert.clone());
        config.tls_key_file = Some(self.key.clone());
    }

    /// A client trusting the CA, presenting `identity` if given.
    pub fn client(&self, identity: Option<&Issued>) -> Arc<rustls::ClientConfig> {
        test_certs::client_config(&[&self.ca], identity)
    }
}

/// A TLS connection to `addr` as `127.0.0.1`.
pub async fn tls_connect(
    addr: std::net::SocketAddr,
    client: Arc<rustls::ClientConfig>,
) -> std::io::Result<TlsStream<TcpStream>> {
    let tcp = TcpStream::connect(addr).await?;
    let connector = tokio_rustls::TlsConnector::from(client);
    tokio::time::timeout(WAIT, connector.connect(test_certs::server_name(), tcp))
        .await
        .map_err(|_| std::io::Error::other("handshake timed out"))?
}

/// Sends `request` and reads exactly `want.len()` bytes, which must be `want`.
pub async fn round_trip<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    request: &[u8],
    want: &[u8],
) {
    stream.write_all(request).await.unwrap();
    stream.flush().await.unwrap();
    let mut got = vec![0u8; want.len()];
    tokio::time::timeout(WAIT, stream.read_exact(&mut got))
        .await
        .expect("reply in time")
        .expect("reply");
    assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(want));
}

/// Reads until the server closes (or resets) the connection, for at most
/// `limit`; returns what arrived and `None` when it never closed.
pub async fn read_until_closed<S: AsyncRead + Unpin>(
    stream: &mut S,
    limit: Duration,
) -> (Vec<u8>, bool) {
    let mut got = Vec::new();
    let deadline = tokio::time::Instant::now() + limit;
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return (got, false),
            Ok(Ok(0)) | Ok(Err(_)) => return (got, true),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// Sends `bytes` one per `every`, stopping when the server closes the
/// connection; returns how long after the first byte it closed, `None`
/// when all were sent and it was still open `linger` later.
pub async fn trickle(
    stream: &mut TcpStream,
    bytes: &[u8],
    every: Duration,
    linger: Duration,
) -> Option<Duration> {
    let started = Instant::now();
    for byte in bytes {
        if stream.write_all(&[*byte]).await.is_err() {
            return Some(started.elapsed());
        }
        let mut buf = [0u8; 1024];
        match tokio::time::timeout(every, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) | Err(_) => {}
        }
    }
    let (_, closed) = read_until_closed(stream, linger).await;
    closed.then(|| started.elapsed())
}

/// A minimal HTTP/1.1 request with keep-alive.
pub fn http_request(method: &str, path: &str, body: &str) -> Vec<u8> {
    format!(
        "{method} {path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads one HTTP response (head and `content-length` body); returns the
/// status and the body.
pub async fn read_response<S: AsyncRead + Unpin>(stream: &mut S) -> (u16, String) {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_string();
            let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
            let length: usize = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse().unwrap())
                })
                .unwrap_or(0);
            while data.len() < end + 4 + length {
                let n = tokio::time::timeout(WAIT, stream.read(&mut buf))
                    .await
                    .unwrap()
                    .unwrap();
                assert!(n > 0, "closed inside a response body");
                data.extend_from_slice(&buf[..n]);
            }
            let body = String::from_utf8_lossy(&data[end + 4..end + 4 + length]).to_string();
            return (status, body);
        }
        let n = tokio::time::timeout(WAIT, stream.read(&mut buf))
            .await
            .expect("response in time")
            .unwrap();
        assert!(
            n > 0,
            "closed before a response: {:?}",
            String::from_utf8_lossy(&data)
        );
        data.extend_from_slice(&buf[..n]);
    }
}
