//! Strata's lab: load generators that drive a key-value or search server over its own wire
//! protocols and report throughput and latency.
//!
//! The lab talks to servers only through sockets (memcached text protocol, Redis RESP and
//! Elasticsearch's HTTP API), so it can benchmark Strata and peer servers side by side. It must never depend on another
//! Strata crate: it measures the server from the outside, like any client would.
//!
//! # Layout
//! - [`kv`]: `strata bench kv`, a memtier-style load generator (arguments, key patterns,
//!   protocol codecs, connection runner, statistics and reports).
//! - [`eventdata`]: `strata bench eventdata`, Rally's eventdata track (nginx access logs,
//!   bulk indexing, Kibana dashboards, indexing while querying) against any
//!   Elasticsearch-compatible server over HTTP.
//! - [`restart`]: `strata bench restart`, restart time after a crash per placement of the
//!   index and the records (persistent memory adopted, rebuilt by scan, or from the log).
//! - [`spawn`]: starting a Strata server as a child process for a run and stopping it after.
//! - [`error`]: [`LabError`], the one error type of this crate.
//!
//! # Entry points
//! The `strata` binary embeds [`BenchCommand`] as its `bench` subcommand and calls
//! [`run_bench`]. Other benchmarks and scripts call [`kv::run_kv`] from their own runtime and
//! consume the [`kv::KvResult`] it returns.

#![forbid(unsafe_code)]

pub mod advise;
pub mod error;
pub mod eventdata;
pub mod kv;
pub mod lab;
pub mod restart;
pub mod spawn;

pub use error::LabError;

use clap::Subcommand;

/// The `strata bench ...` subcommands.
#[derive(Debug, Clone, Subcommand)]
#[non_exhaustive]
pub enum BenchCommand {
    /// Drive a key-value server with a set/get mix over memcached text or RESP and report
    /// throughput, hits and misses, errors and latency percentiles.
    Kv(kv::KvArgs),
    /// Load keys, kill the server with SIGKILL, and time its restart, per placement of the
    /// index and the records (persistent memory, rebuild by scan, snapshot and log).
    Restart(restart::RestartArgs),
    /// Rally's eventdata track against an Elasticsearch-compatible server: bulk indexing of
    /// nginx access logs, the Kibana dashboards over current and relative windows, and
    /// indexing at a target rate while querying.
    Eventdata(eventdata::EventdataArgs),
}

/// The client runtime of one bench command.
fn bench_runtime(threads: usize) -> Result<tokio::runtime::Runtime, LabError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .thread_name("strata-bench")
        .enable_all()
        .build()
        .map_err(LabError::Runtime)
}

/// Runs one bench command to completion on a runtime of its own.
///
/// The caller must not be inside a tokio runtime (building a runtime there panics); async
/// callers use [`kv::run_kv`] instead. Prints the human report on stdout and, when asked,
/// writes the JSON result file.
pub fn run_bench(cmd: BenchCommand) -> Result<(), LabError> {
    match cmd {
        BenchCommand::Kv(args) => {
            args.validate()?;
            let runtime = bench_runtime(args.threads)?;
            let result = runtime.block_on(kv::run_kv(&args))?;
            print!("{}", kv::report::render_table(&result));
            if let Some(path) = &args.json {
                kv::report::write_json(&result, path)?;
            }
            result.check()
        }
        BenchCommand::Restart(args) => {
            args.validate()?;
            let runtime = bench_runtime(1)?;
            let result = runtime.block_on(restart::run_restart(&args))?;
            print!("{}", result.render());
            if let Some(path) = &args.json {
                result.write_json(path)?;
            }
            result.check()
        }
        BenchCommand::Eventdata(args) => {
            args.validate()?;
            let runtime = bench_runtime(args.threads)?;
            let result = runtime.block_on(eventdata::run_eventdata(&args))?;
            print!("{}", eventdata::report::render(&result));
            if let Some(path) = &args.json {
                result.write_json(path)?;
            }
            result.check()
        }
    }
}
