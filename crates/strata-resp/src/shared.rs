//! [`Shared`]: the state every RESP connection of one server shares
//! (keyspace, counters, slow log, ACL, pub/sub hub, scripts, blocked
//! clients), with the protocol's size limits. Below the commands and the
//! session; the protocol (`protocol.rs`) makes it.

use std::collections::HashMap;
use std::sync::Arc;

use parking_lot::Mutex;
use strata_kv::{EvictionPolicy, Keyspace};
use strata_metrics::CommandTable;
use strata_service::{Clients, IdleTimeout, ServerInfo};

use crate::acl::Acl;
use crate::connection::PeerView;
use crate::slowlog::SlowLog;
use crate::stats::Stats;

/// Redis's hard cap on one bulk argument (`proto-max-bulk-len` default).
pub const REDIS_MAX_BULK: usize = 512 * 1024 * 1024;
/// Room above the engine's maximum item size a bulk argument may have, so
/// values slightly too large get the engine's error instead of a protocol
/// error.
pub const BULK_SLACK: usize = 64 * 1024;
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
    /// What `CLIENT LIST` shows of each connection, by client id.
    pub peers: Mutex<HashMap<u64, Arc<PeerView>>>,
    /// 40 hex characters identifying this run (`run_id`, `master_replid`).
    pub run_id: String,
    /// Largest incomplete request a connection may buffer.
    pub query_limit: usize,
    /// Users and permissions.
    pub acl: Acl,
    /// Pub/sub subscriptions and the subscribers' output bound.
    pub pubsub: crate::pubsub::Hub,
    /// Error replies by code (`INFO errorstats`).
    pub errorstats: crate::errorstats::ErrorStats,
    /// The script cache and the running script.
    pub scripts: crate::scripting::Scripts,
    /// Redis's `timeout`: connections idle this long are closed
    /// (`CONFIG SET timeout`).
    pub idle_timeout: IdleTimeout,
    /// Connections blocked in BLPOP and friends, by key.
    pub waiters: Arc<crate::blocking::Waiters>,
}

impl Shared {
    /// Largest bulk argument accepted now: the engine's maximum item size
    /// plus [`BULK_SLACK`], never above Redis's 512 MiB.
    pub fn max_bulk(&self) -> usize {
        self.keyspace
            .max_item_size()
            .saturating_add(BULK_SLACK)
            .min(REDIS_MAX_BULK)
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
