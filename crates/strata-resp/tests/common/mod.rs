//! Test harness: the RESP front end served by `strata_service::serve` on
//! 127.0.0.1:0 over a keyspace driven by a manual clock, and a blocking raw
//! RESP client.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::RwLock;
use strata_kv::{EvictionPolicy, Keyspace, KeyspaceConfig, ManualClock};
use strata_resp::acl::Acl;
use strata_resp::protected::Protected;
use strata_resp::RespProtocol;
use strata_service::{serve, Clients, RuntimeSettings, ServerInfo};
use tokio_util::sync::CancellationToken;

pub mod model;
pub mod peer;
pub mod random_writes;

/// Cases per property, by the test-scale scheme (README, "Tests"):
/// `STRATA_FUZZ_CASES=N` exactly N, else `full` under `STRATA_TEST_FULL`
/// (set and not `0`), else `quick`.
pub fn fuzz_cases(quick: u32, full: u32) -> u32 {
    let long = std::env::var("STRATA_TEST_FULL").is_ok_and(|v| !v.is_empty() && v != "0");
    std::env::var("STRATA_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if long { full } else { quick })
}

/// Start of the manual clock: 2025-01-01T00:00:00Z.
pub const T0_MS: u64 = 1_735_689_600_000;

/// The commit the test server says it was built from (`INFO server`).
pub const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567-dirty";

/// A running front end.
pub struct Server {
    pub addr: SocketAddr,
    pub clock: Arc<ManualClock>,
    pub keyspace: Arc<Keyspace>,
    pub info: Arc<ServerInfo>,
    pub clients: Arc<Clients>,
    shutdown: CancellationToken,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shutdown.cancel();
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

/// Starts a server with default engine settings and no password.
pub fn start() -> Server {
    start_with(
        KeyspaceConfig {
            shards: 4,
            ..KeyspaceConfig::default()
        },
        None,
    )
}

/// Starts a server with `config` and `requirepass`.
pub fn start_with(config: KeyspaceConfig, requirepass: Option<&str>) -> Server {
    let acl = Acl::new(requirepass);
    start_with_acl(config, requirepass, acl, false, Protected::No)
}

/// Starts a server with default engine settings, `requirepass` and the
/// users of `acl` (e.g. read from an ACL file).
pub fn start_acl(requirepass: Option<&str>, acl: Acl) -> Server {
    let config = KeyspaceConfig {
        shards: 4,
        ..KeyspaceConfig::default()
    };
    start_with_acl(config, requirepass, acl, false, Protected::No)
}

/// Starts a server with default engine settings where `DEBUG` is allowed
/// as `debug` says (`enable-debug-command`).
pub fn start_debug(debug: Protected) -> Server {
    let config = KeyspaceConfig {
        shards: 4,
        ..KeyspaceConfig::default()
    };
    start_with_acl(config, None, Acl::new(None), false, debug)
}

fn start_with_acl(
    config: KeyspaceConfig,
    requirepass: Option<&str>,
    acl: Acl,
    cluster: bool,
    debug: Protected,
) -> Server {
    let clock = Arc::new(ManualClock::new(T0_MS));
    let keyspace = Keyspace::new(config, clock.clone());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let settings = RuntimeSettings {
        bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
        memcache_port: None,
        resp_port: Some(addr.port()),
        threads: 2,
        data_dir: String::new(),
        max_connections: AtomicUsize::new(64),
        requirepass: RwLock::new(requirepass.map(str::to_string)),
        verbosity: AtomicU32::new(0),
    };
    let info = Arc::new(ServerInfo::new("0.1.0-test", settings).with_commit(COMMIT));
    let clients = Arc::new(Clients::default());
    let protocol = Arc::new(RespProtocol::with_acl(
        keyspace.clone(),
        info.clone(),
        clients.clone(),
        acl,
    ));
    protocol.set_enable_debug_command(debug);
    if cluster {
        protocol
            .enable_cluster(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port(), None)
            .expect("no cluster config file to read");
    }
    let shutdown = CancellationToken::new();
    runtime.spawn(serve(
        listener,
        protocol.clone(),
        clients.clone(),
        info.clone(),
        protocol.driver_config(),
        shutdown.clone(),
    ));
    Server {
        addr,
        clock,
        keyspace,
        info,
        clients,
        shutdown,
        runtime: Some(runtime),
    }
}

/// Starts a server in Redis Cluster mode (a one-node cluster).
pub fn start_cluster() -> Server {
    let config = KeyspaceConfig {
        shards: 4,
        ..KeyspaceConfig::default()
    };
    start_with_acl(config, None, Acl::new(None), true, Protected::No)
}

/// Starts a server whose engine evicts (cache mode).
pub fn start_cache(memory_limit: u64) -> Server {
    start_with(
        KeyspaceConfig {
            memory_limit,
            eviction: EvictionPolicy::Clock,
            shards: 4,
            ..KeyspaceConfig::default()
        },
        None,
    )
}

/// A decoded reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Simple(String),
    Error(String),
    Int(i64),
    Bulk(Vec<u8>),
    /// `$-1` or `_`.
    Null,
    /// `*-1`.
    NullArray,
    Array(Vec<Value>),
    Map(Vec<(Value, Value)>),
    Set(Vec<Value>),
    Double(String),
    Bool(bool),
    Verbatim(String, Vec<u8>),
    /// RESP3 `>`: an out-of-band message.
    Push(Vec<Value>),
    /// RESP3 `(`: a big number's digits.
    BigNumber(String),
    /// RESP3 `|`: attributes (pairs flattened), read as a reply of their
    /// own.
    Attribute(Vec<Value>),
}

impl Value {
    pub fn bulk(s: &str) -> Value {
        Value::Bulk(s.as_bytes().to_vec())
    }

    pub fn ok() -> Value {
        Value::Simple("OK".into())
    }

    pub fn err(s: &str) -> Value {
        Value::Error(s.into())
    }

    /// The text of a bulk, simple or verbatim string.
    pub fn text(&self) -> String {
        match self {
            Value::Bulk(b) | Value::Verbatim(_, b) => String::from_utf8_lossy(b).into_owned(),
            Value::Simple(s) | Value::Error(s) | Value::Double(s) => s.clone(),
            other => panic!("not a string: {other:?}"),
        }
    }

    pub fn array(&self) -> &[Value] {
        match self {
            Value::Array(v) | Value::Set(v) => v,
            other => panic!("not an array: {other:?}"),
        }
    }
}

/// A blocking RESP client.
pub struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Client {
    /// A client on an open connection, patient (10-minute reads).
    pub fn from_stream(stream: TcpStream) -> Client {
        stream
            .set_read_timeout(Some(Duration::from_secs(600)))
            .expect("timeout");
        stream.set_nodelay(true).expect("nodelay");
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    pub fn connect(server: &Server) -> Client {
        let stream = TcpStream::connect(server.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        stream.set_nodelay(true).expect("nodelay");
        Client {
            stream,
            buf: Vec::new(),
        }
    }

    /// Sends one request as a multibulk array.
    pub fn send(&mut self, args: &[&[u8]]) {
        self.stream.write_all(&encode(args)).expect("write");
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("write");
    }

    /// Sends `args` (space-free words) and reads the reply.
    pub fn cmd(&mut self, args: &[&str]) -> Value {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        self.send(&args);
        self.read()
    }

    /// [`cmd`](Self::cmd), but `None` when the server closed the
    /// connection (write failed, or the read ended or was reset).
    pub fn try_cmd(&mut self, args: &[&str]) -> Option<Value> {
        let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
        self.stream.write_all(&encode(&args)).ok()?;
        loop {
            if let Some((value, used)) = decode(&self.buf) {
                self.buf.drain(..used);
                return Some(value);
            }
            let mut chunk = [0u8; 16384];
            match self.stream.read(&mut chunk) {
                Ok(0) | Err(_) => return None,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
    }

    /// Another handle on the connection's socket (raw writes).
    pub fn stream_clone(&self) -> TcpStream {
        self.stream.try_clone().expect("clone")
    }

    pub fn cmd_bytes(&mut self, args: &[&[u8]]) -> Value {
        self.send(args);
        self.read()
    }

    fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 16384];
        match self.stream.read(&mut chunk) {
            Ok(0) => false,
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                true
            }
            Err(e) => panic!("read: {e}"),
        }
    }

    /// Reads one reply.
    pub fn read(&mut self) -> Value {
        loop {
            if let Some((value, used)) = decode(&self.buf) {
                self.buf.drain(..used);
                return value;
            }
            assert!(self.fill(), "connection closed while waiting for a reply");
        }
    }

    /// Reads exactly the bytes of `expected` and compares.
    pub fn expect_raw(&mut self, expected: &[u8]) {
        while self.buf.len() < expected.len() {
            assert!(
                self.fill(),
                "closed; got {:?}",
                String::from_utf8_lossy(&self.buf)
            );
        }
        let got: Vec<u8> = self.buf.drain(..expected.len()).collect();
        assert_eq!(
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(expected)
        );
    }

    /// True when the server closed the connection (after any buffered data).
    pub fn is_closed(&mut self) -> bool {
        self.buf.clear();
        let mut chunk = [0u8; 1024];
        loop {
            match self.stream.read(&mut chunk) {
                Ok(0) => return true,
                Ok(_) => continue,
                Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => return true,
                Err(_) => return false,
            }
        }
    }
}

pub fn encode(args: &[&[u8]]) -> Vec<u8> {
    let mut out = format!("*{}\r\n", args.len()).into_bytes();
    for arg in args {
        out.extend_from_slice(format!("${}\r\n", arg.len()).as_bytes());
        out.extend_from_slice(arg);
        out.extend_from_slice(b"\r\n");
    }
    out
}

fn line(buf: &[u8]) -> Option<(&str, usize)> {
    let end = buf.windows(2).position(|w| w == b"\r\n")?;
    Some((
        std::str::from_utf8(&buf[1..end]).expect("utf8 header"),
        end + 2,
    ))
}

/// Decodes one RESP2/RESP3 value at the front of `buf`.
pub fn decode(buf: &[u8]) -> Option<(Value, usize)> {
    let (text, mut used) = line(buf)?;
    let value = match buf[0] {
        b'+' => Value::Simple(text.into()),
        b'-' => Value::Error(text.into()),
        b':' => Value::Int(text.parse().expect("int")),
        b',' => Value::Double(text.into()),
        b'(' => Value::BigNumber(text.into()),
        b'#' => Value::Bool(text == "t"),
        b'_' => Value::Null,
        b'$' | b'=' => {
            let n: i64 = text.parse().expect("len");
            if n < 0 {
                return Some((Value::Null, used));
            }
            let n = n as usize;
            if buf.len() < used + n + 2 {
                return None;
            }
            let data = buf[used..used + n].to_vec();
            used += n + 2;
            if buf[0] == b'=' {
                let format = String::from_utf8_lossy(&data[..3]).into_owned();
                Value::Verbatim(format, data[4..].to_vec())
            } else {
                Value::Bulk(data)
            }
        }
        b'*' | b'~' | b'%' | b'>' | b'|' => {
            let n: i64 = text.parse().expect("len");
            if n < 0 {
                return Some((Value::NullArray, used));
            }
            let count = if matches!(buf[0], b'%' | b'|') {
                n as usize * 2
            } else {
                n as usize
            };
            let mut items = Vec::with_capacity(count);
            for _ in 0..count {
                let (item, n) = decode(&buf[used..])?;
                used += n;
                items.push(item);
            }
            match buf[0] {
                b'*' => Value::Array(items),
                b'~' => Value::Set(items),
                b'>' => Value::Push(items),
                b'|' => Value::Attribute(items),
                _ => {
                    let mut pairs = Vec::new();
                    let mut it = items.into_iter();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        pairs.push((k, v));
                    }
                    Value::Map(pairs)
                }
            }
        }
        other => panic!("unknown reply type {:?}", other as char),
    };
    Some((value, used))
}

/// Shorthand for building expected arrays of bulk strings.
pub fn bulks(items: &[&str]) -> Value {
    Value::Array(items.iter().map(|s| Value::bulk(s)).collect())
}
