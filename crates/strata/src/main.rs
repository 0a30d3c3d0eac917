//! # strata: the Strata executable
//!
//! - `strata serve [options]`: run the server (memcached text protocol and
//!   Redis RESP over one keyspace); see `strata serve --help`.
//! - `strata checkpoint [--port P] [--background]`: ask a running server for
//!   a checkpoint (SAVE / BGSAVE over RESP).
//! - `strata users useradd|passwd|roles|userdel|list ...`: manage the HTTP
//!   file realm's users (`strata users --help`).
//! - `strata bench <kind> ...`: run a load generator from the lab
//!   (`strata bench kv --help`), TPC-C in process on the transaction
//!   engine (`strata bench tpcc --help`, from `strata-tpcc`), or
//!   `strata bench analytics`, the dataset jobs' experiment
//!   (`strata-analytics`).
//! - `strata job wordcount|logreg|sql ...`: a dataset job under a DRAM
//!   budget, spilling to an SSD directory (`strata job --help`).
//! - `strata lab <experiment> ...`: a seed document's experiment on this
//!   machine, with report, plots and results (`strata lab --help`);
//!   `strata lab publish <run-dir>...` writes their figures into docs/benchmarks.md.
//! - `strata advise ...`: a placement, persistence mode and search tier for
//!   a workload from the lab's results (`strata advise --help`).
//! - `strata --version`: `strata <version> (commit <hash>[-dirty])`, the
//!   commit this binary was built from (embedded by `build.rs`; `unknown`
//!   when built without git), which `strata lab` records per run.
//!
//! Everything happens in `strata-server`, `strata-lab`, `strata-tpcc` and
//! `strata-analytics` (and `ssd_reads.rs`, the SSD store's side of
//! `strata lab ssd-iops`); this file only
//! parses the command line and turns errors into exit codes (2 for bad
//! options or configuration, 1 for other failures).

use std::process::ExitCode;

mod ssd_reads;

/// The process's allocator: jemalloc. Search indexing allocates and frees
/// many small, short-lived objects on several threads at once (JSON trees,
/// tantivy's documents and postings buffers); measured here, jemalloc took
/// about 10% less CPU per indexed document than glibc's malloc and a third
/// less peak memory (`docs/benchmarks.md`).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's options, read when it starts. Freed pages go back to the
/// system within a second, by jemalloc's background thread rather than on
/// the request path, so the key-value store's resident memory stays what
/// its data needs (the default ten-second decay left ~7 MB more resident
/// after loading 2,000,000 keys).
// SAFETY: jemalloc reads this symbol as its `const char *malloc_conf` once,
// at initialisation: a thin reference to the first byte of an immutable,
// 'static, NUL-terminated string has exactly that layout.
#[unsafe(export_name = "_rjem_malloc_conf")]
pub static MALLOC_CONF: &u8 = &b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0"[0];

/// At most two arenas for glibc's malloc, which is what C code inside the
/// process allocates from (jemalloc serves Rust only): chiefly zstd, whose
/// compression context tantivy's document store makes and frees for every
/// stored-field block (1-3 MiB by the index's codec). glibc gives each
/// thread that allocates an arena of its own, up to eight per core, and an
/// arena keeps what is freed in it, so each thread that compressed a block
/// kept a context resident: with `best_compression`'s 3 MiB contexts,
/// 500,000 eventdata documents peaked 30-45 MiB higher, and two arenas
/// took that back (`docs/benchmarks.md`, *Beside OpenSearch*).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn limit_c_allocator_arenas() {
    // SAFETY: mallopt only sets one of the allocator's parameters, and
    // M_ARENA_MAX accepts any positive count; it takes its own lock.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_c_allocator_arenas() {}

/// Reads jemalloc's counters for `INFO memory` (`strata_metrics::allocator`).
fn jemalloc_stats() -> Option<strata_metrics::AllocatorStats> {
    use tikv_jemalloc_ctl::{epoch, stats};
    // The counters are a snapshot jemalloc refreshes when the epoch moves.
    epoch::advance().ok()?;
    let read = |r: tikv_jemalloc_ctl::Result<usize>| r.ok().map(|v| v as u64);
    Some(strata_metrics::AllocatorStats {
        allocated: read(stats::allocated::read())?,
        active: read(stats::active::read())?,
        resident: read(stats::resident::read())?,
        mapped: read(stats::mapped::read())?,
        retained: read(stats::retained::read())?,
    })
}

