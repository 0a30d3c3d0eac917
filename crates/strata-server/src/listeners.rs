//! The server's ports as `strata-net` listeners: TLS where the
//! configuration asks for it (one certificate for every TLS port,
//! reloaded on SIGHUP and when its files change), protected mode with the
//! port's own answer to "does this port ask authentication?" (computed
//! where the server is wired, `server.rs`), and the start-up lines that
//! say which ports speak TLS and warn when a port is reachable from other
//! machines without authentication.

use std::net::SocketAddr;
use std::time::Duration;

use strata_net::{is_loopback, Listener, ProtectedMode, Protection, TlsAcceptor};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::config::ServerConfig;
use crate::error::ServerError;

/// Loads the certificate when some port speaks TLS.
pub(crate) fn load_tls(config: &ServerConfig) -> Result<Option<TlsAcceptor>, ServerError> {
    config
        .tls_files()
        .map(|files| TlsAcceptor::load(files).map_err(ServerError::Tls))
        .transpose()
}

/// Reloads the certificate on SIGHUP and when its files change, until
/// `shutdown`.
pub(crate) fn watch_tls(acceptor: &TlsAcceptor, shutdown: &CancellationToken) {
    strata_net::tls::watch::spawn(
        acceptor.clone(),
        strata_net::tls::watch::DEFAULT_POLL,
        shutdown.clone(),
    );
}

/// The listener of one port: TLS with `tls` (handshakes bounded by
/// `handshake`) when given, protected mode as `protection` says.
pub(crate) fn port(
    tcp: TcpListener,
    tls: Option<&TlsAcceptor>,
    handshake: Duration,
    protection: Protection,
) -> Listener {
    let listener = Listener::from(tcp).with_protection(protection);
    match tls {
        Some(acceptor) => listener.with_tls(acceptor.clone(), handshake),
        None => listener,
    }
}

/// Logs that `protocol` listens on `addr`, whether it speaks TLS, and a
/// warning when other machines can reach it without authentication.
pub(crate) fn announce(protocol: &'static str, addr: SocketAddr, listener: &Listener) {
    let tls = listener.is_tls();
    tracing::info!(protocol, addr = %addr, port = addr.port(), tls, "listening");
    let protection = listener.protection();
    if is_loopback(addr.ip()) || protection.authentication_required() {
        return;
    }
    match protection.mode() {
        ProtectedMode::On => tracing::warn!(
            protocol,
            addr = %addr,
            "bound to a non-loopback address with no authentication on this port: protected mode \
             refuses clients that are not on the loopback interface (set up authentication, or \
             start with --protected-mode no to serve them)"
        ),
        ProtectedMode::Off => tracing::warn!(
            protocol,
            addr = %addr,
            "exposed on a non-loopback address with no authentication on this port and protected \
             mode off: every client that can reach it is served"
        ),
    }
}
