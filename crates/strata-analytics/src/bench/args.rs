//! The command line of `strata bench analytics`.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use serde::Serialize;

use super::generate;
use crate::cache::CacheCompression;
use strata_units::ByteSize;

/// A job of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum BenchJob {
    /// Word count over Zipfian text.
    Wordcount,
    /// Logistic regression over labelled points.
    Logreg,
}

impl BenchJob {
    /// The `strata job` subcommand.
    pub fn name(self) -> &'static str {
        match self {
            BenchJob::Wordcount => "wordcount",
            BenchJob::Logreg => "logreg",
        }
    }
}

/// How a run's memory is confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Confinement {
    /// Strata's own memory manager holds the job to the budget (DRAM pool,
    /// cached table share, spilling to the SSD tier).
    Strata,
    /// No engine budget; the kernel holds the process to the budget with a
    /// memory cgroup (`--cgroup`) and swaps the rest (the seed's setup).
    Kernel,
    /// The peer: Apache Spark in local mode (`--spark-script`), the driver's
    /// memory at the budget, in the cgroup when `--cgroup` is given.
    Spark,
}

/// How the Spark script writes the jobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SparkForm {
    /// DataFrames and `pyspark.ml` (several times faster than RDDs).
    #[default]
    Dataframe,
    /// RDDs, as Spark's classic examples.
    Rdd,
}

impl SparkForm {
    /// The script's `--form` value.
    pub fn name(self) -> &'static str {
        match self {
            SparkForm::Dataframe => "dataframe",
            SparkForm::Rdd => "rdd",
        }
    }
}

/// `strata bench analytics`: the seed's experiment. Run time of word
/// count and logistic regression at DRAM budgets that are fractions of
/// the data, with the budget enforced by Strata and (with `--cgroup`) by
/// the kernel with swap.
#[derive(Debug, Clone, Args)]
pub struct AnalyticsBenchArgs {
    /// Where the generated inputs are kept (made once per size and seed).
    #[arg(long, value_name = "PATH", default_value = "/var/tmp/strata-analytics")]
    pub data_dir: PathBuf,
    /// Size of each job's input.
    #[arg(long, default_value = "1gb")]
    pub size: ByteSize,
    /// Seed of the data generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Distinct words word count's text is drawn from (Zipfian). The
    /// default keeps word count's groups near 90 MiB at any size; a larger
    /// one makes them grow past small budgets, as a text's vocabulary
    /// grows with its length.
    #[arg(long, default_value_t = generate::VOCABULARY)]
    pub vocabulary: usize,
    /// Only generate the inputs, print their paths and stop.
    #[arg(long)]
    pub generate_only: bool,
    /// Jobs to run.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["wordcount", "logreg"])]
    pub jobs: Vec<BenchJob>,
    /// DRAM budgets, in percent of the input's size.
    #[arg(long, value_delimiter = ',', default_values = ["100", "50", "25", "12.5"])]
    pub budgets: Vec<f64>,
    /// How the budget is enforced; `kernel` needs `--cgroup`.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["strata"])]
    pub modes: Vec<Confinement>,
    /// A memory cgroup directory this process may write (v2: `memory.max`;
    /// v1: `memory.limit_in_bytes`) for the kernel-confined runs; the
    /// caller creates it and a swap file, and removes both
    /// (`scripts/bench-analytics`).
    #[arg(long, value_name = "DIR")]
    pub cgroup: Option<PathBuf>,
    /// Spill directory of the Strata runs [default: a directory under --data-dir].
    #[arg(long, value_name = "PATH")]
    pub spill_dir: Option<PathBuf>,
    /// Iterations of logistic regression.
    #[arg(long, default_value_t = 10)]
    pub iterations: usize,
    /// Partitions (threads) of each job [default: the number of cores].
    #[arg(long)]
    pub partitions: Option<usize>,
    /// Compression of the cached table's segments on the SSD (logreg).
    #[arg(long, value_enum, default_value_t)]
    pub cache_compression: CacheCompression,
    /// Drop the page cache before each run (`/proc/sys/vm/drop_caches`,
    /// root only), so that every run reads its input from the disk.
    #[arg(long)]
    pub drop_caches: bool,
    /// Record a run that fails (a budget below the smallest the job can run
    /// in, a kernel-confined run the OOM killer ends) with its error and go
    /// on, instead of stopping at it.
    #[arg(long)]
    pub keep_going: bool,
    /// Seconds after which a run is stopped and recorded as still running
    /// (a kernel-confined run that swaps can take hours).
    #[arg(long, value_name = "SECONDS", default_value_t = 3600.0)]
    pub run_timeout: f64,
    /// Write the results as JSON to this file.
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The Spark job script of `--modes spark`.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "scripts/bench-analytics-spark.py"
    )]
    pub spark_script: PathBuf,
    /// How the Spark script writes the jobs.
    #[arg(long, value_enum, default_value_t)]
    pub spark_form: SparkForm,
    /// The Python that runs the Spark script (it needs pyspark 4 and numpy).
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: PathBuf,
}

impl AnalyticsBenchArgs {
    /// `--run-timeout` as a duration (at least a second; a value that is
    /// not a finite positive number means no practical limit).
    pub fn run_timeout(&self) -> Duration {
        Duration::try_from_secs_f64(self.run_timeout.max(1.0)).unwrap_or(Duration::MAX / 2)
    }
}