/// Registers jemalloc as the allocator `INFO memory` reports
/// (`mem_allocator:jemalloc-5.3.0`, as Redis names its own).
fn register_allocator() {
    let version = tikv_jemalloc_ctl::version::read().unwrap_or("unknown");
    let version = version.split('-').next().unwrap_or(version);
    // Once per process: the name lives as long as the process.
    let name: &'static str = Box::leak(format!("jemalloc-{version}").into_boxed_str());
    strata_metrics::register_allocator(strata_metrics::AllocatorProbe {
        name,
        read: jemalloc_stats,
    });
}

/// A dataset job's freed memory goes back to the system at once (no
/// decay): its budget bounds resident data, and the cached table and the
/// operators free megabyte buffers by the hundred a second, which the
/// server's one-second decay kept resident (about 15 MiB more at a
/// 96 MiB budget). Set before the job starts its threads: `arenas.*` for
/// arenas made later, `arena.<i>.*` for those that exist (writes to
/// arenas not yet made fail and are ignored).
fn return_freed_memory_at_once() {
    let arenas = tikv_jemalloc_ctl::arenas::narenas::read().unwrap_or(0);
    let names = ["arenas.dirty_decay_ms\0".to_string()]
        .into_iter()
        .chain((0..arenas).map(|i| format!("arena.{i}.dirty_decay_ms\0")));
    for name in names {
        // SAFETY: jemalloc's `*.dirty_decay_ms` options are `ssize_t`,
        // which is `isize`; the name is NUL-terminated.
        let _ = unsafe { tikv_jemalloc_ctl::raw::write::<isize>(name.as_bytes(), 0) };
    }
}

use clap::{Parser, Subcommand};

/// What `--version` prints after the name: the crate's version and the
/// commit the binary was built from (`build.rs`). `strata lab` parses it
/// (`strata_lab::lab::binary`): keep the `(commit ...)` form.
const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("STRATA_COMMIT"),
    ")"
);

/// Strata: one server for key-value data, speaking memcached and Redis.
#[derive(Debug, Parser)]
#[command(name = "strata", version = VERSION, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start; the size of the variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Run the server until SIGINT or SIGTERM.
    ///
    /// Options override the `--config` file; an option given twice takes the
    /// last value (so wrappers can append overrides).
    #[command(args_override_self = true)]
    Serve(strata_server::ServeArgs),
    /// Ask a running server to write a checkpoint (snapshot) now.
    Checkpoint(strata_server::CheckpointArgs),
    /// Manage the users of the HTTP file realm (`http_security_dir`).
    Users(strata_server::UsersArgs),
    /// Run a benchmark against a server, TPC-C in process, or the
    /// analytics experiment.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Run a dataset job (word count, logistic regression, SQL) under a
    /// DRAM budget, spilling to an SSD directory.
    #[command(subcommand)]
    Job(strata_analytics::JobCommand),
    /// Reproduce a seed experiment on this machine: report, plots, results.json.
    #[command(subcommand)]
    Lab(strata_lab::lab::LabCommand),
    /// Recommend a KV placement, persistence mode and search tier for a
    /// workload from the lab's results on this machine.
    Advise(strata_lab::advise::AdviseArgs),
}

/// `strata bench ...`: the lab's load generators, TPC-C and the analytics
/// experiment.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum BenchCommand {
    #[command(flatten)]
    Lab(strata_lab::BenchCommand),
    /// Word count and logistic regression at DRAM budgets of a fraction of
    /// the data, budget enforced by Strata and by the kernel (cgroup + swap).
    Analytics(strata_analytics::AnalyticsBenchArgs),
    /// TPC-C in process on Strata's transaction engine: NO_WAIT or Silo,
    /// a log device, the full or DBx1000 mix; throughput, abort ratio,
    /// latency to the durable acknowledgment.
    Tpcc(strata_tpcc::TpccArgs),
}

fn run_tpcc(args: &strata_tpcc::TpccArgs) -> Result<(), (u8, String)> {
    args.validate().map_err(|message| (2, message))?;
    let result = strata_tpcc::run_tpcc(args).map_err(|message| (1, message))?;
    print!("{}", result.render());
    if let Some(path) = &args.json {
        result.write_json(path).map_err(|message| (1, message))?;
    }
    Ok(())
}

