//! What every experiment shares: the common options ([`CommonArgs`]), the
//! hooks the `strata` binary fills ([`Hooks`]), a client runtime and a
//! seconds helper. A leaf: the experiments import it, it imports none.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

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

    /// The `strata` executable to serve with [default: this executable]; its
    /// `--version` commit labels the run. Refused by `oltp` and `swap`, which
    /// measure this executable.
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

    /// Refuses `--server-binary` for an experiment that runs in this
    /// executable (it would be ignored, and the run labelled with a binary
    /// that did not measure).
    pub fn in_this_executable(&self, experiment: &str) -> Result<(), LabError> {
        match &self.server_binary {
            Some(path) => Err(LabError::Config(format!(
                "strata lab {experiment} runs in this executable, not a server: \
                 --server-binary {} would not be measured (run the lab from that binary)",
                path.display()
            ))),
            None => Ok(()),
        }
    }
}

/// What a TPC-C run in process returns: `strata bench tpcc`'s JSON result.
pub type TpccHook = fn(&[String]) -> Result<serde_json::Value, String>;

/// Runs `strata bench analytics <args>` and returns its JSON results (a list
/// of runs).
pub type AnalyticsHook = fn(&[String]) -> Result<serde_json::Value, String>;

/// One measurement of the SSD store's random reads in process (`strata lab
/// ssd-iops`): what to read and how.
#[derive(Debug, Clone)]
pub struct SsdReadsRun {
    /// The store's directory: its data file is made and filled (records whose
    /// entries fit in one 4 KiB window, until the store is full) when
    /// missing, else opened as found (every record kept).
    pub dir: PathBuf,
    /// Size of the data file when it is made.
    pub file_size: u64,
    /// `uring` or `threads` (`SsdConfig::io_engine`).
    pub engine: String,
    /// Reader threads (`SsdConfig::io_threads`).
    pub io_threads: usize,
    /// Reads in flight: this many concurrent `fetch_async` loops, and the
    /// pool's queue depth.
    pub depth: usize,
    /// Reads before the measured window (not counted).
    pub warmup: Duration,
    /// The measured window.
    pub duration: Duration,
}

/// What one [`SsdReadsRun`] measured.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SsdReadsResult {
    /// Reads completed in the measured window.
    pub reads: u64,
    /// Reads that failed in it (any makes the run invalid).
    pub errors: u64,
    /// Its length in seconds.
    pub seconds: f64,
    /// CPU time of the whole process (user + system) in it, in seconds.
    pub cpu_seconds: f64,
    /// The engine that read (`threads` where io_uring was refused).
    pub engine: String,
    /// Bytes of the data file holding the records read from, from its
    /// start: where the same file's `fio` run reads too.
    pub data_bytes: u64,
    /// Bytes of each device read.
    pub read_size: u64,
    /// The data file.
    pub data_file: PathBuf,
}

/// Runs one [`SsdReadsRun`].
pub type SsdReadsHook = fn(&SsdReadsRun) -> Result<SsdReadsResult, String>;

/// Experiments that need other Strata crates in process; the `strata` binary fills
/// what it was built with.
#[derive(Debug, Clone, Copy, Default)]
pub struct Hooks {
    /// Runs `strata bench tpcc <args>` in process and returns its JSON result.
    pub tpcc: Option<TpccHook>,
    /// Runs `strata bench analytics <args>` (seed 002's experiment) when the
    /// analytics engine is built in.
    pub analytics: Option<AnalyticsHook>,
    /// Random reads of the SSD store in process (`strata lab ssd-iops`).
    pub ssd_reads: Option<SsdReadsHook>,
}

/// A tokio runtime for an experiment's clients.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, LabError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("strata-lab")
        .enable_all()
        .build()
        .map_err(LabError::Runtime)
}

/// Seconds as a [`Duration`].
pub(crate) fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s)
}
