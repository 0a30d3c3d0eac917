//! The connection driver: accepts clients on a [`Listener`] and runs each
//! one's read → [`Session::process`] → write loop on the tokio runtime.
//!
//! Invariants: a connection over `max_connections` gets the protocol's refusal
//! (on a TLS port it is just closed: nothing can be said before a
//! handshake) and is closed; a client protected mode refuses gets the
//! protocol's protected-mode refusal after the handshake and is closed;
//! the input buffer never holds more than
//! [`DriverConfig::max_input`] bytes (the session is responsible for consuming
//! requests; a session that lets input pile up beyond that is closed); a
//! connection idle for its [`IdleTimeout`], or whose pending request does
//! not arrive (or whose replies are not taken) within
//! [`DriverConfig::request_timeout`], is closed (see [`crate::timeouts`]);
//! on shutdown the accept loop stops and every connection is closed after
//! the replies already produced are flushed; a client closed from outside
//! ([`ClientInfo::close`]) is closed the same way. A request whose
//! processing panics is logged, answered with the protocol's internal
//! error and its connection closed, and nothing else is affected.

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use strata_net::{Connection, Incoming, Listener};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_util::sync::CancellationToken;

use crate::clients::{ClientInfo, Clients};
use crate::panic_guard;
use crate::send_policy::SendPolicy;
use crate::server_info::ServerInfo;
use crate::session::{Flow, Protocol, Session};
use crate::timeouts::{IdleTimeout, RequestClock, DEFAULT_REQUEST_TIMEOUT};

mod socket;

use socket::{raw_fd, read_some, send, wait_for, ReadEnd};

/// Per-listener limits.
#[derive(Debug, Clone)]
pub struct DriverConfig {
    /// Largest amount of unprocessed input a connection may buffer; beyond it
    /// the connection is closed. Protocols set it above their largest legal
    /// request (maximum item size plus framing).
    pub max_input: usize,
    /// How long a connection may send nothing (none by default).
    pub idle_timeout: IdleTimeout,
    /// How long a started request may take to arrive, and a batch of
    /// replies to be taken (also the TLS handshake's bound on TLS ports).
    pub request_timeout: Duration,
}

impl DriverConfig {
    /// Limits with `max_input`, no idle limit and the default request bound.
    pub fn new(max_input: usize) -> Self {
        Self {
            max_input,
            idle_timeout: IdleTimeout::default(),
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
        }
    }
}

const READ_CHUNK: usize = 16 * 1024;
/// Output buffers larger than this are released after a flush so that one
/// large reply does not pin memory for the life of a connection.
const KEEP_OUTPUT_CAPACITY: usize = 256 * 1024;
/// Traffic is added to the shared counters in batches of this many bytes.
const TRAFFIC_BATCH: u64 = 64 * 1024;

/// Serves `protocol` on `listener` until `shutdown` is cancelled. A plain
/// `TcpListener` converts into a plain, unprotected [`Listener`].
pub async fn serve<P: Protocol>(
    listener: impl Into<Listener>,
    protocol: Arc<P>,
    clients: Arc<Clients>,
    info: Arc<ServerInfo>,
    config: DriverConfig,
    shutdown: CancellationToken,
) {
    let mut listener = listener.into();
    loop {
        let incoming = tokio::select! {
            _ = shutdown.cancelled() => {
                // Connections stop reading: through their signals, not a
                // wait on the token each (see `signal`).
                clients.shut_down();
                break;
            }
            incoming = listener.accept() => incoming,
        };
        if clients.current() >= info.settings.max_connections() {
            clients.count_rejected();
            incoming.refuse(protocol.too_many_connections());
            continue;
        }
        let client = clients.register(incoming.peer_addr(), incoming.local_addr());
        let protocol = protocol.clone();
        let clients = clients.clone();
        let config = config.clone();
        let shutdown = shutdown.clone();
        let failure = Failure {
            protocol: protocol.name(),
            client: client.id,
            reply: protocol.internal_error(),
        };
        tokio::spawn(async move {
            let id = client.id;
            let run = serve_client(
                incoming, &*protocol, client, &clients, config, failure, shutdown,
            );
            if let Err(err) = run.await {
                tracing::debug!(protocol = protocol.name(), client = id, %err, "connection ended with an error");
            }
            clients.unregister(id);
        });
    }
}

/// What a connection whose session panicked logs and answers.
struct Failure {
    protocol: &'static str,
    client: u64,
    reply: &'static [u8],
}

/// One client from accept to close: the handshake, protected mode, then
/// the session.
async fn serve_client<P: Protocol>(
    incoming: Incoming,
    protocol: &P,
    client: Arc<ClientInfo>,
    clients: &Clients,
    config: DriverConfig,
    failure: Failure,
    shutdown: CancellationToken,
) -> io::Result<()> {
    let refused = incoming.refused_by_protected_mode();
    let mut stream = tokio::select! {
        _ = shutdown.cancelled() => return Ok(()),
        stream = incoming.establish() => stream?,
    };
    if refused {
        tracing::debug!(protocol = protocol.name(), peer = %client.addr, "refused by protected mode");
        let refusal = protocol.protected_mode_refusal();
        let _ = send(&mut stream, refusal, config.request_timeout).await;
        let _ = tokio::time::timeout(config.request_timeout, stream.shutdown()).await;
        return Ok(());
    }
    client.buffers.set_fd(raw_fd(&stream));
    let session = protocol.open(client.clone());
    run_connection(stream, session, clients, &client, config, failure).await
}

