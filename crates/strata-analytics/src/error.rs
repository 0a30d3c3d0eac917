//! [`AnalyticsError`]: the one error type of jobs, and the one table
//! ([`AnalyticsError::from_engine`]) that turns what DataFusion reports
//! into it: the SSD tier's faults travel inside `std::io` errors through
//! DataFusion's spill interface and are found again here; a reservation
//! the budget refused becomes a budget error; Arrow's parse errors become
//! errors of the input.

use std::error::Error;
use std::io;
use std::path::{Path, PathBuf};

use datafusion::arrow::error::ArrowError;
use datafusion::error::DataFusionError;

use crate::tier::TierFault;

/// Everything that can stop a job.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnalyticsError {
    /// Bad options (exit code 2).
    #[error("{0}")]
    Usage(String),

    /// An input that is missing, unreadable or malformed.
    #[error("input {}: {reason}", path.display())]
    Input {
        /// The input given.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// A benchmark run still running at `--run-timeout`, stopped.
    #[error("{run} stopped: still running after {seconds:.0} s (--run-timeout)")]
    TimedOut {
        /// Which run (job, budget, mode).
        run: String,
        /// How long it had run.
        seconds: f64,
    },

    /// The spill directory cannot hold the job's spill area, or the job
    /// filled it.
    #[error("{0}")]
    SpillSpace(String),

    /// The SSD tier's device failed.
    #[error("{0}")]
    Tier(String),

    /// The DRAM budget is too small for the job (even with spilling).
    #[error("{0}")]
    Budget(String),

    /// The SQL text is not a valid query over the input.
    #[error("query: {0}")]
    Query(String),

    /// Anything else the engine reported.
    #[error("job failed: {0}")]
    Engine(String),

    /// A file operation of the job's own (report, output).
    #[error("{what}: {source}")]
    Io {
        /// What the job was doing.
        what: String,
        /// The error.
        #[source]
        source: io::Error,
    },
}

impl AnalyticsError {
    /// The process exit code: 2 for usage errors, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            AnalyticsError::Usage(_) => 2,
            _ => 1,
        }
    }

    /// Wraps a file error with what the job was doing.
    pub fn io(what: impl Into<String>, source: io::Error) -> AnalyticsError {
        AnalyticsError::Io {
            what: what.into(),
            source,
        }
    }

    /// The table from DataFusion's errors to the job's, for a job whose
    /// input is `input`.
    pub fn from_engine(error: DataFusionError, input: &Path) -> AnalyticsError {
        if let Some(fault) = find_tier_fault(&error) {
            return match fault {
                TierFault::Full { .. } => AnalyticsError::SpillSpace(fault.to_string()),
                TierFault::Device(_) => AnalyticsError::Tier(fault.to_string()),
            };
        }
        let root = error.find_root();
        let message = root.strip_backtrace();
        match root {
            DataFusionError::ResourcesExhausted(_) => AnalyticsError::Budget(format!(
                "the DRAM budget is too small for this job even with spilling ({message}); \
                 give it a larger --dram-budget"
            )),
            DataFusionError::ArrowError(arrow, _) if is_malformed(arrow) => AnalyticsError::Input {
                path: input.to_path_buf(),
                reason: format!("malformed: {arrow}"),
            },
            DataFusionError::ParquetError(parquet) => AnalyticsError::Input {
                path: input.to_path_buf(),
                reason: format!("unreadable Parquet: {parquet}"),
            },
            DataFusionError::IoError(io) => AnalyticsError::Input {
                path: input.to_path_buf(),
                reason: io.to_string(),
            },
            DataFusionError::SQL(..)
            | DataFusionError::Plan(_)
            | DataFusionError::SchemaError(..)
            | DataFusionError::NotImplemented(_) => AnalyticsError::Query(message),
            _ => AnalyticsError::Engine(message),
        }
    }
}

/// Arrow errors that mean the input's bytes are not what they claim.
fn is_malformed(error: &ArrowError) -> bool {
    matches!(
        error,
        ArrowError::CsvError(_)
            | ArrowError::ParseError(_)
            | ArrowError::JsonError(_)
            | ArrowError::CastError(_)
            | ArrowError::InvalidArgumentError(_)
    )
}

/// The SSD tier's fault inside `error`'s chain, if any: directly, or as
/// the payload of an `io::Error` (whose `source()` skips its payload).
pub fn find_tier_fault<'a>(error: &'a (dyn Error + 'static)) -> Option<&'a TierFault> {
    let mut current: Option<&(dyn Error + 'static)> = Some(error);
    while let Some(err) = current {
        if let Some(fault) = err.downcast_ref::<TierFault>() {
            return Some(fault);
        }
        if let Some(fault) = err
            .downcast_ref::<io::Error>()
            .and_then(io::Error::get_ref)
            .and_then(|inner| inner.downcast_ref::<TierFault>())
        {
            return Some(fault);
        }
        current = err.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tier_faults_are_found_through_io_and_arrow_wrappers() {
        let full = TierFault::Full {
            dir: PathBuf::from("/spill"),
            capacity: 1 << 30,
        };
        let wrapped = DataFusionError::ArrowError(
            Box::new(ArrowError::IoError("write".into(), full.clone().into_io())),
            None,
        )
        .context("spilling");
        let error = AnalyticsError::from_engine(wrapped, Path::new("in.csv"));
        assert!(matches!(error, AnalyticsError::SpillSpace(_)), "{error:?}");
        assert!(
            error.to_string().contains("spill space exhausted"),
            "{error}"
        );

        let device = DataFusionError::IoError(TierFault::Device("EIO".into()).into_io());
        let error = AnalyticsError::from_engine(device, Path::new("in.csv"));
        assert!(matches!(error, AnalyticsError::Tier(_)), "{error:?}");

        let exhausted = DataFusionError::ResourcesExhausted("no memory".into());
        let error = AnalyticsError::from_engine(exhausted, Path::new("in.csv"));
        assert!(matches!(error, AnalyticsError::Budget(_)), "{error:?}");

        let csv =
            DataFusionError::ArrowError(Box::new(ArrowError::CsvError("line 3".into())), None);
        let error = AnalyticsError::from_engine(csv, Path::new("in.csv"));
        assert!(
            error.to_string().starts_with("input in.csv: malformed"),
            "{error}"
        );
    }
}
