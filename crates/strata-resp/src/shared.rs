//! [`Shared`]: the state every RESP connection of one server shares
//! (keyspace, counters, slow log, latency monitor, ACL, pub/sub hub,
//! monitors, scripts, blocked clients), with the protocol's size limits.
//! Below the commands and the session; the protocol (`protocol.rs`) makes
//! it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_kv::{EvictionPolicy, Keyspace};
use strata_metrics::CommandTable;
use strata_service::{Clients, IdleTimeout, ServerInfo};

use crate::acl::Acl;
use crate::connection::PeerView;
use crate::latency::LatencyMonitor;
use crate::slowlog::SlowLog;
use crate::stats::Stats;

/// Redis's default `proto-max-bulk-len`, and the largest Strata accepts
/// (values are further limited by the engine's maximum item size, at most
/// 128 MiB).
pub const REDIS_MAX_BULK: usize = 512 * 1024 * 1024;
/// Smallest `proto-max-bulk-len` (Redis's minimum).
pub const MIN_BULK: usize = 1024 * 1024;
/// Smallest per-connection query buffer limit.
pub const MIN_QUERY_LIMIT: usize = 64 * 1024 * 1024;
/// The Redis version reported to clients (`INFO`, `HELLO`) for feature
/// detection.
pub const REDIS_VERSION: &str = "7.2.0";

/// State shared by every RESP connection.
#[derive(Debug)]
pub struct Shared {
    /// The keyspace.
    pub keyspace: Arc<Keyspace>,
    /// Server identity and runtime settings.
    pub info: Arc<ServerInfo>,
    /// Connected RESP clients.
    pub clients: Arc<Clients>,
    /// Front-end counters.
    pub stats: Stats,
    /// Calls, failures, refusals and latency per command
    /// (`INFO commandstats`, `latencystats`, the metrics port).
    pub commands: CommandTable,
    /// Commands slower than `slowlog-log-slower-than` (`SLOWLOG`).
    pub slowlog: SlowLog,
    /// Latency spikes of `latency-monitor-threshold` or more (`LATENCY`).
    pub latency: LatencyMonitor,
    /// What `CLIENT LIST` shows of each connection, by client id.
    pub peers: Mutex<HashMap<u64, Arc<PeerView>>>,
    /// `enable-debug-command`: who may run `DEBUG` (set once, before the
    /// port opens; refused to all when unset).
    pub debug_command: std::sync::OnceLock<crate::protected::Protected>,
    /// `maxmemory-clients` and the clients it evicted.
    pub client_eviction: crate::client_eviction::ClientEviction,
    /// 40 hex characters identifying this run (`run_id`, `master_replid`).
    pub run_id: String,
    /// `proto-max-bulk-len`: the largest bulk argument a request may
    /// announce (`CONFIG SET`, `--proto-max-bulk-len`); between
    /// [`MIN_BULK`] and [`REDIS_MAX_BULK`].
    pub proto_max_bulk_len: AtomicUsize,
    /// Users and permissions.
    pub acl: Acl,
    /// Pub/sub subscriptions and the subscribers' output bound.
    pub pubsub: Arc<crate::pubsub::Hub>,
    /// `notify-keyspace-events`.
    pub notify: crate::notify::Notifier,
    /// Connections in `MONITOR` mode (bounded by `pubsub`'s limit).
    pub monitors: crate::monitor::Monitors,
    /// Error replies by code (`INFO errorstats`).
    pub errorstats: crate::errorstats::ErrorStats,
    /// The script cache and the running script.
    pub scripts: crate::scripting::Scripts,
    /// Function libraries (`FUNCTION LOAD`), in memory only.
    pub functions: crate::scripting::Functions,
    /// Redis's `timeout`: connections idle this long are closed
    /// (`CONFIG SET timeout`).
    pub idle_timeout: IdleTimeout,
    /// Conversion thresholds of collections (`hash-max-listpack-*`).
    pub encodings: crate::encodings::Encodings,
    /// Connections blocked in BLPOP and friends, by key.
    pub waiters: Arc<crate::blocking::Waiters>,
    /// `CLIENT PAUSE`.
    pub pause: crate::pause::Pause,
    /// `CLIENT TRACKING`'s clients and remembered keys.
    pub tracking: crate::tracking::table::Tracking,
    /// This node when cluster mode is on (`cluster_enabled`); set once,
    /// before the port opens.
    pub cluster: std::sync::OnceLock<crate::cluster::ClusterNode>,
    /// `cluster-config-file` as configured (Redis's `nodes.conf` unless
    /// set); set once, before the port opens.
    pub cluster_config_file: std::sync::OnceLock<String>,
}

impl Shared {
    /// Largest bulk argument accepted now (`proto-max-bulk-len`). A bulk
    /// within it but over the engine's maximum item size is read and the
    /// command answers the engine's error; a larger one is a protocol error.
    pub fn max_bulk(&self) -> usize {
        self.proto_max_bulk_len.load(Ordering::Relaxed)
    }

    /// Disconnects the clients holding most while the clients together
    /// hold more than `maxmemory-clients` (one load when under it).
    pub fn evict_clients(&self) {
        if !self.client_eviction.is_on() {
            return;
        }
        let maxmemory = self.keyspace.memory_limit();
        self.client_eviction
            .enforce(maxmemory, &self.clients, &self.peers);
    }

    /// Sets `proto-max-bulk-len`, clamped to its range.
    pub fn set_max_bulk(&self, bytes: usize) {
        let bytes = bytes.clamp(MIN_BULK, REDIS_MAX_BULK);
        self.proto_max_bulk_len.store(bytes, Ordering::Relaxed);
    }

    /// Largest incomplete request a connection may buffer now: room for two
    /// arguments of the largest bulk size (a SET or an MSET pair) plus
    /// headers, never under [`MIN_QUERY_LIMIT`]. With Redis's 512 MiB
    /// default this is Redis's `client-query-buffer-limit` of 1 GiB (plus
    /// 1 MiB). Input is buffered only as it arrives, never up front.
    pub fn query_limit(&self) -> usize {
        query_limit_for(self.max_bulk())
    }

    /// True when new connections must authenticate (the default user is
    /// not `on` with `nopass`).
    pub fn password_required(&self) -> bool {
        !self.acl.default_open()
    }

    /// The Redis name of the engine's eviction policy.
    pub fn policy_name(&self) -> &'static str {
        match self.keyspace.eviction() {
            EvictionPolicy::NoEviction => "noeviction",
            EvictionPolicy::Clock => "allkeys-lru",
        }
    }
}

/// The query buffer limit that goes with a bulk limit of `bulk` bytes.
pub fn query_limit_for(bulk: usize) -> usize {
    bulk.saturating_mul(2)
        .saturating_add(1 << 20)
        .max(MIN_QUERY_LIMIT)
}
