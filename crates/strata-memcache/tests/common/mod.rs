//! Test harness: serves the memcached protocol on 127.0.0.1:0 with the real
//! connection driver, over a keyspace whose clock the test controls, and
//! speaks raw bytes to it.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::RwLock;
use strata_kv::{Clock, Keyspace, KeyspaceConfig, ManualClock};
use strata_memcache::auth_file::AuthFile;
use strata_memcache::MemcacheProtocol;
use strata_service::{Clients, RuntimeSettings, ServerInfo};
use tokio_util::sync::CancellationToken;

/// A Unix time in milliseconds well past 30 days, so relative and absolute
/// expiration times can both be exercised.
pub const START_MS: u64 = 1_700_000_000_000;

/// The commit the test server says it was built from (`stats`' `strata_commit`).
pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567-dirty";

/// One served protocol instance.
pub struct Server {
    pub addr: SocketAddr,
    pub keyspace: Arc<Keyspace>,
    pub clock: Arc<ManualClock>,
    pub clients: Arc<Clients>,
    shutdown: CancellationToken,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    pub fn start() -> Self {
        Self::with_config(KeyspaceConfig::default(), 1024)
    }

    pub fn with_config(config: KeyspaceConfig, max_connections: usize) -> Self {
        Self::serve(config, max_connections, None)
    }

    /// A server whose clients must log in with `auth`'s credentials.
    pub fn with_auth(auth: AuthFile) -> Self {
        Self::serve(KeyspaceConfig::default(), 1024, Some(auth))
    }

    fn serve(config: KeyspaceConfig, max_connections: usize, auth: Option<AuthFile>) -> Self {
        let clock = Arc::new(ManualClock::new(START_MS));
        let keyspace = Keyspace::new(config, clock.clone() as Arc<dyn Clock>);
        let settings = RuntimeSettings {
            bind: "127.0.0.1".parse().unwrap(),
            memcache_port: Some(11211),
            resp_port: None,
            threads: 2,
            data_dir: "/tmp".into(),
            max_connections: AtomicUsize::new(max_connections),
            requirepass: RwLock::new(None),
            verbosity: AtomicU32::new(0),
        };
        let info = Arc::new(ServerInfo::new("0.1.0-test", settings).with_commit(COMMIT));
        let clients = Arc::new(Clients::default());
        let protocol = Arc::new(MemcacheProtocol::with_auth(
            keyspace.clone(),
            info.clone(),
            clients.clone(),
            auth,
        ));
        let config = protocol.driver_config();
        let shutdown = CancellationToken::new();
        let (tx, rx) = std::sync::mpsc::channel();
        let thread = {
            let clients = clients.clone();
            let shutdown = shutdown.clone();
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .unwrap();
                rt.block_on(async move {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                    tx.send(listener.local_addr().unwrap()).unwrap();
                    strata_service::serve(listener, protocol, clients, info, config, shutdown)
                        .await;
                });
            })
        };
        let addr = rx.recv().unwrap();
        Self {
            addr,
            keyspace,
            clock,
            clients,
            shutdown,
            thread: Some(thread),
        }
    }

    pub fn connect(&self) -> Conn {
        let stream = TcpStream::connect(self.addr).unwrap();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(50)))
            .unwrap();
        Conn { stream }
    }

    /// Moves the keyspace clock forward.
    pub fn advance_secs(&self, secs: u64) {
        self.clock.advance_ms(secs * 1000);
    }

    pub fn now_secs(&self) -> u64 {
        self.clock.now_ms() / 1000
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A raw client connection.
pub struct Conn {
    pub stream: TcpStream,
}

const WAIT: Duration = Duration::from_secs(10);

impl Conn {
    pub fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// Reads until `n` bytes arrived (or the peer closed, or time ran out).
    pub fn read_n(&mut self, n: usize) -> Vec<u8> {
        let mut got = Vec::new();
        let deadline = Instant::now() + WAIT;
        let mut buf = [0u8; 64 * 1024];
        while got.len() < n && Instant::now() < deadline {
            match self.stream.read(&mut buf) {
                Ok(0) => break,
                Ok(k) => got.extend_from_slice(&buf[..k]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break,
            }
        }
        got
    }

    /// Sends `request` followed by `mn` and checks that the replies are
    /// exactly `expected` followed by `MN`: nothing missing, nothing extra.
    pub fn check(&mut self, request: &[u8], expected: &[u8]) {
        let mut req = request.to_vec();
        req.extend_from_slice(b"mn\r\n");
        self.send(&req);
        let mut want = expected.to_vec();
        want.extend_from_slice(b"MN\r\n");
        let got = self.read_n(want.len());
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want),
            "request: {:?}",
            String::from_utf8_lossy(request)
        );
    }

    /// Sends `request` and returns everything up to and including the
    /// terminating `MN` of a trailing `mn`.
    pub fn call(&mut self, request: &[u8]) -> Vec<u8> {
        let mut req = request.to_vec();
        req.extend_from_slice(b"mn\r\n");
        self.send(&req);
        let mut got = Vec::new();
        let deadline = Instant::now() + WAIT;
        let mut buf = [0u8; 64 * 1024];
        while !got.ends_with(b"MN\r\n") && Instant::now() < deadline {
            match self.stream.read(&mut buf) {
                Ok(0) => break,
                Ok(k) => got.extend_from_slice(&buf[..k]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => break,
            }
        }
        assert!(
            got.ends_with(b"MN\r\n"),
            "no MN after {:?}: {:?}",
            String::from_utf8_lossy(request),
            String::from_utf8_lossy(&got)
        );
        got.truncate(got.len() - 4);
        got
    }

    /// Reads until the server closes the connection; returns what came.
    pub fn read_to_close(&mut self) -> Vec<u8> {
        let mut got = Vec::new();
        let deadline = Instant::now() + WAIT;
        let mut buf = [0u8; 64 * 1024];
        while Instant::now() < deadline {
            match self.stream.read(&mut buf) {
                Ok(0) => return got,
                Ok(k) => got.extend_from_slice(&buf[..k]),
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) => {}
                Err(_) => return got,
            }
        }
        panic!(
            "connection not closed; got {:?}",
            String::from_utf8_lossy(&got)
        );
    }

    /// The CAS of `key` via `gets`.
    pub fn cas_of(&mut self, key: &str) -> u64 {
        let reply = self.call(format!("gets {key}\r\n").as_bytes());
        let text = String::from_utf8_lossy(&reply);
        let header = text.lines().next().unwrap();
        header
            .split(' ')
            .nth(4)
            .unwrap_or_else(|| panic!("no cas in {text:?}"))
            .parse()
            .unwrap()
    }

    /// The `STAT <name>` value from `stats`.
    pub fn stat(&mut self, name: &str) -> String {
        let reply = self.call(b"stats\r\n");
        let text = String::from_utf8_lossy(&reply).into_owned();
        for line in text.lines() {
            let mut parts = line.splitn(3, ' ');
            if parts.next() == Some("STAT") && parts.next() == Some(name) {
                return parts.next().unwrap_or("").to_string();
            }
        }
        panic!("no stat {name} in {text}");
    }
}
