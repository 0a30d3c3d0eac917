//! Connections on a [`WorkerPool`]: each runs on a pool worker, new ones
//! go to the least loaded active worker, and when the active count
//! changes they move between two requests with their state (a partial
//! request, the session) intact and replies in order; shutdown closes
//! them wherever they run.

use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use parking_lot::RwLock;
use strata_service::workers::{current, WorkerPolicy};
use strata_service::{
    ClientInfo, Clients, DriverConfig, Flow, Protocol, RuntimeSettings, ServerInfo, Session,
    WorkerPool,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(10);

/// `where`: the worker serving it and the requests this session served
/// (`w<worker> n<count>`); anything else is echoed.
struct Where {
    served: u64,
}

impl Session for Where {
    fn process(&mut self, input: &mut BytesMut, output: &mut BytesMut) -> Flow {
        while let Some(end) = input.iter().position(|&b| b == b'\n') {
            let line = input.split_to(end + 1);
            self.served += 1;
            if &line[..] == b"where\n" {
                let worker = current().map_or(-1, |w| w as i64);
                output.extend_from_slice(format!("w{worker} n{}\n", self.served).as_bytes());
            } else {
                output.extend_from_slice(&line);
            }
        }
        Flow::Continue
    }
}

struct WhereProtocol;

impl Protocol for WhereProtocol {
    type Session = Where;

    fn name(&self) -> &'static str {
        "where"
    }

    fn open(&self, _client: Arc<ClientInfo>) -> Where {
        Where { served: 0 }
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

struct Server {
    addr: std::net::SocketAddr,
    pool: Arc<WorkerPool>,
    clients: Arc<Clients>,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

async fn start(workers: usize) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let settings = RuntimeSettings {
        bind: addr.ip(),
        memcache_port: None,
        resp_port: None,
        threads: workers,
        data_dir: String::new(),
        max_connections: AtomicUsize::new(64),
        requirepass: RwLock::new(None),
        verbosity: AtomicU32::new(0),
    };
    let pool = Arc::new(WorkerPool::start(workers, "test-conn", WorkerPolicy::Fixed).unwrap());
    let clients = Arc::new(Clients::default());
    let shutdown = CancellationToken::new();
    let config = DriverConfig {
        workers: Some(pool.clone()),
        ..DriverConfig::new(1 << 16)
    };
    let task = tokio::spawn(strata_service::serve(
        listener,
        Arc::new(WhereProtocol),
        clients.clone(),
        Arc::new(ServerInfo::new("test", settings)),
        config,
        shutdown.clone(),
    ));
    Server {
        addr,
        pool,
        clients,
        shutdown,
        task,
    }
}

/// Sends `request` and reads one reply line.
async fn ask(stream: &mut TcpStream, request: &[u8]) -> String {
    stream.write_all(request).await.unwrap();
    let mut line = Vec::new();
    let mut byte = [0u8];
    while line.last() != Some(&b'\n') {
        let n = tokio::time::timeout(WAIT, stream.read(&mut byte))
            .await
            .expect("a reply in time")
            .unwrap();
        assert_eq!(n, 1, "closed after {line:?}");
        line.push(byte[0]);
    }
    String::from_utf8(line).unwrap()
}

/// `n` clients of `server`, each answered once (so each is on a worker).
async fn served_clients(server: &Server, n: usize) -> Vec<TcpStream> {
    let mut conns = Vec::new();
    for _ in 0..n {
        let mut c = TcpStream::connect(server.addr).await.unwrap();
        ask(&mut c, b"where\n").await;
        conns.push(c);
    }
    conns
}

/// Reads `stream` to its end, which the server must reach within [`WAIT`].
async fn closed_by_server(stream: &mut TcpStream) {
    let mut rest = Vec::new();
    let read = tokio::time::timeout(WAIT, stream.read_to_end(&mut rest)).await;
    assert!(matches!(read, Ok(Ok(_))), "closed: {read:?}");
}

/// Waits until `done` holds, failing with `state()` after [`WAIT`].
async fn wait_until(done: impl Fn() -> bool, state: impl Fn() -> String) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !done() {
        assert!(tokio::time::Instant::now() < deadline, "{}", state());
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Waits until the pool's load is `want`.
async fn load_becomes(pool: &WorkerPool, want: &[usize]) {
    wait_until(|| pool.load() == want, || format!("load {:?}", pool.load())).await;
}

/// Waits until the registry counts `want` clients.
async fn clients_become(clients: &Clients, want: usize) {
    let state = || format!("{} clients registered, not {want}", clients.current());
    wait_until(|| clients.current() == want, state).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_run_on_the_pool_and_spread_over_its_workers() {
    let server = start(2).await;
    let mut a = TcpStream::connect(server.addr).await.unwrap();
    assert_eq!(ask(&mut a, b"where\n").await, "w0 n1\n");
    let mut b = TcpStream::connect(server.addr).await.unwrap();
    assert_eq!(ask(&mut b, b"where\n").await, "w1 n1\n");
    assert_eq!(ask(&mut a, b"hello\n").await, "hello\n");
    assert_eq!(server.pool.load(), vec![1, 1]);
    drop((a, b));
    load_becomes(&server.pool, &[0, 0]).await;
    assert_eq!(server.clients.current(), 0);
    server.shutdown.cancel();
    server.task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_move_between_requests_keeping_their_state() {
    let server = start(2).await;
    server.pool.set_active(1);
    let mut conns = Vec::new();
    for _ in 0..4 {
        let mut c = TcpStream::connect(server.addr).await.unwrap();
        assert_eq!(ask(&mut c, b"where\n").await, "w0 n1\n");
        conns.push(c);
    }
    assert_eq!(server.pool.load(), vec![4, 0]);
    // A reply is sent before its connection looks for a move: let each
    // reach its read first.
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.pool.set_active(2);
    // Each connection waits in a read on worker 0: its next request is
    // served there, with a partial one left behind; then half move.
    for c in &mut conns {
        assert_eq!(ask(c, b"where\nwhe").await, "w0 n2\n");
    }
    load_becomes(&server.pool, &[2, 2]).await;
    let mut on = [0, 0];
    for c in &mut conns {
        // The partial request is completed on whichever worker it is on
        // now, by the same session (its count goes on).
        let reply = ask(c, b"re\n").await;
        let worker = usize::from(reply == "w1 n3\n");
        assert!(reply == "w0 n3\n" || reply == "w1 n3\n", "{reply:?}");
        on[worker] += 1;
    }
    assert_eq!(on, [2, 2]);
    // Back to one worker: those on worker 1 come back after one request.
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.pool.set_active(1);
    for c in &mut conns {
        ask(c, b"ping\n").await;
    }
    load_becomes(&server.pool, &[4, 0]).await;
    for c in &mut conns {
        assert_eq!(ask(c, b"where\n").await, "w0 n5\n");
    }
    server.shutdown.cancel();
    server.task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_connections_on_every_worker() {
    let server = start(2).await;
    let mut conns = served_clients(&server, 4).await;
    assert_eq!(server.pool.load(), vec![2, 2]);
    server.shutdown.cancel();
    server.task.await.unwrap();
    for c in &mut conns {
        closed_by_server(c).await;
    }
    load_becomes(&server.pool, &[0, 0]).await;
    assert_eq!(server.clients.current(), 0);
    server.pool.stop();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_dropped_with_their_worker_are_unregistered() {
    let server = start(2).await;
    let mut conns = served_clients(&server, 3).await;
    assert_eq!(server.clients.current(), 3);
    // The workers stop under live connections (no shutdown first): their
    // tasks are dropped, not finished, and must still leave the registry.
    server.pool.stop();
    clients_become(&server.clients, 0).await;
    for c in &mut conns {
        closed_by_server(c).await;
    }
    // A client accepted now is handed to a stopped worker, whose task
    // never runs: it is closed and not left counted.
    let mut late = TcpStream::connect(server.addr).await.unwrap();
    closed_by_server(&mut late).await;
    clients_become(&server.clients, 0).await;
    server.shutdown.cancel();
    server.task.await.unwrap();
}
