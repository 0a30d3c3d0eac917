//! The connection driver: accepts clients on a listener and runs each one's
//! read → [`Session::process`] → write loop on the tokio runtime.
//!
//! Invariants: a connection over `max_connections` gets the protocol's refusal
//! and is closed; the input buffer never holds more than
//! [`DriverConfig::max_input`] bytes (the session is responsible for consuming
//! requests; a session that lets input pile up beyond that is closed); on
//! shutdown the accept loop stops and every connection is closed after the
//! replies already produced are flushed; a client closed from outside
//! ([`ClientInfo::close`]) is closed the same way. A request whose
//! processing panics is logged, answered with the protocol's internal
//! error and its connection closed, and nothing else is affected.

use std::sync::Arc;

use bytes::BytesMut;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use crate::clients::{ClientInfo, Clients};
use crate::panic_guard;
use crate::server_info::ServerInfo;
use crate::session::{Flow, Hold, Protocol, Session};

/// Per-listener limits.
#[derive(Debug, Clone, Copy)]
pub struct DriverConfig {
    /// Largest amount of unprocessed input a connection may buffer; beyond it
    /// the connection is closed. Protocols set it above their largest legal
    /// request (maximum item size plus framing).
    pub max_input: usize,
}

const READ_CHUNK: usize = 16 * 1024;
/// Output buffers larger than this are released after a flush so that one
/// large reply does not pin memory for the life of a connection.
const KEEP_OUTPUT_CAPACITY: usize = 256 * 1024;
/// Traffic is added to the shared counters in batches of this many bytes.
const TRAFFIC_BATCH: u64 = 64 * 1024;

/// Serves `protocol` on `listener` until `shutdown` is cancelled.
pub async fn serve<P: Protocol>(
    listener: TcpListener,
    protocol: Arc<P>,
    clients: Arc<Clients>,
    info: Arc<ServerInfo>,
    config: DriverConfig,
    shutdown: CancellationToken,
) {
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => break,
            accepted = listener.accept() => accepted,
        };
        let (stream, addr) = match accepted {
            Ok(pair) => pair,
            Err(err) => {
                // EMFILE and friends: back off briefly instead of spinning.
                tracing::warn!(protocol = protocol.name(), %err, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                continue;
            }
        };
        if clients.current() >= info.settings.max_connections() {
            clients.count_rejected();
            let refusal = protocol.too_many_connections();
            tokio::spawn(async move {
                let mut stream = stream;
                let _ = stream.write_all(refusal).await;
            });
            continue;
        }
        let _ = stream.set_nodelay(true);
        let local = stream.local_addr().unwrap_or(addr);
        let client = clients.register(addr, local);
        let session = protocol.open(client.clone());
        let clients = clients.clone();
        let shutdown = shutdown.clone();
        let failure = Failure {
            protocol: protocol.name(),
            client: client.id,
            reply: protocol.internal_error(),
        };
        tokio::spawn(async move {
            let run = run_connection(
                stream, session, &clients, &client, config, failure, shutdown,
            );
            if let Err(err) = run.await {
                tracing::debug!(client = client.id, %err, "connection ended with an error");
            }
            clients.unregister(client.id);
        });
    }
}

/// What a connection whose session panicked logs and answers.
struct Failure {
    protocol: &'static str,
    client: u64,
    reply: &'static [u8],
}

async fn run_connection<S: Session>(
    mut stream: TcpStream,
    mut session: S,
    clients: &Clients,
    client: &ClientInfo,
    config: DriverConfig,
    failure: Failure,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let mut input = BytesMut::with_capacity(READ_CHUNK);
    let mut output = BytesMut::with_capacity(READ_CHUNK);
    let (mut read_total, mut written_total) = (0u64, 0u64);
    // True while the session yielded with requests still in `input`.
    let mut pending = false;
    let result = loop {
        if !pending {
            if input.capacity() - input.len() < READ_CHUNK / 4 {
                input.reserve(READ_CHUNK);
            }
            let n = tokio::select! {
                _ = shutdown.cancelled() => break Ok(()),
                () = client.closed() => break Ok(()),
                n = stream.read_buf(&mut input) => n,
            };
            match n {
                Ok(0) => break Ok(()),
                Ok(n) => read_total += n as u64,
                Err(err) => break Err(err),
            }
        }
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
                let _ = stream.write_all(&output).await;
                break Ok(());
            }
        };
        if let Some(hold) = session.hold() {
            match wait_for(hold, &mut stream, &mut output, &mut written_total).await {
                Ok(true) => {}
                Ok(false) => break Ok(()),
                Err(err) => break Err(err),
            }
        }
        if !output.is_empty() {
            written_total += output.len() as u64;
            if let Err(err) = stream.write_all(&output).await {
                break Err(err);
            }
            output.clear();
            if output.capacity() > KEEP_OUTPUT_CAPACITY {
                output = BytesMut::with_capacity(READ_CHUNK);
            }
        }
        if flow == Flow::Close || input.len() > config.max_input || client.is_closing() {
            break Ok(());
        }
        pending = flow == Flow::Yield;
        if let Some(wait) = session.fetch() {
            tokio::select! {
                _ = shutdown.cancelled() => break Ok(()),
                () = client.closed() => break Ok(()),
                () = wait => {}
            }
            pending = true;
        }
        if read_total + written_total >= TRAFFIC_BATCH {
            clients.count_traffic(read_total, written_total);
            (read_total, written_total) = (0, 0);
        }
    };
    clients.count_traffic(read_total, written_total);
    let _ = stream.shutdown().await;
    result
}

/// Sends the replies before the hold, waits for it, and on success leaves
/// the held replies in `output` for the caller to send (`Ok(true)`). On
/// failure the held replies are dropped, the failure reply is sent and
/// `Ok(false)` says to close. There is no timeout: a durable wait always
/// resolves (the log either syncs or poisons itself).
async fn wait_for(
    hold: Hold,
    stream: &mut TcpStream,
    output: &mut BytesMut,
    written_total: &mut u64,
) -> std::io::Result<bool> {
    let from = hold.from.min(output.len());
    if from > 0 {
        let ready = output.split_to(from);
        *written_total += ready.len() as u64;
        stream.write_all(&ready).await?;
    }
    match hold.until.await {
        Ok(()) => Ok(true),
        Err(cause) => {
            output.clear();
            let reply = (hold.on_failure)(&cause);
            *written_total += reply.len() as u64;
            stream.write_all(&reply).await?;
            Ok(false)
        }
    }
}
