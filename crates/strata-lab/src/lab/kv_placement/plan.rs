//! What `strata lab kv-placement` runs: the placements, the workloads, the
//! seed's figures, the tables' titles, and the sizes of a full and a quick run.

use std::time::Duration;

use crate::lab::common::secs;

/// (row label, --index, --data).
pub const PLACEMENTS: [(&str, &str, &str); 5] = [
    ("index dram, data dram", "dram", "dram"),
    ("index dram, data pmem", "dram", "pmem"),
    ("index dram, data ssd", "dram", "ssd"),
    ("index pmem, data pmem", "pmem", "pmem"),
    ("index pmem, data ssd", "pmem", "ssd"),
];

/// (column, set:get ratio).
pub const WORKLOADS: [(&str, &str); 3] = [
    ("50/50", "1:1"),
    ("100% read", "0:1"),
    ("100% write", "1:0"),
];

/// The seed's operations/s on the Xeon 8268 (50/50, read, write).
pub(super) const SEED: [(&str, [f64; 3]); 3] = [
    (
        "index dram, data ssd",
        [2_100_000.0, 2_240_000.0, 1_760_000.0],
    ),
    (
        "index pmem, data ssd",
        [2_000_000.0, 2_200_000.0, 1_740_000.0],
    ),
    (
        "index pmem, data pmem",
        [2_600_000.0, 2_810_000.0, 2_120_000.0],
    ),
];

/// Title of the throughput table.
pub const THROUGHPUT: &str = "Throughput per placement";
/// Title of the latency table.
pub const LATENCY: &str = "Latency per placement";
/// Title of the restart table.
pub const RESTART: &str = "Restart after a crash per placement";

pub(super) struct Sizes {
    pub(super) keys: u64,
    pub(super) value: usize,
    pub(super) warmup: f64,
    pub(super) measure: f64,
    pub(super) connections: usize,
}

impl Sizes {
    pub(super) fn new(quick: bool) -> Self {
        if quick {
            Self {
                keys: 20_000,
                value: 100,
                warmup: 0.3,
                measure: 0.5,
                connections: 16,
            }
        } else {
            Self {
                keys: 1_000_000,
                value: 100,
                warmup: 5.0,
                measure: 15.0,
                connections: 50,
            }
        }
    }

    pub(super) fn data_bytes(&self) -> u64 {
        self.keys * (self.value as u64 + 32)
    }

    pub(super) fn per_placement(&self) -> Duration {
        secs(3.0 + self.keys as f64 / 60_000.0 + self.warmup + 3.0 * self.measure + 2.0)
    }
}
