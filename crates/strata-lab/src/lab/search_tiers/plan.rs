//! What `strata lab search-tiers` runs: its options, the tiers and the peer
//! row, the mixed-phase targets, the seed's Table 4, and the sizes of a full
//! and a quick run.

use std::time::Duration;

use clap::Args;

use crate::lab::common::{secs, CommonArgs};

/// Arguments of `strata lab search-tiers`.
#[derive(Debug, Clone, Args)]
pub struct SearchTiersArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,

    /// An Elasticsearch-compatible peer (e.g. OpenSearch) to run beside Strata's tiers:
    /// its base URL (http only). Its index `elasticlogs` is replaced. Without it, an
    /// OpenSearch node is started per round when `scripts/peers/opensearch` has
    /// installed `opensearch-peer`.
    #[arg(long, value_name = "URL")]
    pub peer_url: Option<String>,

    /// Run no peer, even when OpenSearch is installed.
    #[arg(long, conflicts_with = "peer_url")]
    pub no_peer: bool,
}

/// (row label, server options): the seed's configurations.
pub(super) const TIERS: [(&str, &str); 3] = [
    ("dram", "dram"),
    ("ssd, small cache", "ssd"),
    ("pmem", "pmem"),
];
/// Row label of the peer.
pub(super) const PEER: &str = "peer (Elasticsearch API)";

/// Mixed-phase targets as fractions of the indexing throughput.
pub(super) const TARGETS: [(&str, f64); 3] = [("30%", 0.3), ("60%", 0.6), ("90%", 0.9)];

/// The seed's Table 4: indexing docs/s, search ms, mixed relative ms (PMEM-MM,
/// DRAM, PMEM-AD in the rows of [`TIERS`]).
pub(super) const SEED: [[f64; 3]; 3] = [
    [119_442.0, 2_121.35, 4_598.55],
    [113_669.0, 2_328.96, 14_715.4],
    [165_077.0, 2_336.79, 23_647.6],
];
/// The seed's best-over-DRAM ratios.
pub(super) const SEED_BEST: [f64; 3] = [1.45, 1.09, 3.2];

/// Title of Table 4.
pub const TABLE4: &str = "Table 4: indexing, search and mixed latency per tier";

pub(super) struct Sizes {
    pub(super) docs: u64,
    pub(super) query_iterations: u32,
    pub(super) mixed_secs: f64,
    pub(super) cache: u64,
}

impl Sizes {
    pub(super) fn new(quick: bool) -> Self {
        if quick {
            Self {
                docs: 20_000,
                query_iterations: 1,
                mixed_secs: 2.0,
                cache: 4 << 20,
            }
        } else {
            Self {
                docs: 1_000_000,
                query_iterations: 10,
                mixed_secs: 30.0,
                cache: 32 << 20,
            }
        }
    }

    pub(super) fn per_tier(&self) -> Duration {
        secs(
            5.0 + self.docs as f64 / 8_000.0
                + f64::from(self.query_iterations) * 3.0
                + 3.0 * self.mixed_secs,
        )
    }
}
