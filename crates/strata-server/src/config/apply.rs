//! The command line over the file: [`ServerConfig::load`] reads the
//! defaults and the `--config` file, lays the flags given over them
//! (`apply_to` of [`ServeArgs`] and of its transport and observability
//! groups) and validates the result.

use crate::config::args::ServeArgs;
use crate::config::observability::ObservabilityArgs;
use crate::config::settings::ServerConfig;
use crate::config::transport::TransportArgs;
use crate::error::ServerError;

impl ServerConfig {
    /// Defaults, then the `--config` file if given, then the flags; validated.
    pub fn load(args: &ServeArgs) -> Result<Self, ServerError> {
        let mut config = match &args.config {
            Some(path) => Self::from_file(path)?,
            None => Self::default(),
        };
        args.apply_to(&mut config);
        config.validate()?;
        Ok(config)
    }
}

impl ServeArgs {
    /// Overwrites the settings of `config` that were given on the command line.
    pub fn apply_to(&self, config: &mut ServerConfig) {
        fn set<T: Clone>(slot: &mut T, value: &Option<T>) {
            if let Some(v) = value {
                *slot = v.clone();
            }
        }
        set(&mut config.bind, &self.bind);
        set(&mut config.memcache_port, &self.memcache_port);
        set(&mut config.resp_port, &self.resp_port);
        if self.no_memcache {
            config.memcache_enabled = false;
        }
        if self.no_resp {
            config.resp_enabled = false;
        }
        set(&mut config.http_port, &self.http_port);
        if self.no_http {
            config.http_enabled = false;
        }
        set(&mut config.http_max_body, &self.http_max_body);
        if self.http_security_dir.is_some() {
            config.http_security_dir = self.http_security_dir.clone();
        }
        set(&mut config.threads, &self.threads);
        set(&mut config.worker_mode, &self.worker_mode);
        set(&mut config.memory_limit, &self.memory_limit);
        set(&mut config.eviction, &self.eviction);
        set(&mut config.max_connections, &self.max_connections);
        set(&mut config.max_item_size, &self.max_item_size);
        set(&mut config.proto_max_bulk_len, &self.proto_max_bulk_len);
        if let Some(password) = &self.requirepass {
            config.requirepass = Some(password.clone());
        }
        if self.cluster_enabled {
            config.cluster_enabled = true;
        }
        set(&mut config.cluster_config_file, &self.cluster_config_file);
        set(&mut config.enable_debug_command, &self.enable_debug_command);
        if self.aclfile.is_some() {
            config.aclfile = self.aclfile.clone();
        }
        if self.memcache_auth_file.is_some() {
            config.memcache_auth_file = self.memcache_auth_file.clone();
        }
        if self.memcache_unauthenticated {
            config.memcache_unauthenticated = true;
        }
        set(&mut config.data_dir, &self.data_dir);
        set(&mut config.log_level, &self.log_level);
        set(&mut config.log_format, &self.log_format);
        set(&mut config.shards, &self.shards);
        set(&mut config.persistence, &self.persistence);
        if self.log_dir.is_some() {
            config.log_dir = self.log_dir.clone();
        }
        if self.snapshot_dir.is_some() {
            config.snapshot_dir = self.snapshot_dir.clone();
        }
        set(&mut config.sync_interval, &self.sync_interval);
        set(&mut config.group_commit_delay, &self.group_commit_delay);
        set(&mut config.log_device, &self.log_device);
        set(&mut config.log_segment_size, &self.log_segment_size);
        set(
            &mut config.checkpoint_min_log_size,
            &self.checkpoint_min_log_size,
        );
        set(
            &mut config.checkpoint_log_ratio_pct,
            &self.checkpoint_log_ratio_pct,
        );
        set(&mut config.checkpoint_io_rate, &self.checkpoint_io_rate);
        set(&mut config.checkpoint_cpu_pct, &self.checkpoint_cpu_pct);
        set(&mut config.recovery, &self.recovery);
        set(&mut config.index, &self.index);
        set(&mut config.data, &self.data);
        if self.pmem_path.is_some() {
            config.pmem_path = self.pmem_path.clone();
        }
        set(&mut config.pmem_size, &self.pmem_size);
        set(&mut config.pmem_persist, &self.pmem_persist);
        if self.ssd_path.is_some() {
            config.ssd_path = self.ssd_path.clone();
        }
        set(&mut config.ssd_size, &self.ssd_size);
        set(&mut config.ssd_block_size, &self.ssd_block_size);
        set(&mut config.ssd_io, &self.ssd_io);
        set(&mut config.ssd_io_threads, &self.ssd_io_threads);
        set(&mut config.ssd_io_engine, &self.ssd_io_engine);
        if self.dram_cache_size.is_some() {
            config.dram_cache_size = self.dram_cache_size;
        }
        set(&mut config.ssd_flush_interval, &self.ssd_flush_interval);
        set(
            &mut config.ssd_defrag_threshold_pct,
            &self.ssd_defrag_threshold_pct,
        );
        set(&mut config.ssd_reads, &self.ssd_reads);
        set(&mut config.search_tier, &self.search_tier);
        if self.search_cache_size.is_some() {
            config.search_cache_size = self.search_cache_size;
        }
        for (setting, flag) in [
            (&mut config.cache_size, self.cache_size),
            (
                &mut config.kv_records_cache_floor,
                self.kv_records_cache_floor,
            ),
            (
                &mut config.kv_records_cache_ceiling,
                self.kv_records_cache_ceiling,
            ),
            (
                &mut config.search_blocks_cache_floor,
                self.search_blocks_cache_floor,
            ),
            (
                &mut config.search_blocks_cache_ceiling,
                self.search_blocks_cache_ceiling,
            ),
        ] {
            if flag.is_some() {
                *setting = flag;
            }
        }
        set(&mut config.search_indexing_nice, &self.search_indexing_nice);
        set(&mut config.search_merge_pause, &self.search_merge_pause);
        if self.search_pmem_dir.is_some() {
            config.search_pmem_dir = self.search_pmem_dir.clone();
        }
        self.transport.apply_to(config);
        self.observability.apply_to(config);
    }
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
        if let Some(classes) = &self.notify_keyspace_events {
            config.notify_keyspace_events.clone_from(classes);
        }
    }
}
