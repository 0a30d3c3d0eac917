//! The peer's side of the experiment: the same job on Apache Spark in
//! local mode (`scripts/bench-analytics-spark.py`, pyspark 4), the seed's
//! own system, with the driver's memory at the budget (at least Spark's
//! 512 MiB minimum) and, with `--cgroup`, the whole JVM and its Python
//! workers held to the budget by the kernel, which swaps the rest (the
//! seed's setup).
//!
//! The script prints one JSON line: the job's own seconds (session start
//! excluded) and the result's head. Spark starts a JVM beside the Python
//! driver, so the run is a process group of its own and a run past its
//! time limit is stopped group and all (`child::run_bounded`).

use std::path::Path;
use std::process::Command;

use super::args::{AnalyticsBenchArgs, BenchJob};
use crate::error::AnalyticsError;

/// Spark refuses a driver memory below this.
const MIN_DRIVER_MEMORY: u64 = 512 << 20;

/// The command that runs `job` over `input` on Spark at `budget` bytes.
pub(super) fn command(
    args: &AnalyticsBenchArgs,
    job: BenchJob,
    input: &Path,
    budget: u64,
) -> Command {
    let heap = budget.max(MIN_DRIVER_MEMORY);
    let cores = args.partitions.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get)
    });
    let mut c = Command::new(&args.python);
    c.arg(&args.spark_script)
        .arg(job.name())
        .arg(input)
        // In MiB with its unit: a bare number means MiB to Spark's config
        // but bytes to the JVM's -Xmx.
        .args(["--memory", &format!("{}m", heap >> 20)])
        .args(["--cores", &cores.to_string()])
        .args(["--iterations", &args.iterations.to_string()])
        .args(["--form", args.spark_form.name()]);
    c
}

/// The job's own seconds from the script's last output line.
pub(super) fn job_seconds(output: &str) -> Result<f64, AnalyticsError> {
    let line = output.lines().rev().find(|l| !l.trim().is_empty());
    let json: serde_json::Value =
        line.and_then(|l| serde_json::from_str(l).ok())
            .ok_or_else(|| {
                AnalyticsError::Engine(format!(
                    "Spark's script printed no JSON result line (its output: {:?})",
                    output.chars().take(200).collect::<String>()
                ))
            })?;
    json["seconds"]
        .as_f64()
        .ok_or_else(|| AnalyticsError::Engine(format!("Spark's result has no \"seconds\": {json}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_json_line_gives_the_job_seconds() {
        let out = "warming up\n{\"job\": \"wordcount\", \"seconds\": 12.5, \"top\": []}\n\n";
        assert_eq!(job_seconds(out).unwrap(), 12.5);
        assert!(job_seconds("Traceback (most recent call last)\n").is_err());
        assert!(job_seconds("{\"job\": \"logreg\"}").is_err());
        assert!(job_seconds("").is_err());
    }
}
