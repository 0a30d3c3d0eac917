//! The command line of `strata job wordcount|logreg|sql`.

use std::path::PathBuf;
use std::str::FromStr;

use clap::{Args, Subcommand};
use datafusion::common::config::SpillCompression;
use serde::Serialize;

use super::input::InputFormat;
use crate::cache::{CacheCompression, Residency};
use crate::tier::SpillIo;
use strata_units::ByteSize;

/// `strata job ...`: a dataset job under a DRAM budget.
#[derive(Debug, Clone, Subcommand)]
#[non_exhaustive]
pub enum JobCommand {
    /// Count the words of text files (split on what is not a letter or a
    /// digit, lowercased) and print the most frequent.
    Wordcount(WordcountArgs),
    /// Fit a logistic regression by batch gradient descent over a cached
    /// table of labelled points (CSV or Parquet: a label column, every
    /// other column a numeric feature).
    Logreg(LogregArgs),
    /// Run SQL over a file or directory (registered as table `input`).
    Sql(SqlArgs),
}

/// A DRAM budget: a size, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Budget {
    /// The process's resident memory is held to this many bytes.
    Limited(ByteSize),
    /// No engine budget (the kernel may confine the process instead).
    Unlimited,
}

impl Budget {
    /// The bytes, if limited.
    pub fn bytes(self) -> Option<u64> {
        match self {
            Budget::Limited(size) => Some(size.bytes()),
            Budget::Unlimited => None,
        }
    }
}

impl FromStr for Budget {
    type Err = String;

    fn from_str(text: &str) -> Result<Budget, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "unlimited" | "none" => Ok(Budget::Unlimited),
            _ => text.parse().map(Budget::Limited),
        }
    }
}

/// Compression of operators' spill files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SpillCodec {
    /// Arrow IPC as it is.
    #[default]
    None,
    /// LZ4 frames.
    Lz4,
    /// Zstandard.
    Zstd,
}

impl SpillCodec {
    /// DataFusion's setting.
    pub fn datafusion(self) -> SpillCompression {
        match self {
            SpillCodec::None => SpillCompression::Uncompressed,
            SpillCodec::Lz4 => SpillCompression::Lz4Frame,
            SpillCodec::Zstd => SpillCompression::Zstd,
        }
    }
}

/// Options every job takes.
#[derive(Debug, Clone, Args)]
pub struct CommonArgs {
    /// Input: a file or a directory of files.
    #[arg(long, value_name = "PATH")]
    pub input: PathBuf,
    /// Input format; `auto` goes by the extension (`.csv`, `.tsv`,
    /// `.parquet`; anything else is text).
    #[arg(long, value_enum, default_value_t)]
    pub format: InputFormat,
    /// CSV/TSV input has no header line (columns are named column_1, ...).
    #[arg(long)]
    pub no_header: bool,
    /// DRAM budget of the whole job process (its resident memory), e.g.
    /// `512mb`; `unlimited` gives the engine no budget.
    #[arg(long, value_name = "SIZE|unlimited")]
    pub dram_budget: Budget,
    /// Directory of the job's spill area on the SSD (a file created for
    /// the job and removed after it) [default: $TMPDIR, else /var/tmp].
    #[arg(long, value_name = "PATH")]
    pub spill_dir: Option<PathBuf>,
    /// Size of the spill area, reserved on the filesystem when the job
    /// starts [default: twice the input plus 1gb, at most half the free
    /// space of the spill directory].
    #[arg(long, value_name = "SIZE")]
    pub spill_limit: Option<ByteSize>,
    /// `direct` (O_DIRECT: spilled data never sits in the page cache) or
    /// `buffered` (for filesystems that refuse O_DIRECT).
    #[arg(long, value_enum, default_value_t)]
    pub spill_io: SpillIo,
    /// Compression of operators' spill files.
    #[arg(long, value_enum, default_value_t)]
    pub spill_compression: SpillCodec,
    /// Partitions each query runs in [default: the number of cores].
    #[arg(long)]
    pub partitions: Option<usize>,
    /// Write the JSON report (time per stage, bytes spilled and read
    /// back, peak resident memory against the budget) to this file.
    #[arg(long, value_name = "PATH")]
    pub report: Option<PathBuf>,
    /// No progress bars.
    #[arg(long)]
    pub quiet: bool,
}

/// How a job caches a table.
#[derive(Debug, Clone, Args)]
pub struct CacheArgs {
    /// Percent of the operators' DRAM pool (less the SSD tier's buffers
    /// and the scans' read-ahead) the cached table may keep resident; the
    /// rest of it goes to the SSD.
    #[arg(long, default_value_t = 85, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub cache_share: u8,
    /// Compression of cached segments written to the SSD.
    #[arg(long, value_enum, default_value_t)]
    pub cache_compression: CacheCompression,
    /// Replacement policy of the cached table: `stable` keeps a fixed
    /// part in DRAM (right for repeated full scans), `lru` is shown for
    /// comparison.
    #[arg(long, value_enum, default_value_t)]
    pub cache_policy: Residency,
}

/// `strata job wordcount`.
#[derive(Debug, Clone, Args)]
pub struct WordcountArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,
    /// Words printed, most frequent first.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// Also write every word and its count to this CSV file.
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

/// `strata job logreg`.
#[derive(Debug, Clone, Args)]
pub struct LogregArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub cache: CacheArgs,
    /// The label column: a value above 0 is the positive class, anything
    /// else the negative one. Every other column is a feature.
    #[arg(long, default_value = "label")]
    pub label: String,
    /// Passes of gradient descent over the cached table.
    #[arg(long, default_value_t = 10)]
    pub iterations: usize,
    /// Step size: each pass moves the weights by step times the mean
    /// gradient.
    #[arg(long, default_value_t = 1.0)]
    pub step: f64,
}

/// `strata job sql`.
#[derive(Debug, Clone, Args)]
pub struct SqlArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub cache_args: CacheArgs,
    /// Materialize the input once as a cached table (DRAM up to its share,
    /// the rest on the SSD) and run every query over it.
    #[arg(long)]
    pub cache: bool,
    /// Name of the input's table in the queries.
    #[arg(long, default_value = "input")]
    pub table: String,
    /// Rows of each result printed at most.
    #[arg(long, default_value_t = 40)]
    pub max_rows: usize,
    /// Write the last query's whole result to this file (`.csv` or
    /// `.parquet`).
    #[arg(long, value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// The queries, run in order.
    #[arg(required = true, value_name = "QUERY")]
    pub queries: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_parse() {
        assert_eq!("unlimited".parse::<Budget>(), Ok(Budget::Unlimited));
        assert_eq!("64mb".parse::<Budget>().unwrap().bytes(), Some(64 << 20));
        assert!("lots".parse::<Budget>().is_err());
    }
}
