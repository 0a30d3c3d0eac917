//! Observability settings: the Prometheus metrics port (`metrics_enabled`,
//! `metrics_port`, `metrics_tls`; TLS and protected mode as the other
//! ports have them) and the Redis slow log's start values
//! (`slowlog_log_slower_than`, `slowlog_max_len`; both also `CONFIG SET`).

pub use strata_resp::slowlog::{DEFAULT_MAX_LEN, DEFAULT_SLOWER_THAN_US, MAX_LEN_LIMIT};

use super::ServerConfig;

/// The metrics port's default: OpenTelemetry's Prometheus exporter's.
pub const DEFAULT_METRICS_PORT: u16 = 9464;

/// The `strata serve` flags of the observability settings.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ObservabilityArgs {
    /// Serve Prometheus metrics on --metrics-port (`GET /metrics`).
    #[arg(long)]
    pub metrics: bool,

    /// Port of the Prometheus metrics endpoint; 0 picks a free port
    /// [default: 9464].
    #[arg(long, value_name = "PORT")]
    pub metrics_port: Option<u16>,

    /// The metrics port speaks TLS (https).
    #[arg(long)]
    pub metrics_tls: bool,

    /// Redis slow log: log commands that ran at least this many
    /// microseconds; -1 off, 0 every command (also `CONFIG SET
    /// slowlog-log-slower-than`) [default: 10000].
    #[arg(long, value_name = "MICROS", allow_hyphen_values = true)]
    pub slowlog_log_slower_than: Option<i64>,

    /// Redis slow log: entries kept, at most 65536 (also `CONFIG SET
    /// slowlog-max-len`) [default: 128].
    #[arg(long, value_name = "N")]
    pub slowlog_max_len: Option<usize>,
}

impl ObservabilityArgs {
    /// Overwrites the settings of `config` that were given as flags.
    pub fn apply_to(&self, config: &mut ServerConfig) {
        config.metrics_enabled |= self.metrics;
        if let Some(port) = self.metrics_port {
            config.metrics_port = port;
        }
        config.metrics_tls |= self.metrics_tls;
        if let Some(us) = self.slowlog_log_slower_than {
            config.slowlog_log_slower_than = us;
        }
        if let Some(len) = self.slowlog_max_len {
            config.slowlog_max_len = len;
        }
    }
}

impl ServerConfig {
    /// Checks the observability settings; the error names the setting.
    pub(super) fn validate_observability(&self) -> Result<(), (&'static str, String)> {
        if self.slowlog_log_slower_than < -1 {
            return Err((
                "slowlog_log_slower_than",
                format!(
                    "must be -1 (off) or more, got {}",
                    self.slowlog_log_slower_than
                ),
            ));
        }
        if self.slowlog_max_len > MAX_LEN_LIMIT {
            return Err((
                "slowlog_max_len",
                format!(
                    "must be between 0 and {MAX_LEN_LIMIT}, got {}",
                    self.slowlog_max_len
                ),
            ));
        }
        if self.metrics_tls && !self.metrics_enabled {
            return Err((
                "metrics_tls",
                "is set but the metrics port is off (set metrics_enabled)".into(),
            ));
        }
        if self.metrics_enabled && self.metrics_port != 0 {
            let ports = [
                ("memcache_port", self.memcache_enabled, self.memcache_port),
                ("resp_port", self.resp_enabled, self.resp_port),
                ("http_port", self.http_enabled, self.http_port),
                (
                    "tls_port",
                    self.tls_port.is_some(),
                    self.tls_port.unwrap_or(0),
                ),
            ];
            for (other, enabled, port) in ports {
                if enabled && port == self.metrics_port {
                    return Err((
                        "metrics_port",
                        format!("{other} is also set to port {port}"),
                    ));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_and_port_clashes() {
        let mut c = ServerConfig::default();
        assert!(!c.metrics_enabled);
        assert_eq!(c.metrics_port, 9464);
        assert_eq!(c.validate_observability(), Ok(()));
        c.slowlog_log_slower_than = -2;
        assert_eq!(
            c.validate_observability().unwrap_err().0,
            "slowlog_log_slower_than"
        );
        c.slowlog_log_slower_than = -1;
        c.slowlog_max_len = MAX_LEN_LIMIT + 1;
        assert_eq!(c.validate_observability().unwrap_err().0, "slowlog_max_len");
        c.slowlog_max_len = 0;
        c.metrics_tls = true;
        assert_eq!(c.validate_observability().unwrap_err().0, "metrics_tls");
        c.metrics_enabled = true;
        c.metrics_port = c.http_port;
        assert_eq!(c.validate_observability().unwrap_err().0, "metrics_port");
        c.metrics_port = 0;
        assert_eq!(c.validate_observability(), Ok(()));
    }
}
