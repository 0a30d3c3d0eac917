//! The connection driver: accepts clients on a [`Listener`] and runs each
//! one's read → [`Session::process`](crate::Session::process) → write
//! loop (`connection`) on the tokio runtime or on a
//! [`WorkerPool`](crate::WorkerPool) ([`DriverConfig::workers`]).
//!
//! Invariants: a connection over `max_connections` gets the protocol's refusal
//! (on a TLS port it is just closed: nothing can be said before a
//! handshake) and is closed; a client protected mode refuses gets the
//! protocol's protected-mode refusal after the handshake and is closed;
//! the input buffer never holds more than
//! [`DriverConfig::max_input`] bytes (the session is responsible for consuming
//! requests; a session that lets input pile up beyond that is closed); a
//! connection idle for its [`IdleTimeout`](crate::IdleTimeout), or whose pending request does
//! not arrive (or whose replies are not taken) within
//! [`DriverConfig::request_timeout`], is closed (see [`crate::timeouts`]);
//! on shutdown the accept loop stops and every connection is closed after
//! the replies already produced are flushed; a client closed from outside
//! ([`ClientInfo::close`](crate::ClientInfo::close)) is closed the same way. A request whose
//! processing panics is logged, answered with the protocol's internal
//! error and its connection closed, and nothing else is affected.

use std::io;
use std::sync::Arc;

use strata_net::{Detached, Incoming, Listener};
use tokio::io::AsyncWriteExt;
use tokio_util::sync::CancellationToken;

use crate::clients::Clients;
use crate::server_info::ServerInfo;
use crate::session::Protocol;

mod config;
mod connection;
mod socket;

pub use config::DriverConfig;

use connection::{drive, finish, Conn, ConnCtx, Failure};
use socket::{raw_fd, send};

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
        // From here the client is unregistered when `ctx` drops, however
        // its task ends (or if it never runs).
        let ctx = Arc::new(ConnCtx {
            clients: clients.clone(),
            failure: Failure {
                protocol: protocol.name(),
                client: client.id,
                reply: protocol.internal_error(),
            },
            client,
            config: config.clone(),
        });
        let accepted = match &config.workers {
            None => Accepted::Here(incoming),
            Some(_) => match incoming.detach() {
                Ok(detached) => Accepted::Moved(detached),
                Err(err) => {
                    tracing::debug!(protocol = protocol.name(), %err, "could not hand a connection to a worker");
                    continue;
                }
            },
        };
        let pool = config.workers.clone();
        let protocol = protocol.clone();
        let shutdown = shutdown.clone();
        let task = async move {
            match serve_client(accepted, &*protocol, &ctx, shutdown).await {
                Ok(Some(conn)) => drive(conn, ctx).await,
                Ok(None) => finish(Ok(()), &ctx),
                Err(err) => finish(Err(err), &ctx),
            }
        };
        match pool {
            Some(pool) => pool.spawn(task),
            None => drop(tokio::spawn(task)),
        }
    }
}

/// An accepted client on its way to the task that serves it.
enum Accepted {
    /// Served on the runtime that accepted it.
    Here(Incoming),
    /// Handed to a pool worker, which registers the socket with its own
    /// reactor.
    Moved(Detached),
}

impl Accepted {
    /// The client, registered with the current runtime.
    fn attach(self) -> io::Result<Incoming> {
        match self {
            Accepted::Here(incoming) => Ok(incoming),
            Accepted::Moved(detached) => detached.attach(),
        }
    }
}

/// One client from accept to its session: the handshake and protected
/// mode; `None` when it ends there.
async fn serve_client<P: Protocol>(
    accepted: Accepted,
    protocol: &P,
    ctx: &ConnCtx,
    shutdown: CancellationToken,
) -> io::Result<Option<Conn<P::Session>>> {
    let (client, config) = (&ctx.client, &ctx.config);
    let incoming = accepted.attach()?;
    let refused = incoming.refused_by_protected_mode();
    let mut stream = tokio::select! {
        _ = shutdown.cancelled() => return Ok(None),
        stream = incoming.establish() => stream?,
    };
    if refused {
        tracing::debug!(protocol = protocol.name(), peer = %client.addr, "refused by protected mode");
        let refusal = protocol.protected_mode_refusal();
        let _ = send(&mut stream, refusal, config.request_timeout).await;
        let _ = tokio::time::timeout(config.request_timeout, stream.shutdown()).await;
        return Ok(None);
    }
    client.buffers.set_fd(raw_fd(&stream));
    let session = protocol.open(client.clone());
    Ok(Some(Conn::new(stream, session, ctx)))
}
