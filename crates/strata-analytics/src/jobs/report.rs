//! [`JobReport`]: the JSON report of a job (`--report PATH`).

use std::path::Path;

use serde::Serialize;

use super::input::Input;
use super::run::StageReport;
use crate::budget::BudgetPlan;
use crate::cache::CacheSummary;
use crate::engine::JobEngine;
use crate::error::AnalyticsError;
use crate::tier::TierCounters;

/// Everything a job measured, and its result.
#[derive(Debug, Serialize)]
pub struct JobReport {
    /// `wordcount`, `logreg` or `sql`.
    pub job: &'static str,
    /// The input.
    pub input: Input,
    /// The budget and how it was divided.
    pub budget: BudgetReport,
    /// Partitions per query.
    pub partitions: usize,
    /// The SSD tier's work.
    pub spill: SpillReport,
    /// The cached table, if the job cached one.
    pub cache: Option<CacheSummary>,
    /// Time, bytes and peak memory per stage.
    pub stages: Vec<StageReport>,
    /// Wall-clock seconds of the whole job (engine start to result).
    pub seconds: f64,
    /// The job's result.
    pub result: serde_json::Value,
}

/// The budget, the pool and the resident memory against them.
#[derive(Debug, Serialize)]
pub struct BudgetReport {
    /// The plan (budget, baseline, slack, pool).
    #[serde(flatten)]
    pub plan: BudgetPlan,
    /// How far above the budget peak RSS may go.
    pub margin: Option<u64>,
    /// The most the pool had reserved at once.
    pub pool_peak: u64,
    /// Reservations the pool refused (each made an operator spill, the
    /// cached table stop growing in DRAM, or a read-ahead wait).
    pub pool_refusals: u64,
    /// Peak resident memory, the kernel's high-water mark (`VmHWM`),
    /// the executable's pages included.
    pub peak_rss: u64,
    /// Peak resident data (`RssAnon + RssShmem`) sampled every 10 ms:
    /// what the budget bounds.
    pub peak_data_rss: u64,
    /// Peak data within budget plus margin (`None` without a budget).
    pub within_budget: Option<bool>,
}

/// The SSD tier's work.
#[derive(Debug, Serialize)]
pub struct SpillReport {
    /// The spill directory.
    pub dir: String,
    /// The spill area's capacity.
    pub capacity: u64,
    /// `O_DIRECT` I/O.
    pub direct: bool,
    /// Spill files operators created.
    pub files: u64,
    /// Bytes operators spilled.
    pub spilled_bytes: u64,
    /// Bytes of spill files read back.
    pub spill_read_bytes: u64,
    /// Bytes of the cached table written to the SSD.
    pub cache_written_bytes: u64,
    /// Bytes of the cached table read back.
    pub cache_read_bytes: u64,
}

impl BudgetReport {
    /// The budget's figures from `engine` and the peaks measured.
    pub fn new(engine: &JobEngine, peak_rss: u64, sampled: u64) -> BudgetReport {
        BudgetReport {
            plan: engine.plan,
            margin: engine.plan.margin(),
            pool_peak: engine.pool.peak() as u64,
            pool_refusals: engine.pool.refusals(),
            peak_rss,
            peak_data_rss: sampled,
            within_budget: engine
                .plan
                .budget
                .zip(engine.plan.margin())
                .map(|(budget, margin)| sampled <= budget + margin),
        }
    }
}

impl SpillReport {
    /// The tier's counters from `engine`.
    pub fn new(engine: &JobEngine) -> SpillReport {
        let area = &engine.area;
        let c = area.counters();
        SpillReport {
            dir: area.dir().display().to_string(),
            capacity: area.capacity(),
            direct: area.is_direct(),
            files: TierCounters::get(&c.spill_files),
            spilled_bytes: TierCounters::get(&c.spilled),
            spill_read_bytes: TierCounters::get(&c.spill_read),
            cache_written_bytes: TierCounters::get(&c.cache_written),
            cache_read_bytes: TierCounters::get(&c.cache_read),
        }
    }
}

impl JobReport {
    /// Writes the report as pretty JSON to `path`.
    pub fn write(&self, path: &Path) -> Result<(), AnalyticsError> {
        let json = serde_json::to_string_pretty(self).expect("reports serialize");
        std::fs::write(path, json + "\n")
            .map_err(|e| AnalyticsError::io(format!("writing the report {}", path.display()), e))
    }
}
