//! The workload a user asks about: its mix, sizes, skew, DRAM budget and what
//! it needs kept across a crash. A leaf: parsed from `strata advise`'s options,
//! read by the recommenders.

use clap::ValueEnum;

use crate::LabError;

/// How the keys are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Skew {
    /// Every key equally likely (what the lab's runs use).
    Uniform,
    /// A few keys take most requests.
    Zipfian,
}

/// What a crash may lose. Ordered: a configuration that keeps more satisfies
/// every lesser need.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Durability {
    /// A cache: losing everything at a crash is acceptable.
    None,
    /// The last moments of acknowledged writes (at most a second) may be lost.
    Bounded,
    /// Every acknowledged write must survive a crash.
    EveryWrite,
}

impl Durability {
    /// How a configuration keeping this much is described.
    pub fn describe(self) -> &'static str {
        match self {
            Durability::None => "nothing survives a crash",
            Durability::Bounded => "loses at most the last moments of writes",
            Durability::EveryWrite => "every acknowledged write survives",
        }
    }
}

/// Whether the time to serve again after a crash weighs in the choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RestartWeight {
    /// Throughput decides.
    Irrelevant,
    /// The fastest measured restart decides; throughput breaks ties.
    Decides,
}

/// The workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    /// Share of requests that are reads, 0..=1.
    pub read_fraction: f64,
    /// Bytes per value.
    pub value_size: u64,
    /// Number of keys.
    pub keys: u64,
    /// Key choice.
    pub skew: Skew,
    /// DRAM the store may use, bytes.
    pub dram_budget: u64,
    /// Persistent memory it may use, bytes (0: none).
    pub pmem_budget: u64,
    /// What a crash may lose.
    pub durability: Durability,
    /// Whether restart time matters.
    pub restart: RestartWeight,
    /// Size of the search indices, when search is asked about.
    pub search_index_bytes: Option<u64>,
}

/// Bytes of a key as the lab's clients make them (`key:` and a number).
pub const KEY_BYTES: u64 = 16;

impl Workload {
    /// Keys and values without any overhead: the least DRAM that holds them.
    pub fn data_bytes(&self) -> u64 {
        self.keys.saturating_mul(self.value_size + KEY_BYTES)
    }
}

/// `512mb`, `1.5gb`, `0` or plain bytes, as every Strata command reads
/// sizes (`strata_units`).
pub fn parse_size(text: &str) -> Result<u64, LabError> {
    strata_units::parse_bytes(text).map_err(LabError::Config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512mb").unwrap(), 512 << 20);
        assert_eq!(parse_size("1.5GB").unwrap(), 3 << 29);
        assert_eq!(parse_size("100").unwrap(), 100);
        assert!(parse_size("12 parsecs").is_err());
        assert!(parse_size("").is_err());
        assert_eq!(parse_size("0").unwrap(), 0);
    }

    #[test]
    fn durability_orders_by_what_survives() {
        assert!(Durability::EveryWrite > Durability::Bounded);
        assert!(Durability::Bounded > Durability::None);
    }
}
