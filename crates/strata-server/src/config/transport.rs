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
use strata_es::HttpLimits;
use strata_net::{ClientAuth, ProtectedMode, TlsFiles};

use super::persistence::HumanDuration;
use super::ServerConfig;

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

impl TransportArgs {
    /// Overwrites the settings of `config` that were given as flags.
    pub fn apply_to(&self, config: &mut ServerConfig) {
        if self.tls_port.is_some() {
            config.tls_port = self.tls_port;
        }
        config.memcache_tls |= self.memcache_tls;
        config.http_tls |= self.http_tls;
        for (slot, value) in [
            (&mut config.tls_cert_file, &self.tls_cert_file),
            (&mut config.tls_key_file, &self.tls_key_file),
            (&mut config.tls_ca_cert_file, &self.tls_ca_cert_file),
        ] {
            if value.is_some() {
                slot.clone_from(value);
            }
        }
        if self.tls_auth_clients.is_some() {
            config.tls_auth_clients = self.tls_auth_clients;
        }
        if let Some(mode) = self.protected_mode {
            config.protected_mode = mode;
        }
        if let Some(secs) = self.timeout {
            config.timeout = secs;
        }
        if let Some(secs) = self.idle_timeout {
            config.idle_timeout = secs;
        }
        for (slot, value) in [
            (&mut config.request_timeout, self.request_timeout),
            (&mut config.http_header_timeout, self.http_header_timeout),
            (&mut config.http_body_timeout, self.http_body_timeout),
        ] {
            if let Some(v) = value {
                *slot = v;
            }
        }
    }
}

impl ServerConfig {
    /// True when some running port speaks TLS.
    pub fn tls_used(&self) -> bool {
        self.tls_port.is_some()
            || (self.memcache_enabled && self.memcache_tls)
            || (self.http_enabled && self.http_tls)
            || (self.metrics_enabled && self.metrics_tls)
    }

    /// The TLS files, when some port speaks TLS.
    pub fn tls_files(&self) -> Option<TlsFiles> {
        if !self.tls_used() {
            return None;
        }
        Some(TlsFiles {
            cert: self.tls_cert_file.clone()?,
            key: self.tls_key_file.clone()?,
            ca: self.tls_ca_cert_file.clone(),
            client_auth: self.tls_client_auth(),
        })
    }

    /// `tls_auth_clients`, defaulting to `yes` when a CA file is given
    /// (Redis's default) and to `no` otherwise.
    pub fn tls_client_auth(&self) -> ClientAuth {
        let default = if self.tls_ca_cert_file.is_some() {
            TlsAuthClients::Yes
        } else {
            TlsAuthClients::No
        };
        match self.tls_auth_clients.unwrap_or(default) {
            TlsAuthClients::Yes => ClientAuth::Required,
            TlsAuthClients::Optional => ClientAuth::Optional,
            TlsAuthClients::No => ClientAuth::No,
        }
    }

    /// Protected mode as the listeners apply it.
    pub fn protected_mode(&self) -> ProtectedMode {
        match self.protected_mode {
            ProtectedModeSetting::Yes => ProtectedMode::On,
            ProtectedModeSetting::No => ProtectedMode::Off,
        }
    }

    /// The HTTP front end's connection limit and time bounds.
    pub fn http_limits(&self) -> HttpLimits {
        HttpLimits {
            max_connections: self.max_connections,
            header_timeout: self.http_header_timeout.0,
            body_timeout: self.http_body_timeout.0,
        }
    }

    /// Checks the transport settings; the error names the setting.
    pub(super) fn validate_transport(&self) -> Result<(), (&'static str, String)> {
        let tls_ports = [
            ("tls_port", self.tls_port.is_some()),
            ("memcache_tls", self.memcache_enabled && self.memcache_tls),
            ("http_tls", self.http_enabled && self.http_tls),
            ("metrics_tls", self.metrics_enabled && self.metrics_tls),
        ];
        let users: Vec<&str> = tls_ports
            .iter()
            .filter(|(_, on)| *on)
            .map(|(name, _)| *name)
            .collect();
        for (option, file) in [
            ("tls_cert_file", &self.tls_cert_file),
            ("tls_key_file", &self.tls_key_file),
        ] {
            if !users.is_empty() && file.is_none() {
                return Err((option, format!("is needed by {}", users.join(" and "))));
            }
        }
        let tls_set = [
            ("tls_cert_file", self.tls_cert_file.is_some()),
            ("tls_key_file", self.tls_key_file.is_some()),
            ("tls_ca_cert_file", self.tls_ca_cert_file.is_some()),
            ("tls_auth_clients", self.tls_auth_clients.is_some()),
        ];
        if let (true, Some((option, _))) = (users.is_empty(), tls_set.iter().find(|(_, set)| *set))
        {
            return Err((
                option,
                "is set but no port speaks TLS (set tls_port, memcache_tls or http_tls)".into(),
            ));
        }
        if matches!(
            self.tls_auth_clients,
            Some(TlsAuthClients::Yes | TlsAuthClients::Optional)
        ) && self.tls_ca_cert_file.is_none()
        {
            return Err((
                "tls_auth_clients",
                "verifying client certificates needs tls_ca_cert_file".into(),
            ));
        }
        if let Some(port) = self.tls_port.filter(|&p| p != 0) {
            for (other, enabled, used) in [
                ("memcache_port", self.memcache_enabled, self.memcache_port),
                ("resp_port", self.resp_enabled, self.resp_port),
                ("http_port", self.http_enabled, self.http_port),
            ] {
                if enabled && used == port {
                    return Err(("tls_port", format!("{other} is also set to port {port}")));
                }
            }
        }
        for (option, secs) in [
            ("timeout", self.timeout),
            ("idle_timeout", self.idle_timeout),
        ] {
            if secs > MAX_IDLE_SECS {
                return Err((
                    option,
                    format!("must be between 0 and {MAX_IDLE_SECS}, got {secs}"),
                ));
            }
        }
        for (option, bound) in [
            ("request_timeout", self.request_timeout),
            ("http_header_timeout", self.http_header_timeout),
            ("http_body_timeout", self.http_body_timeout),
        ] {
            if bound.0 < MIN_REQUEST_TIMEOUT || bound.0 > MAX_REQUEST_TIMEOUT {
                return Err((
                    option,
                    format!(
                        "must be between {MIN_REQUEST_TIMEOUT:?} and {MAX_REQUEST_TIMEOUT:?}, got {:?}",
                        bound.0
                    ),
                ));
            }
        }
        Ok(())
    }
}
