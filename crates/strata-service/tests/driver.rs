//! The connection driver's contract, with a line protocol written for the
//! test: held replies wait for their durability future and keep pipeline
//! order (and a failed one answers the failure and closes); a pipeline of
//! large replies to a client that does not read stops being processed
//! (flow control) and then arrives whole; input past `max_input` closes
//! the connection; clients past `max_connections` get the refusal; a
//! client closed from outside is closed; shutdown flushes what was
//! produced.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use parking_lot::{Mutex, RwLock};
use strata_service::{
    ClientInfo, Clients, DriverConfig, DurableFuture, Flow, Hold, IdleTimeout, Protocol,
    RuntimeSettings, ServerInfo, Session, OUTPUT_SOFT_LIMIT,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

/// Bytes of the reply to `big`.
const BIG: usize = 256 * 1024;
const WAIT: Duration = Duration::from_secs(10);

/// What the test shares with every session.
#[derive(Default)]
struct Shared {
    /// Requests processed, all sessions together.
    processed: AtomicUsize,
    /// The futures the next `hold` requests wait for.
    holds: Mutex<Vec<DurableFuture>>,
}

/// `big`: a reply of `BIG` bytes; `hold`: its reply waits for the next
/// future in `Shared::holds`; anything else is echoed.
struct Lines {
    shared: Arc<Shared>,
    hold: Option<Hold>,
}

impl Session for Lines {
    fn process(&mut self, input: &mut BytesMut, output: &mut BytesMut) -> Flow {
        while let Some(end) = input.iter().position(|&b| b == b'\n') {
            if output.len() >= OUTPUT_SOFT_LIMIT {
                return Flow::Yield;
            }
            let line = input.split_to(end + 1);
            self.shared.processed.fetch_add(1, Ordering::SeqCst);
            match &line[..] {
                b"big\n" => output.extend_from_slice(&[b'b'; BIG]),
                b"hold\n" if self.hold.is_none() => {
                    let until = self.shared.holds.lock().remove(0);
                    self.hold = Some(Hold {
                        from: output.len(),
                        until,
                        on_failure: |cause| format!("FAILED {cause}\n").into_bytes(),
                    });
                    output.extend_from_slice(&line);
                }
                b"quit\n" => return Flow::Close,
                _ => output.extend_from_slice(&line),
            }
        }
        Flow::Continue
    }

    fn hold(&mut self) -> Option<Hold> {
        self.hold.take()
    }
}

struct LineProtocol(Arc<Shared>);

impl Protocol for LineProtocol {
    type Session = Lines;

    fn name(&self) -> &'static str {
        "lines"
    }

    fn open(&self, _client: Arc<ClientInfo>) -> Lines {
        Lines {
            shared: self.0.clone(),
            hold: None,
        }
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
    shared: Arc<Shared>,
    clients: Arc<Clients>,
    idle: IdleTimeout,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Server {
    async fn start(max_connections: usize, max_input: usize) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let settings = RuntimeSettings {
            bind: addr.ip(),
            memcache_port: None,
            resp_port: None,
            threads: 2,
            data_dir: String::new(),
            max_connections: AtomicUsize::new(max_connections),
            requirepass: RwLock::new(None),
            verbosity: AtomicU32::new(0),
        };
        let shared = Arc::new(Shared::default());
        let clients = Arc::new(Clients::default());
        let shutdown = CancellationToken::new();
        let config = DriverConfig::new(max_input);
        let idle = config.idle_timeout.clone();
        let task = tokio::spawn(strata_service::serve(
            listener,
            Arc::new(LineProtocol(shared.clone())),
            clients.clone(),
            Arc::new(ServerInfo::new("test", settings)),
            config,
            shutdown.clone(),
        ));
        Server {
            addr,
            shared,
            clients,
            idle,
            shutdown,
            task,
        }
    }

    /// A future for the next `hold`, resolved through the sender.
    fn next_hold(&self) -> oneshot::Sender<Result<(), String>> {
        let (tx, rx) = oneshot::channel();
        let until: DurableFuture =
            Box::pin(async move { rx.await.unwrap_or_else(|_| Err("dropped".into())) });
        self.shared.holds.lock().push(until);
        tx
    }

    fn processed(&self) -> usize {
        self.shared.processed.load(Ordering::SeqCst)
    }

    async fn stop(self) {
        self.shutdown.cancel();
        self.task.await.unwrap();
    }
}

async fn read_exactly(stream: &mut TcpStream, len: usize) -> Vec<u8> {
    let mut got = vec![0; len];
    tokio::time::timeout(WAIT, stream.read_exact(&mut got))
        .await
        .expect("an answer in time")
        .expect("read");
    got
}

async fn read_to_close(stream: &mut TcpStream) -> Vec<u8> {
    let mut got = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut got))
        .await
        .expect("the connection is closed")
        .expect("read");
    got
}