/// `strata bench tpcc` in process, for `strata lab oltp`: the arguments after
/// `tpcc`, the JSON result back.
fn tpcc_hook(argv: &[String]) -> Result<serde_json::Value, String> {
    use clap::Parser as _;
    let args = strata_tpcc::TpccArgs::try_parse_from(
        std::iter::once("tpcc".to_owned()).chain(argv.iter().cloned()),
    )
    .map_err(|e| e.to_string())?;
    args.validate()?;
    let result = strata_tpcc::run_tpcc(&args)?;
    serde_json::to_value(&result).map_err(|e| e.to_string())
}

/// `strata bench analytics <args>` for `strata lab swap`, in a child process
/// (it prints its own table and progress, and spawns a job per run): the
/// JSON results back.
fn analytics_hook(argv: &[String]) -> Result<serde_json::Value, String> {
    let exe = std::env::current_exe().map_err(|e| format!("finding this executable: {e}"))?;
    let output = tempfile::NamedTempFile::new().map_err(|e| format!("a results file: {e}"))?;
    let child = std::process::Command::new(exe)
        .args(["bench", "analytics"])
        .args(argv)
        .arg("--output")
        .arg(output.path())
        .stdout(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("running strata bench analytics: {e}"))?;
    if !child.status.success() {
        let stderr = String::from_utf8_lossy(&child.stderr);
        let last = stderr.lines().last().unwrap_or("no message");
        return Err(format!("{} ({last})", child.status));
    }
    let text = std::fs::read_to_string(output.path()).map_err(|e| e.to_string())?;
    serde_json::from_str(&text).map_err(|e| format!("its results: {e}"))
}

/// The in-process experiments this build has.
fn lab_hooks() -> strata_lab::lab::Hooks {
    strata_lab::lab::Hooks {
        tpcc: Some(tpcc_hook),
        analytics: Some(analytics_hook),
        ssd_reads: Some(ssd_reads::ssd_reads_hook),
    }
}

fn lab_error(err: strata_lab::LabError) -> (u8, String) {
    (err.exit_code(), err.to_string())
}

fn main() -> ExitCode {
    limit_c_allocator_arenas();
    let (result, help) = match Cli::parse().command {
        Command::Serve(args) => (
            {
                register_allocator();
                strata_server::run_serve(args, env!("STRATA_COMMIT"))
            }
            .map_err(|err| (err.exit_code(), err.to_string())),
            "strata serve --help",
        ),
        Command::Checkpoint(args) => (
            strata_server::run_checkpoint(&args).map_err(|message| (1, message)),
            "strata checkpoint --help",
        ),
        Command::Users(args) => (
            strata_server::run_users(&args).map_err(|message| (1, message)),
            "strata users --help",
        ),
        Command::Bench(BenchCommand::Analytics(args)) => (
            strata_analytics::run_bench(args).map_err(|err| (err.exit_code(), err.to_string())),
            "strata bench analytics --help",
        ),
        Command::Job(cmd) => (
            {
                return_freed_memory_at_once();
                strata_analytics::run_job(cmd).map_err(|err| (err.exit_code(), err.to_string()))
            },
            "strata job --help",
        ),
        Command::Bench(BenchCommand::Tpcc(args)) => (run_tpcc(&args), "strata bench tpcc --help"),
        Command::Bench(BenchCommand::Lab(cmd)) => (
            strata_lab::run_bench(cmd).map_err(|err| match err {
                strata_lab::LabError::Config(_) => (2, err.to_string()),
                _ => (1, err.to_string()),
            }),
            "strata bench --help",
        ),
        Command::Lab(strata_lab::lab::LabCommand::Publish(args)) => (
            strata_lab::lab::publish::run(&args)
                .map(|page| println!("{}", page.display()))
                .map_err(lab_error),
            "strata lab publish --help",
        ),
        Command::Lab(cmd) => (
            strata_lab::lab::run_lab(cmd, &lab_hooks())
                .map(|dir| println!("{}", dir.join("report.md").display()))
                .map_err(lab_error),
            "strata lab --help",
        ),
        Command::Advise(args) => (
            strata_lab::advise::run_advise(&args).map_err(lab_error),
            "strata advise --help",
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, message)) => {
            eprintln!("error: {message}");
            if code == 2 {
                eprintln!("\nFor more information, try '{help}'.");
            }
            ExitCode::from(code)
        }
    }
}
