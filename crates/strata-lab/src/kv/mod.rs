//! `strata bench kv`: a memtier-style load generator for key-value servers.
//!
//! It opens `--connections` TCP connections to a memcached-text or RESP server; each
//! connection is a tokio task that writes `--pipeline` requests, reads exactly that many
//! replies, times each from the write to its reply, and repeats until the run's request
//! budget or deadline. It owns no server code and never imports one: servers are measured
//! from the wire only.
//!
//! # Layout
//! - [`args`]: the command line ([`KvArgs`]) and its validation.
//! - [`mix`]: the set:get [`Ratio`] and per-connection operation cycle.
//! - [`keys`] and [`zipf`]: key patterns (sequential, uniform, gaussian, zipfian).
//! - [`protocol`]: request encoding and incremental reply framing per protocol.
//! - `conn`: one connection (setup commands, pipelined exchanges).
//! - `runner`: phases of a run and the connection tasks; `control`: what
//!   those tasks share (measuring window, budget, stop flag).
//! - `stats`: histograms and counters, the per-second timeline.
//! - `progress`: the progress bar.
//! - [`workload`]: which data type the sets and gets exercise (`--workload`).
//! - [`queue`]: the queue workload (producers LPUSH, consumers BLPOP) and its delivery check.
//! - [`server_cpu`]: CPU time per request of the server (`--server-pid`) and the client.
//! - [`report`]: [`KvResult`], the human table and the JSON file.

pub mod args;
mod conn;
mod control;
pub mod keys;
pub mod mix;
mod progress;
pub mod protocol;
pub mod queue;
pub mod report;
mod runner;
pub mod server_cpu;
mod stats;
mod target;
pub mod workload;
pub mod zipf;

pub use args::KvArgs;
pub use keys::KeyPattern;
pub use mix::Ratio;
pub use protocol::Protocol;
pub use report::{KvConfig, KvResult, LatencySummary, Machine, TimelineSecond};

use self::target::Target;
use crate::spawn::ServerProcess;
use crate::LabError;

/// Runs one `bench kv` benchmark on the caller's tokio runtime and returns what it measured.
///
/// With `args.spawn`, a server child is started first on free local ports and stopped after
/// the run, whether it succeeded or not. Nothing is printed except the progress bar on a
/// terminal (unless `args.quiet`); printing the report and writing `--json` is up to the
/// caller (see [`crate::run_bench`]). `args.threads` is not used here: the caller's runtime
/// decides the threads.
pub async fn run_kv(args: &KvArgs) -> Result<KvResult, LabError> {
    args.validate()?;
    if !args.spawn {
        let target = Target::remote(&args.host, args.port(), args.server_pid);
        return drive(args, &target).await;
    }
    let server = ServerProcess::start(args.server_binary.as_deref(), &args.server_args).await?;
    let target = Target::spawned(server.port(args.protocol), server.pid());
    let outcome = drive(args, &target).await;
    let stopped = server.stop().await;
    let result = outcome?;
    stopped?;
    Ok(result)
}

/// Runs `args`'s workload against `target`: the queue or a request mix.
async fn drive(args: &KvArgs, target: &Target) -> Result<KvResult, LabError> {
    match args.workload {
        workload::Workload::Queue => queue::run(args, target).await,
        _ => runner::run(args, target).await,
    }
}
