//! A request that makes its session panic costs that connection only: the
//! client gets the protocol's internal error and is closed, replies the
//! call had produced are not sent (they could be waiting for durability),
//! and every other connection keeps being served.

use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use parking_lot::RwLock;
use strata_service::{
    ClientInfo, Clients, DriverConfig, Flow, Protocol, RuntimeSettings, ServerInfo, Session,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// Echoes each line; panics on the line `boom`.
struct Echo;

impl Session for Echo {
    fn process(&mut self, input: &mut BytesMut, output: &mut BytesMut) -> Flow {
        while let Some(end) = input.iter().position(|&b| b == b'\n') {
            let line = input.split_to(end + 1);
            assert!(&line[..] != b"boom\n", "the session met a bug");
            output.extend_from_slice(&line);
        }
        Flow::Continue
    }
}

struct EchoProtocol;

impl Protocol for EchoProtocol {
    type Session = Echo;

    fn name(&self) -> &'static str {
        "echo"
    }

    fn open(&self, _client: Arc<ClientInfo>) -> Echo {
        Echo
    }

    fn too_many_connections(&self) -> &'static [u8] {
        b"FULL\n"
    }

    fn internal_error(&self) -> &'static [u8] {
        b"INTERNAL\n"
    }

    fn protected_mode_refusal(&self) -> &'static [u8] {
        b"PROTECTED\n"
    }
}

async fn read_all(stream: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut got))
        .await
        .expect("the connection is closed")
        .expect("read");
    got
}

async fn echo(stream: &mut TcpStream, line: &[u8]) -> Vec<u8> {
    stream.write_all(line).await.unwrap();
    let mut got = vec![0; line.len()];
    tokio::time::timeout(Duration::from_secs(10), stream.read_exact(&mut got))
        .await
        .expect("an answer")
        .unwrap();
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_request_closes_only_its_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let settings = RuntimeSettings {
        bind: addr.ip(),
        memcache_port: None,
        resp_port: None,
        threads: 2,
        data_dir: String::new(),
        max_connections: AtomicUsize::new(16),
        requirepass: RwLock::new(None),
        verbosity: AtomicU32::new(0),
    };
    let info = Arc::new(ServerInfo::new("test", settings));
    let clients = Arc::new(Clients::default());
    let shutdown = CancellationToken::new();
    let server = tokio::spawn(strata_service::serve(
        listener,
        Arc::new(EchoProtocol),
        clients.clone(),
        info,
        DriverConfig::new(1 << 16),
        shutdown.clone(),
    ));

    let mut bystander = TcpStream::connect(addr).await.unwrap();
    assert_eq!(echo(&mut bystander, b"before\n").await, b"before\n");

    let mut victim = TcpStream::connect(addr).await.unwrap();
    assert_eq!(echo(&mut victim, b"fine\n").await, b"fine\n");
    // The reply to `hi`, produced in the same call as the panic, is dropped.
    victim.write_all(b"hi\nboom\nafter\n").await.unwrap();
    assert_eq!(read_all(&mut victim).await, b"INTERNAL\n");

    assert_eq!(echo(&mut bystander, b"still here\n").await, b"still here\n");
    let mut newcomer = TcpStream::connect(addr).await.unwrap();
    assert_eq!(echo(&mut newcomer, b"new\n").await, b"new\n");

    shutdown.cancel();
    server.await.unwrap();
}
