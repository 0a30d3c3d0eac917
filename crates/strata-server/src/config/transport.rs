//! Transport settings, with Redis's names where Redis has the setting:
//!
//! - TLS: `tls_cert_file`, `tls_key_file`, `tls_ca_cert_file`,
//!   `tls_auth_clients` (`yes`: clients must present a certificate the CA
//!   signed; `optional`: they may; `no`), and which ports speak it:
//!   `tls_port` (RESP over TLS on a port of its own, as Redis; the plain
//!   `resp_port` stays unless `resp_enabled = false`), `memcache_tls`
//!   (the memcached port itself speaks TLS, as memcached's `-Z`) and
//!   `http_tls` (the HTTP port, as Elasticsearch's
//!   `xpack.security.http.ssl.enabled`). One certificate serves every TLS
//!   port and is reloaded on SIGHUP and when its files change.
//! - `protected_mode` (`yes`/`no`, default yes): see `strata_net::protected`.
//! - `timeout` (Redis) and `idle_timeout` (memcached): seconds a RESP or
//!   memcached connection may stay idle, 0 for ever.
//! - `request_timeout`: a started request must arrive (and a batch of
//!   replies be taken) within it on the memcached and RESP ports; also the
//!   TLS handshake's bound there.
//! - `http_header_timeout` (a request's head, also the idle time of a
//!   keep-alive connection and the HTTP TLS handshake's bound) and
//!   `http_body_timeout` (its body, from the head).

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::persistence::HumanDuration;

/// Shortest request, header and body timeout.
pub const MIN_REQUEST_TIMEOUT: Duration = Duration::from_millis(100);
/// Longest request, header and body timeout.
pub const MAX_REQUEST_TIMEOUT: Duration = Duration::from_secs(3600);
/// Largest `timeout` and `idle_timeout` (Redis's bound).
pub const MAX_IDLE_SECS: u64 = i32::MAX as u64;

/// Redis's `tls-auth-clients`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum TlsAuthClients {
    /// Clients must present a certificate signed by `tls_ca_cert_file`.
    Yes,
    /// Client certificates are not asked for.
    No,
    /// A client may present one; if it does, it must be valid.
    Optional,
}

/// Redis's `protected-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ProtectedModeSetting {
    /// Ports without authentication refuse clients not on the loopback
    /// interface.
    #[default]
    Yes,
    /// Every client is served.
    No,
}

/// The `strata serve` flags of the transport settings.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TransportArgs {
    /// Port of RESP over TLS (Redis's `tls-port`), beside the plain
    /// `--resp-port` (switch that off with `--no-resp`); 0 picks a free
    /// port [default: none].
    #[arg(long, value_name = "PORT")]
    pub tls_port: Option<u16>,

    /// The memcached port speaks TLS (memcached's `-Z`).
    #[arg(long)]
    pub memcache_tls: bool,

    /// The HTTP (search) port speaks TLS (https).
    #[arg(long)]
    pub http_tls: bool,

    /// The server's certificate chain, PEM (leaf first), for every TLS
    /// port; reloaded on SIGHUP and when the file changes.
    #[arg(long, value_name = "FILE")]
    pub tls_cert_file: Option<PathBuf>,

    /// The private key of --tls-cert-file, PEM.
    #[arg(long, value_name = "FILE")]
    pub tls_key_file: Option<PathBuf>,

    /// CA certificates, PEM, that client certificates must chain to.
    #[arg(long, value_name = "FILE")]
    pub tls_ca_cert_file: Option<PathBuf>,

    /// `yes`: TLS clients must present a certificate signed by
    /// --tls-ca-cert-file; `optional`: they may (it must then be valid);
    /// `no`: not asked [default: yes with --tls-ca-cert-file, else no].
    #[arg(long, value_name = "MODE")]
    pub tls_auth_clients: Option<TlsAuthClients>,

    /// `yes`: a port that asks no authentication refuses clients that are
    /// not on the loopback interface (telling them why); `no`: serve
    /// everyone [default: yes].
    #[arg(long, value_name = "yes|no")]
    pub protected_mode: Option<ProtectedModeSetting>,

    /// Close RESP connections idle for this many seconds; 0 never (Redis's
    /// `timeout`, also `CONFIG SET timeout`) [default: 0].
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,

    /// Close memcached connections idle for this many seconds; 0 never
    /// (memcached's `-o idle_timeout`) [default: 0].
    #[arg(long, value_name = "SECONDS")]
    pub idle_timeout: Option<u64>,

    /// On the memcached and RESP ports, a request must arrive whole within
    /// this time from its first byte, and replies be taken within it, or
    /// the connection is closed (slow clients); also the bound of their TLS
    /// handshakes [default: 30s].
    #[arg(long, value_name = "DURATION")]
    pub request_timeout: Option<HumanDuration>,

    /// A request's headers must arrive within this time from the
    /// connection's start or the previous response, or the connection is
    /// closed: idle keep-alive connections close after it too; also the
    /// bound of HTTP TLS handshakes [default: 30s].
    #[arg(long, value_name = "DURATION")]
    pub http_header_timeout: Option<HumanDuration>,

    /// A request's body must arrive within this time from its headers, or
    /// it gets 408 and the connection is closed [default: 60s].
    #[arg(long, value_name = "DURATION")]
    pub http_body_timeout: Option<HumanDuration>,
}
