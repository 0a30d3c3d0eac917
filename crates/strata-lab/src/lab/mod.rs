//! `strata lab <experiment>`: each seed document's experiment on this machine,
//! Strata's configurations and the peers side by side in interleaved rounds,
//! written to a run directory as `report.md` (the seed's tables with this
//! machine's medians, ratios to the seed's figures, a computed verdict per
//! table), `results.json` (every raw figure and command) and PNG/SVG plots.
//!
//! # Layout
//! - [`machine`]: CPU, memory, devices, measured fsync latency and random-read IOPS.
//! - [`run`]: the run directory, [`run::Results`] (results.json) and report.md.
//! - [`table`]: report tables, seed ratios, cells measured or skipped with a reason.
//! - [`plot`]: bar and line charts (plotters; PNG and SVG).
//! - `progress`: the progress display.
//! - [`peers`]: memcached and Redis as peers; [`peers::Server`] wraps either or Strata.
//! - `kv_step`: one `bench kv` step recorded as a measurement.
//! - One file per experiment: `kv_placement` (seed 001), `durable_cache` (004),
//!   `oltp` (003), `search_tiers` (000), `swap` (002, not in this build).
//!
//! Experiments that run in process on other Strata crates (TPC-C, analytics) reach
//! them through [`Hooks`], which the `strata` binary fills: this crate still
//! depends on no other Strata crate.

mod durable_cache;
mod kv_placement;
mod kv_step;
pub mod machine;
mod oltp;
pub mod peers;
pub mod plot;
mod progress;
pub mod run;
mod search_tiers;
mod swap;
pub mod table;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use crate::LabError;

/// Options every experiment takes.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    /// Run directory [default: ./lab-results/<experiment>-<UTC time>].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Tiny sizes: the whole experiment in well under a minute (figures not comparable).
    #[arg(long)]
    pub quick: bool,

    /// Interleaved rounds (each configuration once per round); tables show medians
    /// [default: 3, 1 with --quick].
    #[arg(long)]
    pub rounds: Option<usize>,

    /// Directory for servers' data, SSD-tier files and the storage probe (a real
    /// disk: fsync and O_DIRECT figures on tmpfs mean nothing).
    #[arg(long, value_name = "DIR", default_value = "/var/tmp")]
    pub data_dir: PathBuf,

    /// Directory of persistent-memory files (tmpfs emulates persistent memory; a
    /// DAX mount is the real thing).
    #[arg(long, value_name = "DIR", default_value = "/dev/shm")]
    pub pmem_dir: PathBuf,

    /// The `strata` executable to serve with [default: this executable].
    #[arg(long, value_name = "PATH")]
    pub server_binary: Option<PathBuf>,

    /// No progress bar (one line per step on stderr instead).
    #[arg(long)]
    pub no_progress: bool,
}

impl CommonArgs {
    /// Rounds to run.
    pub fn rounds(&self) -> usize {
        self.rounds.unwrap_or(if self.quick { 1 } else { 3 }).max(1)
    }
}

/// `strata lab <experiment>`.
#[derive(Debug, Clone, Subcommand)]
#[non_exhaustive]
pub enum LabCommand {
    /// Seed 001 (Aerospike): index dram/pmem x records dram/pmem/ssd under 50/50,
    /// 100% read and 100% write (load, warm-up, measured run), and restart time.
    KvPlacement(CommonArgs),
    /// Seed 004 (ARCUS): persistence off/async/sync, memtier-style phases (insert,
    /// uniform reads, 1:9, 3:7, 5:5), and a checkpoint under load; Redis AOF and
    /// memcached beside it.
    DurableCache(CommonArgs),
    /// Seed 003 (DBx1000): TPC-C, NO_WAIT and Silo x log device none/SSD/RAM disk/pmem,
    /// throughput and abort ratios; DBx1000 beside it with --dbx1000-src.
    Oltp(oltp::OltpArgs),
    /// Seed 000 (Elasticsearch on PMEM): eventdata indexing, dashboard search and
    /// mixed latency per search tier dram / ssd with a small cache / pmem.
    SearchTiers(search_tiers::SearchTiersArgs),
    /// Seed 002 (Spark with SSD swap): word count and logistic regression against the
    /// DRAM budget. Needs the analytics engine.
    Swap(CommonArgs),
}

/// What a TPC-C run in process returns: `strata bench tpcc`'s JSON result.
pub type TpccHook = fn(&[String]) -> Result<serde_json::Value, String>;

/// Runs the swap experiment and returns its run directory.
pub type SwapHook = fn(&CommonArgs) -> Result<PathBuf, LabError>;

/// Experiments that need other Strata crates in process; the `strata` binary fills
/// what it was built with.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hooks {
    /// Runs `strata bench tpcc <args>` in process and returns its JSON result.
    pub tpcc: Option<TpccHook>,
    /// Runs the swap experiment (seed 002) when the analytics engine is built in.
    pub swap: Option<SwapHook>,
}

/// Runs one experiment; returns its run directory.
pub fn run_lab(cmd: LabCommand, hooks: &Hooks) -> Result<PathBuf, LabError> {
    match cmd {
        LabCommand::KvPlacement(common) => kv_placement::run(&common),
        LabCommand::DurableCache(common) => durable_cache::run(&common),
        LabCommand::Oltp(args) => oltp::run(&args, hooks),
        LabCommand::SearchTiers(args) => search_tiers::run(&args),
        LabCommand::Swap(common) => swap::run(&common, hooks),
    }
}

/// A tokio runtime for an experiment's clients.
fn runtime() -> Result<tokio::runtime::Runtime, LabError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("strata-lab")
        .enable_all()
        .build()
        .map_err(LabError::Runtime)
}

/// Seconds as a [`Duration`].
fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}
