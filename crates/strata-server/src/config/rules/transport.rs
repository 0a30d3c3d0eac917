//! What the transport settings mean: their bounds, and the TLS files,
//! client authentication, protected mode and HTTP limits derived from them.

use strata_es::HttpLimits;
use strata_net::{ClientAuth, ProtectedMode, TlsFiles};

use crate::config::settings::ServerConfig;
use crate::config::transport::{
    ProtectedModeSetting, TlsAuthClients, MAX_IDLE_SECS, MAX_REQUEST_TIMEOUT, MIN_REQUEST_TIMEOUT,
};

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
