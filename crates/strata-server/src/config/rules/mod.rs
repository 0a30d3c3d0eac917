//! What the settings mean, one file per area: their bounds and how they
//! agree with each other ([`ServerConfig::validate`], here, runs every
//! area's check), and the settings of the layers below derived from them.
//!
//! - `persistence`: the command log and checkpoints.
//! - `tiers`: the placement of index and records, the pmem file, the SSD.
//! - `search`: the search engine's storage.
//! - `transport`: TLS, protected mode and timeouts.
//! - `observability`: the metrics port and the slow log.

mod caches;
mod observability;
mod persistence;
mod search;
mod tiers;
mod transport;

use crate::config::settings::{
    ServerConfig, MAX_BULK_LEN, MAX_CONNECTIONS, MAX_HTTP_BODY, MAX_ITEM_SIZE, MAX_SHARDS,
    MAX_THREADS, MIN_BULK_LEN, MIN_HTTP_BODY, MIN_ITEM_SIZE, MIN_MEMORY_LIMIT,
};
use crate::error::ServerError;

impl ServerConfig {
    /// Checks every setting is within its bounds and the settings agree with
    /// each other. Also normalises an empty password to none.
    pub fn validate(&mut self) -> Result<(), ServerError> {
        if self.requirepass.as_deref() == Some("") {
            self.requirepass = None;
        }
        let invalid =
            |option: &'static str, message: String| ServerError::InvalidOption { option, message };
        if !self.memcache_enabled
            && !self.resp_enabled
            && self.tls_port.is_none()
            && !self.http_enabled
        {
            return Err(invalid(
                "no_memcache/no_resp/no_http",
                "every front end is switched off; nothing would be served".into(),
            ));
        }
        if self.memcache_enabled
            && self.resp_enabled
            && self.memcache_port != 0
            && self.memcache_port == self.resp_port
        {
            return Err(invalid(
                "memcache_port/resp_port",
                format!("both front ends are set to port {}", self.resp_port),
            ));
        }
        if self.http_enabled && self.http_port != 0 {
            for (other, enabled, port) in [
                ("memcache_port", self.memcache_enabled, self.memcache_port),
                ("resp_port", self.resp_enabled, self.resp_port),
            ] {
                if enabled && port == self.http_port {
                    return Err(ServerError::InvalidOption {
                        option: "http_port",
                        message: format!("{other} is also set to port {port}"),
                    });
                }
            }
        }
        within(
            "http_max_body",
            self.http_max_body,
            MIN_HTTP_BODY,
            MAX_HTTP_BODY,
        )?;
        if self
            .http_security_dir
            .as_ref()
            .is_some_and(|d| d.as_os_str().is_empty())
        {
            return Err(invalid("http_security_dir", "must not be empty".into()));
        }
        within("threads", self.threads, 1, MAX_THREADS)?;
        if self.memory_limit < MIN_MEMORY_LIMIT {
            return Err(invalid(
                "memory_limit",
                format!(
                    "must be at least {MIN_MEMORY_LIMIT}, got {}",
                    self.memory_limit
                ),
            ));
        }
        within("max_connections", self.max_connections, 1, MAX_CONNECTIONS)?;
        within(
            "max_item_size",
            self.max_item_size,
            MIN_ITEM_SIZE,
            MAX_ITEM_SIZE,
        )?;
        within(
            "proto_max_bulk_len",
            self.proto_max_bulk_len,
            MIN_BULK_LEN,
            MAX_BULK_LEN,
        )?;
        if self.max_item_size > self.memory_limit {
            return Err(invalid(
                "max_item_size",
                format!(
                    "{} is larger than memory_limit {}",
                    self.max_item_size, self.memory_limit
                ),
            ));
        }
        if self.shards == 0 || self.shards > MAX_SHARDS || !self.shards.is_power_of_two() {
            return Err(invalid(
                "shards",
                format!(
                    "must be a power of two between 1 and {MAX_SHARDS}, got {}",
                    self.shards
                ),
            ));
        }
        if self.data_dir.as_os_str().is_empty() {
            return Err(invalid("data_dir", "must not be empty".into()));
        }
        let file_name = self.cluster_config_file.file_name();
        if file_name.and_then(|name| name.to_str()).is_none() {
            return Err(invalid(
                "cluster_config_file",
                "must name a file (UTF-8)".into(),
            ));
        }
        crate::logging::parse_filter(&self.log_level)
            .map_err(|message| invalid("log_level", message))?;
        self.validate_persistence()
            .map_err(|(option, message)| invalid(option, message))?;
        self.validate_tiers()
            .map_err(|(option, message)| invalid(option, message))?;
        self.validate_search()
            .map_err(|(option, message)| invalid(option, message))?;
        self.validate_caches()
            .map_err(|(option, message)| invalid(option, message))?;
        self.validate_transport()
            .map_err(|(option, message)| invalid(option, message))?;
        self.validate_observability()
            .map_err(|(option, message)| invalid(option, message))?;
        Ok(())
    }
}

/// `Ok` when `value` is in `min..=max`; otherwise the option's error
/// naming the range.
fn within<T: PartialOrd + std::fmt::Display>(
    option: &'static str,
    value: T,
    min: T,
    max: T,
) -> Result<(), ServerError> {
    if value < min || value > max {
        return Err(ServerError::InvalidOption {
            option,
            message: format!("must be between {min} and {max}, got {value}"),
        });
    }
    Ok(())
}
