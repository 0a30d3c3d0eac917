//! Counts over a crash loop, printed at its end: how much was written,
//! how much was in flight at the kills, what recovery did.

use std::collections::BTreeMap;

use super::model::Protocol;
use super::workload::WorkerRun;

/// Counts over a loop; `Display` gives the closing line.
#[derive(Default)]
pub struct Totals {
    acknowledged: usize,
    acknowledged_memcache: usize,
    in_flight: usize,
    recovery_records: u64,
    recovery_bytes_dropped: u64,
    slowest_recovery_ms: u64,
    /// BGSAVE and SAVE commands sent; counted by the loop itself.
    pub checkpoint_requests: usize,
}

impl Totals {
    /// Adds one server run: its workers' records and the `INFO persistence`
    /// of the server that recovered from it.
    pub fn add(&mut self, runs: &[WorkerRun], info: &BTreeMap<String, String>) {
        for run in runs {
            let acked = run.log.ops().iter().filter(|op| op.acked_at.is_some());
            let acked = acked.count();
            self.acknowledged += acked;
            if run.protocol == Protocol::Memcache {
                self.acknowledged_memcache += acked;
            }
            self.in_flight += run.log.ops().len() - acked;
        }
        let field = |name: &str| info.get(name).and_then(|v| v.parse::<u64>().ok());
        self.recovery_records += field("strata_recovery_records").unwrap_or(0);
        self.recovery_bytes_dropped += field("strata_recovery_bytes_dropped").unwrap_or(0);
        let recovery_ms = field("strata_recovery_ms").unwrap_or(0);
        self.slowest_recovery_ms = self.slowest_recovery_ms.max(recovery_ms);
    }
}

impl std::fmt::Display for Totals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} writes acknowledged ({} over memcached), {} in flight at kills; recovery replayed {} records, \
             dropped {} torn bytes, slowest {} ms; {} BGSAVE/SAVE requests",
            self.acknowledged,
            self.acknowledged_memcache,
            self.in_flight,
            self.recovery_records,
            self.recovery_bytes_dropped,
            self.slowest_recovery_ms,
            self.checkpoint_requests
        )
    }
}
