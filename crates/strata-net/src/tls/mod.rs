//! TLS on a port: the files it is configured from ([`TlsFiles`]), the
//! acceptor whose rustls configuration is swapped at run time
//! ([`TlsAcceptor`]), and the task that reloads it ([`watch`]).
//!
//! Invariant: the acceptor always holds a configuration that loaded
//! completely. A reload builds a new one from the files and swaps it in
//! only when that succeeded; a bad certificate or key (half written,
//! mismatched, unreadable) is logged and the previous configuration keeps
//! serving. Handshakes in progress finish with the configuration they
//! started with; new handshakes use the new one.
//!
//! - [`config`]: PEM files to a rustls `ServerConfig` (ring provider).
//! - [`watch`]: reload on SIGHUP and when the files change.

pub mod config;
mod files;
pub mod watch;

use std::io;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::RwLock;
use rustls::ServerConfig;
use tokio::net::TcpStream;
use tokio_rustls::server::TlsStream;

use crate::error::TlsError;
pub use files::{ClientAuth, TlsFiles};

/// Accepts TLS connections with the configuration loaded last. Cheap to
/// clone; clones share the configuration, so one reload serves every port.
#[derive(Clone)]
pub struct TlsAcceptor {
    files: Arc<TlsFiles>,
    current: Arc<RwLock<Arc<ServerConfig>>>,
}

impl std::fmt::Debug for TlsAcceptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsAcceptor")
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl TlsAcceptor {
    /// Loads `files`; fails, naming the file, when they cannot be used.
    pub fn load(files: TlsFiles) -> Result<Self, TlsError> {
        let config = config::server_config(&files)?;
        Ok(Self {
            files: Arc::new(files),
            current: Arc::new(RwLock::new(config)),
        })
    }

    /// The files it loads from.
    pub fn files(&self) -> &TlsFiles {
        &self.files
    }

    /// Loads the files again and, if they make a valid configuration,
    /// uses it for new handshakes. On failure nothing changes.
    pub fn reload(&self) -> Result<(), TlsError> {
        let config = config::server_config(&self.files)?;
        *self.current.write() = config;
        Ok(())
    }

    /// The configuration new handshakes use.
    pub fn current(&self) -> Arc<ServerConfig> {
        self.current.read().clone()
    }

    /// Runs the server side of the handshake on `tcp`, which must finish
    /// within `timeout` (a client that sends its hello a byte at a time is
    /// cut off).
    pub async fn handshake(
        &self,
        tcp: TcpStream,
        timeout: Duration,
    ) -> io::Result<TlsStream<TcpStream>> {
        let acceptor = tokio_rustls::TlsAcceptor::from(self.current());
        match tokio::time::timeout(timeout, acceptor.accept(tcp)).await {
            Ok(result) => result,
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("TLS handshake not done within {timeout:?}"),
            )),
        }
    }
}
