//! `strata lab <experiment>`: each seed document's experiment on this machine,
//! Strata's configurations and the peers side by side in interleaved rounds,
//! written to a run directory as `report.md` (the seed's tables with this
//! machine's medians, ratios to the seed's figures, a computed verdict per
//! table), `results.json` (every raw figure and command) and PNG/SVG plots.
//!
//! # Layout
//! - [`machine`]: CPU, memory, devices, measured fsync latency and random-read IOPS.
//! - [`run`]: the run directory, [`run::Results`] (results.json) and report.md.
//! - [`binary`]: the `strata` executable that measured, and the commit its
//!   `--version` names (what a run's figures are labelled with).
//! - [`table`]: report tables, seed ratios, cells measured or skipped with a reason.
//! - [`plot`]: bar and line charts (plotters; PNG and SVG).
//! - `progress`: the progress display.
//! - [`peers`]: memcached and Redis as peers; [`peers::Server`] wraps either or Strata.
//! - `kv_step`: one `bench kv` step recorded as a measurement.
//! - [`publish`]: `strata lab publish`, docs/benchmarks.md's figures from runs.
//! - One module per experiment: `kv_placement` (seed 001), `durable_cache`
//!   (004), `search_tiers` (000) are folders (the experiment and its sizes in
//!   `mod.rs`, a round in its own file, `report` for tables and plots);
//!   `oltp` (003), `swap` (002) and `ssd_iops` (issue 35) are single files.
//!
//! Experiments that run in process on other Strata crates (TPC-C, analytics) reach
//! them through [`Hooks`], which the `strata` binary fills: this crate still
//! depends on no other Strata crate.

pub mod binary;
pub mod common;
mod durable_cache;
pub mod kv_placement;
mod kv_step;
pub mod machine;
mod oltp;
pub mod peers;
pub mod plot;
mod progress;
pub mod publish;
pub mod run;
mod search_tiers;
mod ssd_iops;
mod swap;
pub mod table;

use std::path::PathBuf;

use clap::Subcommand;

use crate::LabError;
pub use common::{
    AnalyticsHook, CommonArgs, Hooks, SsdReadsHook, SsdReadsResult, SsdReadsRun, TpccHook,
};

/// `strata lab <experiment>`.
#[derive(Debug, Clone, Subcommand)]
#[non_exhaustive]
pub enum LabCommand {
    /// Seed 001 (Aerospike): index dram/pmem x records dram/pmem/ssd under 50/50,
    /// 100% read and 100% write (load, warm-up, measured run), and restart time.
    KvPlacement(CommonArgs),
    /// Seed 004 (ARCUS): persistence off/async/sync, memtier-style phases (insert,
    /// uniform reads, 1:9, 3:7, 5:5), a checkpoint under load against control runs
    /// without one, and sync logging against Redis `always` pinned to cores; Redis
    /// AOF and memcached beside it.
    DurableCache(durable_cache::DurableCacheArgs),
    /// Seed 003 (DBx1000): TPC-C, NO_WAIT and Silo x log device none/SSD/RAM disk/pmem,
    /// throughput and abort ratios; DBx1000 beside it with --dbx1000-src.
    Oltp(oltp::OltpArgs),
    /// Seed 000 (Elasticsearch on PMEM): eventdata indexing, dashboard search and
    /// mixed latency per search tier dram / ssd with a small cache / pmem.
    SearchTiers(search_tiers::SearchTiersArgs),
    /// Seed 002 (Spark with SSD swap): word count and logistic regression against the
    /// DRAM budget, Strata's memory manager against the kernel (cgroup + swap with
    /// --cgroup). Needs the analytics engine.
    Swap(swap::SwapArgs),
    /// Issue 35's SSD target: random 4 KiB reads of the SSD store (many
    /// concurrent `read_async`s, io_uring and thread engines) beside `fio`
    /// (io_uring, O_DIRECT) on the same file at the same queue depth, in
    /// interleaved rounds: IOPS, the ratio to fio, CPU time per read.
    SsdIops(ssd_iops::SsdIopsArgs),
    /// Rewrites the rows of docs/benchmarks.md's "At a glance" table whose
    /// targets the lab measures, from the results.json of lab runs (--quick
    /// runs refused unless --allow-quick).
    Publish(publish::PublishArgs),
}

/// Runs one experiment and returns its run directory (for `publish`: the page).
pub fn run_lab(cmd: LabCommand, hooks: &Hooks) -> Result<PathBuf, LabError> {
    match cmd {
        LabCommand::KvPlacement(common) => kv_placement::run(&common),
        LabCommand::DurableCache(args) => durable_cache::run(&args),
        LabCommand::Oltp(args) => oltp::run(&args, hooks),
        LabCommand::SearchTiers(args) => search_tiers::run(&args),
        LabCommand::Swap(args) => swap::run(&args, hooks),
        LabCommand::SsdIops(args) => ssd_iops::run(&args, hooks),
        LabCommand::Publish(args) => publish::run(&args),
    }
}
