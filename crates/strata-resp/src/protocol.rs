//! [`RespProtocol`]: the front end as the connection driver sees it, and the
//! state its sessions share.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_kv::{EvictionPolicy, Keyspace};
use strata_metrics::CommandTable;
use strata_service::{ClientInfo, Clients, DriverConfig, IdleTimeout, Protocol, ServerInfo};

use crate::acl::Acl;
use crate::connection::{Connection, PeerView};
use crate::reply::{INTERNAL_ERROR_REPLY, MAX_CLIENTS_REPLY, PROTECTED_MODE_REPLY};
use crate::session::RespSession;
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

/// The Redis protocol front end.
#[derive(Debug, Clone)]
pub struct RespProtocol {
    shared: Arc<Shared>,
}

impl RespProtocol {
    /// A front end serving `keyspace`, reporting `info` and registering
    /// connections in `clients` (the registry its listener's driver uses).
    /// Its only user is the default one, with `info`'s `requirepass`.
    pub fn new(keyspace: Arc<Keyspace>, info: Arc<ServerInfo>, clients: Arc<Clients>) -> Self {
        let acl = Acl::new(info.settings.requirepass().as_deref());
        Self::with_acl(keyspace, info, clients, acl)
    }

    /// Like [`new`](Self::new), with the users of `acl` (built from the
    /// `aclfile` and `requirepass` at start).
    pub fn with_acl(
        keyspace: Arc<Keyspace>,
        info: Arc<ServerInfo>,
        clients: Arc<Clients>,
        acl: Acl,
    ) -> Self {
        let bulk = keyspace
            .max_item_size()
            .saturating_add(BULK_SLACK)
            .min(REDIS_MAX_BULK);
        let query_limit = bulk
            .saturating_mul(2)
            .saturating_add(1 << 20)
            .max(MIN_QUERY_LIMIT);
        Self {
            shared: Arc::new(Shared {
                keyspace,
                info,
                clients,
                stats: Stats::new(),
                commands: crate::command_stats::new_table(),
                slowlog: SlowLog::default(),
                waiters: Arc::default(),
                peers: Mutex::new(HashMap::new()),
                run_id: random_hex(40),
                query_limit,
                acl,
                idle_timeout: IdleTimeout::default(),
                pubsub: crate::pubsub::Hub::default(),
                scripts: crate::scripting::Scripts::default(),
                errorstats: crate::errorstats::ErrorStats::default(),
            }),
        }
    }

    /// The driver limits for this protocol: input beyond the query buffer
    /// limit closes the connection; idle connections are closed after
    /// `timeout` (none by default).
    pub fn driver_config(&self) -> DriverConfig {
        DriverConfig {
            idle_timeout: self.shared.idle_timeout.clone(),
            ..DriverConfig::new(self.shared.query_limit)
        }
    }

    /// The state shared by this front end's sessions.
    pub fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }
}

impl Protocol for RespProtocol {
    type Session = RespSession;

    fn name(&self) -> &'static str {
        "resp"
    }

    fn open(&self, client: Arc<ClientInfo>) -> RespSession {
        let acl = &self.shared.acl;
        let epoch = acl.epoch();
        let user = acl.default_user();
        let peer = Arc::new(PeerView::new(user.clone()));
        self.shared.peers.lock().insert(client.id, peer.clone());
        let authenticated = !self.shared.password_required();
        RespSession::new(
            self.shared.clone(),
            Connection::new(client, peer, user, epoch, authenticated),
        )
    }

    fn too_many_connections(&self) -> &'static [u8] {
        MAX_CLIENTS_REPLY
    }

    fn internal_error(&self) -> &'static [u8] {
        INTERNAL_ERROR_REPLY
    }

    fn protected_mode_refusal(&self) -> &'static [u8] {
        PROTECTED_MODE_REPLY
    }
}

/// `len` random lowercase hex characters (std's randomly keyed hasher as the
/// entropy source; this identifies a run, it is not a secret).
fn random_hex(len: usize) -> String {
    let state = std::collections::hash_map::RandomState::new();
    let mut out = String::with_capacity(len);
    let mut round = 0u64;
    while out.len() < len {
        let mut hasher = state.build_hasher();
        hasher.write_u64(round);
        hasher.write_u32(std::process::id());
        out.push_str(&format!("{:016x}", hasher.finish()));
        round += 1;
    }
    out.truncate(len);
    out
}
