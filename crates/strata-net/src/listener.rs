//! [`Listener`]: one port's TCP listener with what the port asks of its
//! clients (TLS, protected mode), and [`Incoming`]: an accepted client
//! before the front end decides to refuse or serve it.
//!
//! Accepting never fails from the caller's view: a failed accept (out of
//! file descriptors, out of buffers) is logged at a bounded rate
//! ([`AcceptErrorLog`]) and retried after a pause that doubles, from 5 ms
//! to 1 s, while failures go on, so the loop neither spins nor floods the
//! log. The TLS handshake is not done here but in
//! [`Incoming::establish`], on the connection's own task, so a slow
//! handshake never holds up the accept loop.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};

use crate::accept_log::AcceptErrorLog;
use crate::connection::Connection;
use crate::protected::Protection;
use crate::tls::TlsAcceptor;

const MIN_BACKOFF: Duration = Duration::from_millis(5);
const MAX_BACKOFF: Duration = Duration::from_secs(1);
/// Input read and dropped from a client refused before it is served, so
/// that closing the socket sends FIN rather than a reset that could
/// destroy the refusal before the client reads it.
const REFUSAL_DRAIN: usize = 64 * 1024;

/// A listening port.
#[derive(Debug)]
pub struct Listener {
    tcp: TcpListener,
    local: Option<SocketAddr>,
    tls: Option<(TlsAcceptor, Duration)>,
    protection: Protection,
    errors: AcceptErrorLog,
}

impl From<TcpListener> for Listener {
    /// A plain port without protected mode.
    fn from(tcp: TcpListener) -> Self {
        Self {
            local: tcp.local_addr().ok(),
            tcp,
            tls: None,
            protection: Protection::off(),
            errors: AcceptErrorLog::default(),
        }
    }
}

impl Listener {
    /// Makes the port speak TLS with `acceptor`; a handshake must finish
    /// within `handshake_timeout`.
    pub fn with_tls(mut self, acceptor: TlsAcceptor, handshake_timeout: Duration) -> Self {
        self.tls = Some((acceptor, handshake_timeout));
        self
    }

    /// Applies protected mode as `protection` says.
    pub fn with_protection(mut self, protection: Protection) -> Self {
        self.protection = protection;
        self
    }

    /// The bound address, when the socket reports it.
    pub fn local_addr(&self) -> Option<SocketAddr> {
        self.local
    }

    /// True when the port speaks TLS.
    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// The port's protected mode.
    pub fn protection(&self) -> &Protection {
        &self.protection
    }

    /// Waits for the next client. Cancel safe: dropping the future loses
    /// no connection.
    pub async fn accept(&mut self) -> Incoming {
        let mut backoff = MIN_BACKOFF;
        loop {
            match self.tcp.accept().await {
                Ok((tcp, peer)) => {
                    // Replies are written whole; never delay them.
                    let _ = tcp.set_nodelay(true);
                    let local = tcp.local_addr().ok().or(self.local).unwrap_or(peer);
                    let refused = self.protection.refuses(peer.ip());
                    return Incoming {
                        tcp,
                        peer,
                        local,
                        tls: self.tls.clone(),
                        refused,
                    };
                }
                Err(err) => {
                    self.errors.report(self.local, &err);
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
    }
}

/// An accepted client, not yet served.
#[derive(Debug)]
pub struct Incoming {
    tcp: TcpStream,
    peer: SocketAddr,
    local: SocketAddr,
    tls: Option<(TlsAcceptor, Duration)>,
    refused: bool,
}

impl Incoming {
    /// The client's address.
    pub fn peer_addr(&self) -> SocketAddr {
        self.peer
    }

    /// The address the client connected to.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// True on a TLS port.
    pub fn is_tls(&self) -> bool {
        self.tls.is_some()
    }

    /// True when protected mode refuses this client. The front end then
    /// establishes the connection (on a TLS port the refusal must be
    /// encrypted), sends its refusal and closes it, serving nothing.
    pub fn refused_by_protected_mode(&self) -> bool {
        self.refused
    }

    /// Refuses the client before any handshake, without waiting (the
    /// accept loop calls it): on a plain port `message` is written if the
    /// socket takes it at once; on a TLS port nothing can be said before
    /// a handshake, so the connection is just closed (as Redis does at
    /// `maxclients`).
    pub fn refuse(self, message: &[u8]) {
        let tls = self.tls.is_some();
        // A std socket, still non-blocking: reads and writes happen now or
        // not at all, whatever tokio has learnt of its readiness so far.
        let Ok(mut socket) = self.tcp.into_std() else {
            return;
        };
        if tls {
            return;
        }
        let mut buf = [0u8; 4096];
        let mut drained = 0;
        while drained < REFUSAL_DRAIN {
            match socket.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => drained += n,
            }
        }
        let _ = socket.write(message);
    }

    /// The client taken off the runtime that accepted it, to be served on
    /// another ([`Detached::attach`]); the socket stays non-blocking.
    pub fn detach(self) -> std::io::Result<Detached> {
        Ok(Detached {
            tcp: self.tcp.into_std()?,
            peer: self.peer,
            local: self.local,
            tls: self.tls,
            refused: self.refused,
        })
    }

    /// The connection, after the TLS handshake on a TLS port (which must
    /// finish within the port's handshake timeout).
    pub async fn establish(self) -> std::io::Result<Connection> {
        match self.tls {
            None => Ok(Connection::Plain(self.tcp)),
            Some((acceptor, timeout)) => {
                let tls = acceptor.handshake(self.tcp, timeout).await?;
                Ok(Connection::Tls(Box::new(tls)))
            }
        }
    }
}

/// An accepted client between runtimes: its socket is registered with no
/// reactor until [`Detached::attach`].
#[derive(Debug)]
pub struct Detached {
    tcp: std::net::TcpStream,
    peer: SocketAddr,
    local: SocketAddr,
    tls: Option<(TlsAcceptor, Duration)>,
    refused: bool,
}

impl Detached {
    /// The client again, registered with the reactor of the runtime this
    /// is called on (it must be called from within a runtime).
    pub fn attach(self) -> std::io::Result<Incoming> {
        Ok(Incoming {
            tcp: TcpStream::from_std(self.tcp)?,
            peer: self.peer,
            local: self.local,
            tls: self.tls,
            refused: self.refused,
        })
    }
}
