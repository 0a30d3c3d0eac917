//! [`RespProtocol`]: the front end as the connection driver sees it, and the
//! state its sessions share.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use parking_lot::Mutex;
use strata_kv::Keyspace;
use strata_service::{ClientInfo, Clients, DriverConfig, IdleTimeout, Protocol, ServerInfo};

use crate::acl::Acl;
use crate::connection::{Connection, PeerView};
use crate::reply::{INTERNAL_ERROR_REPLY, MAX_CLIENTS_REPLY, PROTECTED_MODE_REPLY};
use crate::session::RespSession;
pub use crate::shared::{Shared, MIN_BULK, MIN_QUERY_LIMIT, REDIS_MAX_BULK, REDIS_VERSION};
use crate::slowlog::SlowLog;
use crate::stats::Stats;

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
        let shared = Arc::new(Shared {
            keyspace,
            info,
            clients,
            stats: Stats::new(),
            commands: crate::command_stats::new_table(),
            slowlog: SlowLog::default(),
            latency: crate::latency::LatencyMonitor::default(),
            waiters: Arc::default(),
            pause: Default::default(),
            tracking: Default::default(),
            cluster: std::sync::OnceLock::new(),
            cluster_config_file: std::sync::OnceLock::new(),
            peers: Mutex::new(HashMap::new()),
            client_eviction: Default::default(),
            debug_command: Default::default(),
            run_id: random_hex(40),
            proto_max_bulk_len: AtomicUsize::new(REDIS_MAX_BULK),
            acl,
            idle_timeout: IdleTimeout::default(),
            pubsub: Arc::default(),
            notify: crate::notify::Notifier::default(),
            monitors: crate::monitor::Monitors::default(),
            scripts: crate::scripting::Scripts::default(),
            functions: crate::scripting::Functions::default(),
            errorstats: crate::errorstats::ErrorStats::default(),
            encodings: crate::encodings::Encodings::default(),
        });
        let invalidator = Arc::new(crate::tracking::Invalidator::new(&shared));
        if shared.keyspace.observe_changes(invalidator).is_err() {
            // Another front end on this keyspace observes it already.
            tracing::warn!("client tracking is off: the keyspace has another change observer");
        }
        Self { shared }
    }

    /// The driver limits for this protocol: input beyond the query buffer
    /// limit of the largest `proto-max-bulk-len` closes the connection (the
    /// session closes it at the current one); idle connections are closed
    /// after `timeout` (none by default).
    pub fn driver_config(&self) -> DriverConfig {
        DriverConfig {
            idle_timeout: self.shared.idle_timeout.clone(),
            ..DriverConfig::new(crate::shared::query_limit_for(REDIS_MAX_BULK))
        }
    }

    /// Sets `proto-max-bulk-len` (the `--proto-max-bulk-len` option),
    /// clamped between [`MIN_BULK`] and [`REDIS_MAX_BULK`].
    pub fn set_proto_max_bulk_len(&self, bytes: usize) {
        self.shared.set_max_bulk(bytes);
    }

    /// The query buffer limit of a connection now (it follows
    /// `proto-max-bulk-len`).
    pub fn query_limit(&self) -> usize {
        self.shared.query_limit()
    }

    /// Turns Redis Cluster mode on, this node owning every slot and
    /// announcing `bind:port` (see [`crate::cluster`]), its id and epoch
    /// kept in `file` (none: a new id). Call before the port opens; a
    /// second call changes nothing. A cluster config file that cannot be
    /// read, is corrupted or cannot be written is an error (Redis does not
    /// start then either).
    pub fn enable_cluster(
        &self,
        bind: std::net::IpAddr,
        port: u16,
        file: Option<crate::cluster::NodesFile>,
    ) -> Result<(), String> {
        if self.shared.cluster.get().is_none() {
            let node = crate::cluster::ClusterNode::start(|| random_hex(40), bind, port, file)?;
            // Redis's slot-to-keys index: kept only in cluster mode.
            let slots = (crate::cluster::key_slot, crate::cluster::SLOTS);
            self.shared.keyspace.group_keys(slots.0, slots.1);
            let _ = self.shared.cluster.set(node);
        }
        Ok(())
    }

    /// Sets what `CONFIG GET cluster-config-file` shows (the name as
    /// configured, used or not). Call before the port opens; once.
    pub fn set_cluster_config_file(&self, shown: &str) {
        let _ = self.shared.cluster_config_file.set(shown.to_string());
    }

    /// Sets `enable-debug-command` (who may run `DEBUG`). Call before the
    /// port opens; once.
    pub fn set_enable_debug_command(&self, access: crate::protected::Protected) {
        let _ = self.shared.debug_command.set(access);
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