async fn run_connection<S: Session>(
    mut stream: Connection,
    mut session: S,
    clients: &Clients,
    client: &Arc<ClientInfo>,
    config: DriverConfig,
    failure: Failure,
) -> io::Result<()> {
    let mut input = BytesMut::with_capacity(READ_CHUNK);
    let mut output = BytesMut::with_capacity(READ_CHUNK);
    let (mut read_total, mut written_total) = (0u64, 0u64);
    let idle = &config.idle_timeout;
    let _attached = idle.attach(client);
    let signal = client.signal();
    // When the last batch of input was processed (the idle limit counts
    // from it).
    let mut last_activity = Instant::now();
    let mut clock = RequestClock::default();
    let bound = config.request_timeout;
    // True while the session yielded with requests still in `input`.
    let mut pending = false;
    let result = 'connection: loop {
        if !pending {
            if input.capacity() - input.len() < READ_CHUNK / 4 {
                input.reserve(READ_CHUNK);
            }
            let deadline = clock.deadline(bound);
            let wakeup = session.wakeup();
            let read = read_some(
                &mut stream,
                &mut input,
                idle,
                last_activity,
                deadline,
                signal,
                wakeup.as_deref(),
            );
            match read.await {
                Ok(n) => read_total += n as u64,
                Err(Ok(ReadEnd::Closed | ReadEnd::Shutdown)) => break Ok(()),
                Err(Ok(ReadEnd::Idle)) => {
                    tracing::debug!("closing an idle connection");
                    break Ok(());
                }
                Err(Ok(ReadEnd::RequestTimeout)) => {
                    tracing::debug!(
                        ?bound,
                        "closing a connection whose request did not arrive in time"
                    );
                    break Ok(());
                }
                Err(Err(err)) => break Err(err),
            }
        }
        let before = input.len();
        client.buffers.note_input(input.len(), input.capacity());
        let flow = match panic_guard::contain(|| session.process(&mut input, &mut output)) {
            Ok(flow) => flow,
            Err(panic) => {
                tracing::error!(
                    protocol = failure.protocol,
                    client = failure.client,
                    %panic,
                    input = %panic_guard::input_excerpt(&input),
                    "a request made the session panic; closing its connection"
                );
                // Replies produced by this call may wait for durability
                // (a hold not yet asked for): none of them is sent.
                output.clear();
                output.extend_from_slice(failure.reply);
                written_total += output.len() as u64;
                let _ = send(&mut stream, &output, bound).await;
                break Ok(());
            }
        };
        let now = Instant::now();
        last_activity = now;
        clock.after_process(before, input.len(), session.mid_request(), now);
        client.note_activity(now);
        client.buffers.note_input(input.len(), input.capacity());
        client.buffers.note_output(output.len(), output.capacity());
        if let Some(hold) = session.hold() {
            match wait_for(hold, &mut stream, &mut output, &mut written_total, bound).await {
                Ok(true) => {}
                Ok(false) => break Ok(()),
                Err(err) => break Err(err),
            }
        }
        if !output.is_empty() {
            if SendPolicy::holds_back(session.batch_len()) {
                tokio::task::yield_now().await;
            }
            written_total += output.len() as u64;
            // A client closed from outside (a subscriber over its output
            // limit) stops waiting for its reader at once; what the socket
            // takes without waiting is still sent (the reply to the
            // command that closed it, say), as the send is polled first.
            let sent = tokio::select! {
                biased;
                sent = send(&mut stream, &output, bound) => sent,
                () = client.closed() => break Ok(()),
            };
            if let Err(err) = sent {
                break Err(err);
            }
            output.clear();
            if output.capacity() > KEEP_OUTPUT_CAPACITY {
                output = BytesMut::with_capacity(READ_CHUNK);
            }
            client.buffers.note_output(0, output.capacity());
        }
        if flow == Flow::Close || input.len() > config.max_input || signal.stops_reading() {
            break Ok(());
        }
        pending = flow == Flow::Yield;
        if let Some(wait) = session.fetch() {
            tokio::pin!(wait);
            // Input keeps being read meanwhile (up to the bound), so a
            // client that goes away while blocked (BLPOP) is noticed: its
            // wait is dropped and it takes nothing that is pushed later.
            loop {
                tokio::select! {
                    () = signal.reading_stopped() => break 'connection Ok(()),
                    () = &mut wait => break,
                    n = stream.read_buf(&mut input), if input.len() < config.max_input => match n {
                        Ok(0) => break 'connection Ok(()),
                        Ok(n) => read_total += n as u64,
                        Err(err) => break 'connection Err(err),
                    },
                }
            }
            pending = true;
        }
        if read_total + written_total >= TRAFFIC_BATCH {
            clients.count_traffic(read_total, written_total);
            (read_total, written_total) = (0, 0);
        }
    };
    clients.count_traffic(read_total, written_total);
    // TLS sends close_notify here; a client that takes nothing cannot hold it.
    let _ = tokio::time::timeout(bound, stream.shutdown()).await;
    result
}
