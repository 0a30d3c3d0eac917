//! What the observability settings mean: their bounds, and the metrics
//! port clashing with no other port.

use crate::config::observability::MAX_LEN_LIMIT;
use crate::config::settings::ServerConfig;

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
        if strata_resp::notify::flags::parse(self.notify_keyspace_events.as_bytes()).is_none() {
            return Err((
                "notify_keyspace_events",
                format!(
                    "has a letter Redis does not know (use 'Ag$lshzxeKEtmdn'), got {:?}",
                    self.notify_keyspace_events
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

    #[test]
    fn keyspace_events_use_redis_letters() {
        let mut c = ServerConfig::default();
        assert_eq!(c.notify_keyspace_events, "");
        c.notify_keyspace_events = "KEA".into();
        assert_eq!(c.validate_observability(), Ok(()));
        c.notify_keyspace_events = "KEy".into();
        assert_eq!(
            c.validate_observability().unwrap_err().0,
            "notify_keyspace_events"
        );
    }
}
