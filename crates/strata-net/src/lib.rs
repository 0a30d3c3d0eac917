//! # strata-net: the transport under every front end
//!
//! Sockets as the front ends see them. A [`Listener`] accepts TCP
//! connections, logs accept failures at a bounded rate and backs off
//! instead of spinning, and hands out each client as an [`Incoming`]: the
//! front end refuses it (connection limit) or establishes it, which runs
//! the TLS handshake (rustls, within a time bound) on a TLS port and
//! yields a [`Connection`], plain TCP or TLS behind one
//! `AsyncRead + AsyncWrite` type. Protected mode ([`Protection`]) marks a
//! client the port must refuse: one that is not on the loopback interface,
//! on a port that asks no authentication.
//!
//! ## Layout
//! - [`listener`]: [`Listener`] and [`Incoming`].
//! - [`connection`]: [`Connection`], plain or TLS.
//! - [`console`]: [`Console`], blocking I/O on a plain connection's socket
//!   for a request that talks with its client while it runs.
//! - [`tls`]: the certificate files ([`TlsFiles`], [`ClientAuth`]), the
//!   acceptor whose rustls configuration is swapped at run time
//!   ([`TlsAcceptor`]) and its reload on SIGHUP and on file changes
//!   ([`tls::watch`]).
//! - [`protected`]: protected mode ([`ProtectedMode`], [`Protection`],
//!   [`Authentication`]).
//! - [`limit`]: [`ConnectionLimit`], open connections counted with
//!   permits, for front ends without a client registry of their own.
//! - [`accept_log`]: [`AcceptErrorLog`], at most one log line per
//!   interval about failed accepts.
//! - [`error`]: [`TlsError`], why certificate files cannot be used.
//! - `test_certs` (feature `test-certs`, tests only): throwaway CAs and
//!   certificates.
//!
//! This crate knows no wire protocol: what a refused client is told is the
//! front end's business, passed in as bytes.

#![forbid(unsafe_code)]

pub mod accept_log;
pub mod connection;
pub mod console;
pub mod error;
pub mod limit;
pub mod listener;
pub mod protected;
#[cfg(feature = "test-certs")]
pub mod test_certs;
pub mod tls;

pub use accept_log::AcceptErrorLog;
pub use connection::Connection;
pub use console::{Console, ConsoleSession};
pub use error::TlsError;
pub use limit::{ConnectionLimit, ConnectionPermit};
pub use listener::{Detached, Incoming, Listener};
pub use protected::{is_loopback, Authentication, ProtectedMode, Protection};
pub use tls::{ClientAuth, TlsAcceptor, TlsFiles};
