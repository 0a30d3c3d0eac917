//! Identity and runtime-changeable settings of the running server, shared by
//! every front end (memcached `stats`, Redis `INFO` and `CONFIG`), the
//! node's cache ledger, and where a client's request to stop is filed.

use std::net::IpAddr;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use parking_lot::RwLock;
use strata_metrics::CacheLedger;

use crate::durability::Durability;
use crate::shutdown_request::ShutdownRequest;
use crate::workers::WorkerPool;

/// [`ServerInfo::commit`] when the binary did not say which commit it is.
pub const UNKNOWN_COMMIT: &str = "unknown";

/// Settings that clients may read and, where noted, change at run time.
#[derive(Debug)]
pub struct RuntimeSettings {
    /// Address the listeners are bound to.
    pub bind: IpAddr,
    /// memcached text protocol port, if that front end is on.
    pub memcache_port: Option<u16>,
    /// RESP port, if that front end is on.
    pub resp_port: Option<u16>,
    /// Worker threads serving connections.
    pub threads: usize,
    /// Data directory.
    pub data_dir: String,
    /// Maximum simultaneous connections per front end (`CONFIG SET maxclients`).
    pub max_connections: AtomicUsize,
    /// Redis `requirepass`; `None` means no password (`CONFIG SET requirepass`).
    pub requirepass: RwLock<Option<String>>,
    /// memcached `verbosity` level, also Redis `loglevel` as a number.
    pub verbosity: AtomicU32,
}

impl RuntimeSettings {
    /// Current connection limit.
    pub fn max_connections(&self) -> usize {
        self.max_connections.load(Ordering::Relaxed)
    }

    /// A copy of the current password, if any.
    pub fn requirepass(&self) -> Option<String> {
        self.requirepass.read().clone()
    }
}

/// Who this server is and since when.
#[derive(Debug)]
pub struct ServerInfo {
    /// Strata's version (`CARGO_PKG_VERSION` of the binary).
    pub version: String,
    /// The commit the binary was built from, as `strata --version` names it
    /// (40 hex digits, `-dirty` after them when built from a modified
    /// checkout), or `unknown` ([`ServerInfo::with_commit`]).
    pub commit: String,
    /// Process id.
    pub pid: u32,
    /// When the server started (monotonic).
    pub started: Instant,
    /// When the server started, Unix seconds.
    pub started_unix: u64,
    /// Runtime settings.
    pub settings: RuntimeSettings,
    /// Persistence, when the server has any (even `off` is described).
    pub durability: Option<Arc<dyn Durability>>,
    /// The node's DRAM caches by user (`INFO cache`; shared with the
    /// search node's `_nodes/stats`).
    pub caches: Arc<CacheLedger>,
    /// The key-value connections' workers when they are a pool
    /// (`worker_mode` `adaptive` or `fixed`); `None` when connections are
    /// tasks of the server's own runtime (`shared`).
    pub workers: Option<Arc<WorkerPool>>,
    /// Where a client's `SHUTDOWN` is filed (`strata serve` waits on it).
    pub shutdown: ShutdownRequest,
}

/// How the key-value connections are served now ([`ServerInfo::workers_now`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkersNow {
    /// `adaptive`, `fixed` or `shared`.
    pub mode: &'static str,
    /// Worker threads that may serve connections.
    pub workers: usize,
    /// Of those, how many take connections now (the governor's choice
    /// under `adaptive`; all of them otherwise).
    pub active: usize,
}

impl std::fmt::Debug for dyn Durability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Durability({})", self.mode())
    }
}

impl ServerInfo {
    /// Server identity for `settings`, started now.
    pub fn new(version: impl Into<String>, settings: RuntimeSettings) -> Self {
        let started_unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        Self {
            version: version.into(),
            commit: UNKNOWN_COMMIT.to_owned(),
            pid: std::process::id(),
            started: Instant::now(),
            started_unix,
            settings,
            durability: None,
            caches: Arc::default(),
            workers: None,
            shutdown: ShutdownRequest::default(),
        }
    }

    /// The same server with its connections served by `pool`.
    pub fn with_workers(mut self, pool: Arc<WorkerPool>) -> Self {
        self.workers = Some(pool);
        self
    }

    /// The connection workers now (`INFO server`, memcached `stats`).
    pub fn workers_now(&self) -> WorkersNow {
        match &self.workers {
            Some(pool) => WorkersNow {
                mode: pool.policy().as_str(),
                workers: pool.workers(),
                active: pool.active(),
            },
            None => WorkersNow {
                mode: "shared",
                workers: self.settings.threads,
                active: self.settings.threads,
            },
        }
    }

    /// The same server built from `commit` (reported by `INFO`, `stats`
    /// and the search front end's `build_hash`).
    pub fn with_commit(mut self, commit: impl Into<String>) -> Self {
        self.commit = commit.into();
        self
    }

    /// The same server with `durability` as its persistence.
    pub fn with_durability(mut self, durability: Arc<dyn Durability>) -> Self {
        self.durability = Some(durability);
        self
    }

    /// Seconds since start.
    pub fn uptime_secs(&self) -> u64 {
        self.started.elapsed().as_secs()
    }
}
