//! The result of a run: a human table and JSON.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use crate::consistency::Consistency;

/// Per transaction type.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TypeCounts {
    /// Committed.
    pub commits: u64,
    /// Rolled back by the transaction itself (NewOrder's 1%).
    pub rollbacks: u64,
    /// Attempts aborted by conflicts before the final one.
    pub aborts: u64,
}

/// Latency percentiles in microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Transactions measured.
    pub count: u64,
    /// Mean.
    pub mean: f64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// Largest.
    pub max: u64,
}

/// A recovery after the run (`--recover`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RecoveryResult {
    /// Wall time to reopen, milliseconds.
    pub millis: u64,
    /// Rows loaded from the checkpoint.
    pub checkpoint_rows: u64,
    /// Time to load them, milliseconds.
    pub load_millis: u64,
    /// Transactions replayed from the log.
    pub txns_replayed: u64,
    /// Logged writes replayed (applied and skipped).
    pub writes: u64,
    /// Time to read and replay the log, milliseconds.
    pub replay_millis: u64,
    /// Logged writes replayed per second of replay.
    pub writes_per_s: f64,
    /// Time to drop absent rows and rebuild the ordered indexes, ms.
    pub index_millis: u64,
    /// Consistency after recovery.
    pub consistency: Consistency,
}

/// Everything a run measured.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TpccResult {
    /// `no_wait` or `silo`.
    pub cc: String,
    /// The log device and where.
    pub log: String,
    /// Warehouses.
    pub warehouses: u32,
    /// Worker threads.
    pub threads: usize,
    /// `full` or `dbx1000`.
    pub mix: String,
    /// Seconds measured.
    pub seconds: f64,
    /// Seconds of warm-up.
    pub warmup_seconds: f64,
    /// Seconds to load (or recover) the database.
    pub load_seconds: f64,
    /// Committed transactions.
    pub commits: u64,
    /// Committed transactions per second.
    pub txn_per_s: f64,
    /// CPU seconds the process used while measuring (all threads).
    pub cpu_seconds: f64,
    /// CPU microseconds per committed transaction (all threads, the log's
    /// included): what throughput would be per core, on a machine shared
    /// with other work where the CPU granted varies.
    pub cpu_us_per_txn: f64,
    /// Committed NewOrders per minute (tpmC-style; not an audited tpmC).
    pub new_order_per_min: f64,
    /// Aborted attempts (conflicts and rollbacks).
    pub aborts: u64,
    /// Aborted attempts per commit: the seed's abort ratio.
    pub abort_ratio: f64,
    /// Aborted attempts by cause.
    pub aborts_by_cause: BTreeMap<String, u64>,
    /// Per transaction type.
    pub per_type: BTreeMap<String, TypeCounts>,
    /// From a transaction's first attempt to its durable acknowledgment
    /// (to its commit without a log).
    pub latency_us: Latency,
    /// Epochs made durable while measuring, and the mean time to close one.
    pub epochs_closed: u64,
    /// Mean time to make an epoch durable (markers and syncs), µs.
    pub epoch_close_us: f64,
    /// Log bytes written while measuring.
    pub log_bytes: u64,
    /// Log syncs while measuring.
    pub log_syncs: u64,
    /// Consistency after the run.
    pub consistency: Consistency,
    /// Recovery after the run, with `--recover`.
    pub recovery: Option<RecoveryResult>,
    /// Cores and load average when the run ended.
    pub machine: String,
}

impl TpccResult {
    /// The human table.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "TPC-C ({} mix) on strata-txn: cc {}, log {}, {} warehouses, {} threads",
            self.mix, self.cc, self.log, self.warehouses, self.threads
        );
        let _ = writeln!(out, "machine          {}", self.machine);
        let _ = writeln!(out, "load             {:.1} s", self.load_seconds);
        let _ = writeln!(
            out,
            "measured         {:.1} s after {:.1} s warm-up",
            self.seconds, self.warmup_seconds
        );
        let _ = writeln!(
            out,
            "committed        {} ({:.0} txn/s)",
            self.commits, self.txn_per_s
        );
        let _ = writeln!(
            out,
            "cpu              {:.1} s used, {:.2} µs per committed transaction",
            self.cpu_seconds, self.cpu_us_per_txn
        );
        if self.mix == "full" {
            let _ = writeln!(
                out,
                "new orders       {:.0} per minute",
                self.new_order_per_min
            );
        }
        let _ = writeln!(
            out,
            "aborts           {} (abort ratio {:.5})",
            self.aborts, self.abort_ratio
        );
        for (cause, n) in &self.aborts_by_cause {
            let _ = writeln!(out, "  {cause:<15}{n}");
        }
        let _ = writeln!(
            out,
            "{:<16} {:>10} {:>10} {:>10}",
            "type", "commits", "rollbacks", "aborts"
        );
        for (name, c) in &self.per_type {
            let _ = writeln!(
                out,
                "{name:<16} {:>10} {:>10} {:>10}",
                c.commits, c.rollbacks, c.aborts
            );
        }
        let l = &self.latency_us;
        let _ = writeln!(
            out,
            "latency µs       p50 {} p90 {} p99 {} p99.9 {} max {} (to the durable acknowledgment)",
            l.p50, l.p90, l.p99, l.p999, l.max
        );
        if self.log != "none" {
            let _ = writeln!(
                out,
                "log              {:.1} MB, {} syncs, {} epochs closed ({:.0} µs each)",
                self.log_bytes as f64 / 1e6,
                self.log_syncs,
                self.epochs_closed,
                self.epoch_close_us
            );
        }
        let _ = writeln!(
            out,
            "consistency      conditions {:?} hold",
            self.consistency.conditions
        );
        if let Some(r) = &self.recovery {
            let _ = writeln!(
                out,
                "recovery         {} ms: {} checkpoint rows in {} ms, {} writes of {} transactions replayed in {} ms ({:.0} writes/s), ordered indexes rebuilt in {} ms; conditions {:?} hold",
                r.millis,
                r.checkpoint_rows,
                r.load_millis,
                r.writes,
                r.txns_replayed,
                r.replay_millis,
                r.writes_per_s,
                r.index_millis,
                r.consistency.conditions
            );
        }
        out
    }

    /// Writes the JSON file.
    pub fn write_json(&self, path: &std::path::Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("writing {}: {e}", path.display()))
    }
}
