//! [`JobEngine`]: a DataFusion session whose memory is the job's DRAM
//! budget and whose spill files go to the job's SSD tier.
//!
//! Built inside the job's tokio runtime: the resident memory measured
//! then (code, runtime threads) is the budget plan's baseline.

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::common::config::{ConfigNonZeroUsize, SpillCompression};
use datafusion::execution::disk_manager::DiskManagerBuilder;
use datafusion::execution::memory_pool::MemoryPool;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::budget::{rss, BudgetPlan, BudgetPool};
use crate::error::AnalyticsError;
use crate::tier::{SpillArea, SpillFiles, SpillIo};

/// Spill files merged at once at most by a sort's external merge; each
/// open file holds its read-ahead in DRAM.
pub const MAX_MERGE_FAN_IN: usize = 8;

/// How a job's engine is set up.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    /// The DRAM budget in bytes; `None`: unbounded.
    pub budget: Option<u64>,
    /// Directory of the spill area.
    pub spill_dir: PathBuf,
    /// Capacity of the spill area in bytes.
    pub spill_limit: u64,
    /// Direct or buffered I/O on the spill area.
    pub spill_io: SpillIo,
    /// Compression of operators' spill files.
    pub spill_compression: SpillCompression,
    /// Partitions (threads of work) per query.
    pub partitions: usize,
}

/// A job's DataFusion session, pool and SSD tier.
pub struct JobEngine {
    /// The session queries run in.
    pub ctx: SessionContext,
    /// The budget's division.
    pub plan: BudgetPlan,
    /// The pool every consumer reserves from.
    pub pool: Arc<BudgetPool>,
    /// The SSD tier.
    pub area: Arc<SpillArea>,
    /// Partitions per query.
    pub partitions: usize,
}

impl JobEngine {
    /// Measures the baseline, divides the budget, creates the spill area
    /// and the session.
    pub fn new(options: &EngineOptions) -> Result<JobEngine, AnalyticsError> {
        let plan = BudgetPlan::new(options.budget, rss::current_data_rss())?;
        JobEngine::with_plan(options, plan)
    }

    /// The engine of a budget already divided (`options.budget` is then
    /// unused): tests give a pool far smaller than a process needs, to
    /// make small inputs spill.
    pub fn with_plan(
        options: &EngineOptions,
        plan: BudgetPlan,
    ) -> Result<JobEngine, AnalyticsError> {
        let pool = Arc::new(BudgetPool::new(plan.pool.map(|p| p as usize)));
        let dyn_pool: Arc<dyn MemoryPool> = pool.clone();
        let area = SpillArea::create(
            &options.spill_dir,
            options.spill_limit,
            options.spill_io,
            dyn_pool.clone(),
        )
        .map_err(AnalyticsError::SpillSpace)?;
        let disk = DiskManagerBuilder::default()
            .with_temp_file_factory(Arc::new(SpillFiles::new(area.clone())))
            .with_max_temp_directory_size(area.capacity())
            .with_max_spill_merge_fan_in(MAX_MERGE_FAN_IN);
        let runtime = RuntimeEnvBuilder::new()
            .with_memory_pool(dyn_pool)
            .with_disk_manager_builder(disk)
            .build_arc()
            .map_err(|e| AnalyticsError::Engine(e.to_string()))?;
        let partitions = options.partitions.max(1);
        let mut config = SessionConfig::new()
            .with_target_partitions(partitions)
            .with_information_schema(true);
        let execution = &mut config.options_mut().execution;
        execution.spill_compression = options.spill_compression;
        // One spilled batch per `RepartitionExec` spill file. DataFusion
        // 55.2's spill pool lets two input tasks write two open files at
        // once while its reader waits on the older one only, and a grouped
        // aggregation over two partitions then hangs for good
        // (apache/datafusion#24883, fixed after 55.2). A file finished by
        // the push that wrote it can never be the one a reader waits on.
        execution.max_spill_file_size_bytes =
            ConfigNonZeroUsize::try_new(1).map_err(|e| AnalyticsError::Engine(e.to_string()))?;
        if let Some(pool) = plan.pool {
            // A sort keeps this much for merging its spills; DataFusion's
            // 10 MiB default would take most of a small pool.
            execution.sort_spill_reservation_bytes =
                (pool as usize / (8 * partitions)).min(10 << 20);
        }
        let ctx = SessionContext::new_with_config_rt(config, runtime);
        Ok(JobEngine {
            ctx,
            plan,
            pool,
            area,
            partitions,
        })
    }
}
