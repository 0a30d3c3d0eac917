//! Named settings with a fixed set of values: the eviction mode, the log
//! format, how connections are spread over worker threads and who may run
//! Redis's `DEBUG`.

use serde::Deserialize;
use strata_kv::EvictionPolicy;
use strata_service::WorkerPolicy;

/// What happens when the memory limit is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum EvictionMode {
    /// Cache mode: evict least-recently-used items to make room.
    #[default]
    #[serde(alias = "cache")]
    #[value(alias = "cache")]
    On,
    /// Store mode: refuse writes with an out-of-memory error instead of evicting.
    #[serde(alias = "store")]
    #[value(alias = "store")]
    Off,
}

impl EvictionMode {
    /// The engine policy this mode selects.
    pub fn policy(self) -> EvictionPolicy {
        match self {
            Self::On => EvictionPolicy::Clock,
            Self::Off => EvictionPolicy::NoEviction,
        }
    }
}

/// How log lines are written to standard error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Human-readable lines.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// How key-value connections are spread over the `threads` workers
/// (`worker_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum WorkerMode {
    /// Each worker its own runtime; as many serve as measure best (one
    /// while a second does not raise the served rate), connections moving
    /// between them between requests (`strata_service::workers`).
    #[default]
    Adaptive,
    /// Each worker its own runtime, all of them serving.
    Fixed,
    /// Connections are tasks of the server's one runtime, stolen between
    /// its workers (the search port's model).
    Shared,
}

impl WorkerMode {
    /// The pool policy, or `None` when connections run on the server's
    /// runtime.
    pub fn pool_policy(self) -> Option<WorkerPolicy> {
        match self {
            Self::Adaptive => Some(WorkerPolicy::Adaptive),
            Self::Fixed => Some(WorkerPolicy::Fixed),
            Self::Shared => None,
        }
    }
}

/// Who may run Redis's `DEBUG` on the RESP port (`enable_debug_command`,
/// Redis's `enable-debug-command`; fixed at start, as in Redis).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum DebugCommand {
    /// Nobody (Redis's default).
    #[default]
    No,
    /// Every connection.
    Yes,
    /// Connections from a loopback address.
    Local,
}

impl DebugCommand {
    /// The RESP front end's setting.
    pub fn access(self) -> strata_resp::protected::Protected {
        use strata_resp::protected::Protected;
        match self {
            Self::No => Protected::No,
            Self::Yes => Protected::Yes,
            Self::Local => Protected::Local,
        }
    }
}
