//! # strata-analytics: dataset jobs under a DRAM budget
//!
//! Analytics jobs (word count, logistic regression, SQL) over a user's
//! files on Apache DataFusion, with the two things DataFusion lacks for
//! data larger than the memory a job is given: a memory pool bound to an
//! explicit DRAM budget that every operator shares, whose spilling
//! operators spill to Strata's SSD tier in large aligned `O_DIRECT`
//! writes; and a cached dataset (Spark's `cache()`) kept in DRAM up to
//! its share of the budget and on the SSD beyond it, read back
//! sequentially and asynchronously on every pass.
//!
//! ## Layout
//! - [`budget`]: the budget's division ([`BudgetPlan`]), the pool
//!   ([`BudgetPool`]), resident-memory readings ([`budget::rss`]).
//! - [`tier`]: the job's [`SpillArea`] (a `strata-ssd` write-block store
//!   on an `O_DIRECT` file under the spill directory) and DataFusion's
//!   spill files on it.
//! - [`cache`]: [`CachedDataset`]: segments in DRAM and on the SSD, the
//!   residency policy, compression, scans, the table view for SQL.
//! - [`engine`]: [`JobEngine`], the DataFusion session of a job.
//! - [`jobs`]: `strata job wordcount|logreg|sql` (arguments, inputs,
//!   the jobs, progress bars, the JSON report) and [`run_job`].
//! - [`bench`]: `strata bench analytics`, the seed's experiment, and its
//!   deterministic data generator.
//! - [`error`]: [`AnalyticsError`], and the table from DataFusion's errors.
//!
//! This crate sits beside the servers: it depends on `strata-device`,
//! `strata-ssd` and `strata-units` (sizes) only, and nothing but the
//! binary depends on it.

#![forbid(unsafe_code)]

pub mod bench;
pub mod budget;
pub mod cache;
pub mod engine;
pub mod error;
pub mod jobs;
pub mod tier;

pub use bench::{run_bench, AnalyticsBenchArgs};
pub use budget::{BudgetPlan, BudgetPool};
pub use cache::CachedDataset;
pub use engine::{EngineOptions, JobEngine};
pub use error::AnalyticsError;
pub use jobs::{run_job, JobCommand};
pub use tier::SpillArea;