/// Nothing arrives within a short while.
async fn silent(stream: &mut TcpStream) {
    let mut byte = [0u8];
    let read = tokio::time::timeout(Duration::from_millis(300), stream.read(&mut byte)).await;
    assert!(read.is_err(), "something arrived: {read:?} {byte:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn held_replies_wait_for_durability_and_keep_pipeline_order() {
    let server = Server::start(16, 1 << 16).await;
    let release = server.next_hold();
    let mut client = TcpStream::connect(server.addr).await.unwrap();
    client.write_all(b"a\nhold\nb\n").await.unwrap();
    // The reply before the hold goes at once, the rest waits.
    assert_eq!(read_exactly(&mut client, 2).await, b"a\n");
    silent(&mut client).await;
    // Input sent meanwhile is not processed until the hold resolves.
    client.write_all(b"c\n").await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(server.processed(), 3);
    release.send(Ok(())).unwrap();
    assert_eq!(read_exactly(&mut client, 9).await, b"hold\nb\nc\n");
    assert_eq!(server.processed(), 4);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_hold_sends_the_failure_never_the_held_replies_and_closes() {
    let server = Server::start(16, 1 << 16).await;
    let fail = server.next_hold();
    let mut client = TcpStream::connect(server.addr).await.unwrap();
    client.write_all(b"a\nhold\nb\n").await.unwrap();
    assert_eq!(read_exactly(&mut client, 2).await, b"a\n");
    fail.send(Err("disk gone".into())).unwrap();
    assert_eq!(read_to_close(&mut client).await, b"FAILED disk gone\n");
    // Others are still served.
    let mut other = TcpStream::connect(server.addr).await.unwrap();
    other.write_all(b"x\n").await.unwrap();
    assert_eq!(read_exactly(&mut other, 2).await, b"x\n");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_stops_its_pipeline_which_then_arrives_whole() {
    let server = Server::start(16, 1 << 20).await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(64 * 1024).unwrap();
    let mut client = socket.connect(server.addr).await.unwrap();
    const REQUESTS: usize = 200;
    client.write_all(&b"big\n".repeat(REQUESTS)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    // 200 replies are 50 MiB; the server holds about its soft limit plus
    // what the socket buffers take, not the whole pipeline.
    let processed = server.processed();
    assert!(
        processed < REQUESTS / 2,
        "{processed} of {REQUESTS} processed while the client read nothing"
    );
    let got = read_exactly(&mut client, REQUESTS * BIG).await;
    assert!(got.iter().all(|&b| b == b'b'));
    assert_eq!(server.processed(), REQUESTS);
    client.write_all(b"end\n").await.unwrap();
    assert_eq!(read_exactly(&mut client, 4).await, b"end\n");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_past_max_input_closes_the_connection() {
    let server = Server::start(16, 4096).await;
    let mut client = TcpStream::connect(server.addr).await.unwrap();
    client.write_all(b"ok\n").await.unwrap();
    assert_eq!(read_exactly(&mut client, 3).await, b"ok\n");
    // A line that never ends: the session keeps it, the driver refuses
    // to buffer past the bound. The write may fail once it closes.
    let _ = client.write_all(&[b'x'; 64 * 1024]).await;
    assert_eq!(read_to_close(&mut client).await, b"");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_past_max_connections_are_refused_and_counted() {
    let server = Server::start(2, 1 << 16).await;
    let mut first = TcpStream::connect(server.addr).await.unwrap();
    let mut second = TcpStream::connect(server.addr).await.unwrap();
    for c in [&mut first, &mut second] {
        c.write_all(b"hi\n").await.unwrap();
        assert_eq!(read_exactly(c, 3).await, b"hi\n");
    }
    let mut third = TcpStream::connect(server.addr).await.unwrap();
    assert_eq!(read_to_close(&mut third).await, b"FULL\n");
    assert_eq!(server.clients.rejected(), 1);
    // A place freed is a place taken.
    first.write_all(b"quit\n").await.unwrap();
    assert_eq!(read_to_close(&mut first).await, b"");
    let deadline = tokio::time::Instant::now() + WAIT;
    while server.clients.current() > 1 {
        assert!(tokio::time::Instant::now() < deadline, "never unregistered");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut fourth = TcpStream::connect(server.addr).await.unwrap();
    fourth.write_all(b"in\n").await.unwrap();
    assert_eq!(read_exactly(&mut fourth, 3).await, b"in\n");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_closed_from_outside_and_shutdown_close_connections() {
    let server = Server::start(16, 1 << 16).await;
    let mut killed = TcpStream::connect(server.addr).await.unwrap();
    let mut kept = TcpStream::connect(server.addr).await.unwrap();
    for c in [&mut killed, &mut kept] {
        c.write_all(b"hi\n").await.unwrap();
        assert_eq!(read_exactly(c, 3).await, b"hi\n");
    }
    let victim = server
        .clients
        .list()
        .into_iter()
        .min_by_key(|c| c.id)
        .unwrap();
    victim.close();
    assert_eq!(read_to_close(&mut killed).await, b"");
    kept.write_all(b"still\n").await.unwrap();
    assert_eq!(read_exactly(&mut kept, 6).await, b"still\n");
    server.shutdown.cancel();
    assert_eq!(read_to_close(&mut kept).await, b"");
    server.task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_idle_limit_applies_to_waiting_connections_from_their_last_request() {
    let server = Server::start(16, 1 << 16).await;
    let mut waiting = TcpStream::connect(server.addr).await.unwrap();
    waiting.write_all(b"hi\n").await.unwrap();
    assert_eq!(read_exactly(&mut waiting, 3).await, b"hi\n");
    // No limit: left open.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    waiting.write_all(b"again\n").await.unwrap();
    assert_eq!(read_exactly(&mut waiting, 6).await, b"again\n");
    tokio::time::sleep(Duration::from_millis(1200)).await;
    // Idle for 1.2 s already when a 1 s limit comes: closed at once, not a
    // second later.
    let set = std::time::Instant::now();
    server.idle.set(1);
    assert_eq!(read_to_close(&mut waiting).await, b"");
    assert!(
        set.elapsed() < Duration::from_millis(600),
        "closed {:?} after the limit was set",
        set.elapsed()
    );
    // A fresh connection is closed after the limit, not before.
    let mut fresh = TcpStream::connect(server.addr).await.unwrap();
    fresh.write_all(b"x\n").await.unwrap();
    assert_eq!(read_exactly(&mut fresh, 2).await, b"x\n");
    let since = std::time::Instant::now();
    assert_eq!(read_to_close(&mut fresh).await, b"");
    assert!(
        since.elapsed() >= Duration::from_millis(900),
        "{:?}",
        since.elapsed()
    );
    // Back to no limit while a connection waits under the 1 s one: it is
    // told, and stays open past its old deadline.
    let mut kept = TcpStream::connect(server.addr).await.unwrap();
    kept.write_all(b"y\n").await.unwrap();
    assert_eq!(read_exactly(&mut kept, 2).await, b"y\n");
    server.idle.set(0);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    kept.write_all(b"z\n").await.unwrap();
    assert_eq!(read_exactly(&mut kept, 2).await, b"z\n");
    server.stop().await;
}
