//! Named settings with a fixed set of values: the eviction mode and the log format.

use serde::Deserialize;
use strata_kv::EvictionPolicy;

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
