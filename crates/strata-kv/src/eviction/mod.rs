//! What the engine does when a write would pass the memory limit.
//!
//! - [`EvictionPolicy::NoEviction`] (store mode): reclaim garbage by
//!   compaction, then refuse the write with [`KvError::OutOfMemory`](crate::KvError).
//! - [`EvictionPolicy::Clock`] (cache mode): evict by segment-level CLOCK
//!   (`clock.rs`), an approximation of LRU that costs one bit per item.

pub(crate) mod clock;

use std::fmt;
use std::str::FromStr;

/// The eviction policy of a keyspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EvictionPolicy {
    /// Never evict; writes over the limit fail with out-of-memory.
    NoEviction,
    /// Evict the least recently used items (segment-level CLOCK).
    #[default]
    Clock,
}

impl EvictionPolicy {
    /// The policy's configuration name.
    pub fn as_str(self) -> &'static str {
        match self {
            EvictionPolicy::NoEviction => "noeviction",
            EvictionPolicy::Clock => "clock",
        }
    }

    /// Whether items may be evicted.
    pub fn evicts(self) -> bool {
        self == EvictionPolicy::Clock
    }
}

impl fmt::Display for EvictionPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Error for an unknown policy name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPolicy(pub String);

impl fmt::Display for UnknownPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown eviction policy '{}' (expected noeviction or clock)",
            self.0
        )
    }
}

impl std::error::Error for UnknownPolicy {}

impl FromStr for EvictionPolicy {
    type Err = UnknownPolicy;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "noeviction" | "none" | "off" => Ok(EvictionPolicy::NoEviction),
            "clock" | "lru" | "on" => Ok(EvictionPolicy::Clock),
            _ => Err(UnknownPolicy(s.to_string())),
        }
    }
}
