//! `strata job wordcount|logreg|sql`: the jobs, their command line, and
//! [`run_job`], which runs one to its report.
//!
//! - [`args`]: the command line ([`JobCommand`]).
//! - [`input`]: checking and registering inputs; [`text`]: text inputs
//!   read in line-aligned ranges, as words or lines.
//! - [`wordcount`], [`logreg`], [`sql`]: the jobs.
//! - [`run`]: stages and measurements; [`progress`]: the bars;
//!   [`report`]: the JSON report.

pub mod args;
pub mod input;
pub mod logreg;
pub mod progress;
pub mod report;
pub mod run;
pub mod sql;
pub mod text;
pub mod wordcount;

use std::path::PathBuf;

pub use args::JobCommand;

use args::CommonArgs;
use input::Input;
use report::{BudgetReport, JobReport, SpillReport};
use run::JobRun;

use crate::engine::{EngineOptions, JobEngine};
use crate::error::AnalyticsError;
use crate::tier::area::MIN_CAPACITY;
use strata_units::human;

impl JobCommand {
    /// The options every job has.
    pub fn common(&self) -> &CommonArgs {
        match self {
            JobCommand::Wordcount(a) => &a.common,
            JobCommand::Logreg(a) => &a.common,
            JobCommand::Sql(a) => &a.common,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            JobCommand::Wordcount(_) => "wordcount",
            JobCommand::Logreg(_) => "logreg",
            JobCommand::Sql(_) => "sql",
        }
    }
}

/// The spill directory when none is given: `$TMPDIR`, else `/var/tmp`
/// (on disk where `/tmp` may be memory).
fn default_spill_dir() -> PathBuf {
    std::env::var_os("TMPDIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp"))
}

/// The spill area's size when none is given: twice the input plus
/// 1 GiB, at most half the free space of `dir` (at least the smallest
/// area, so that a full directory is reported as full).
fn default_spill_limit(input_bytes: u64, dir: &std::path::Path) -> u64 {
    let wanted = input_bytes.saturating_mul(2).saturating_add(1 << 30);
    let probe = std::iter::successors(Some(dir), |d| d.parent()).find(|d| d.exists());
    let free = probe
        .and_then(|d| rustix::fs::statvfs(d).ok())
        .map(|s| s.f_bavail.saturating_mul(s.f_frsize))
        .unwrap_or(u64::MAX);
    wanted.min(free / 2).max(MIN_CAPACITY)
}

/// Runs `command` on a runtime of its own: prints the result on
/// standard output, a summary on standard error, and writes the report.
/// The caller must not be inside a tokio runtime.
pub fn run_job(command: JobCommand) -> Result<(), AnalyticsError> {
    let common = command.common().clone();
    let partitions = common
        .partitions
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    if partitions == 0 {
        return Err(AnalyticsError::Usage(
            "--partitions must be at least 1".into(),
        ));
    }
    let input = Input::open(&common.input, common.format, !common.no_header)?;
    let spill_dir = common.spill_dir.clone().unwrap_or_else(default_spill_dir);
    let spill_limit = common
        .spill_limit
        .map(|s| s.bytes())
        .unwrap_or_else(|| default_spill_limit(input.bytes, &spill_dir));
    let options = EngineOptions {
        budget: common.dram_budget.bytes(),
        spill_dir,
        spill_limit,
        spill_io: common.spill_io,
        spill_compression: common.spill_compression.datafusion(),
        partitions,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(partitions)
        .thread_name("strata-job")
        .enable_all()
        .build()
        .map_err(|e| AnalyticsError::io("starting the job's runtime", e))?;
    runtime.block_on(async {
        let engine = JobEngine::new(&options)?;
        let mut run = JobRun::new(engine, common.quiet);
        let (shown, result, cache) = match &command {
            JobCommand::Wordcount(args) => {
                let result = wordcount::wordcount(&mut run, &input, args).await?;
                (wordcount::render(&result), to_json(&result), None)
            }
            JobCommand::Logreg(args) => {
                let (result, dataset) = logreg::logreg(&mut run, &input, args).await?;
                (
                    logreg::render(&result),
                    to_json(&result),
                    Some(dataset.summary()),
                )
            }
            JobCommand::Sql(args) => {
                let (results, dataset) = sql::sql(&mut run, &input, args).await?;
                let shown = results
                    .iter()
                    .map(|r| format!("{}\n{}\n", r.query, r.shown))
                    .collect::<Vec<_>>()
                    .join("\n");
                (shown, to_json(&results), dataset.map(|d| d.summary()))
            }
        };
        let (engine, stages, seconds, sampled, peak) = run.finish();
        print!("{shown}");
        let report = JobReport {
            job: command.name(),
            input,
            budget: BudgetReport::new(&engine, peak, sampled),
            partitions: engine.partitions,
            spill: SpillReport::new(&engine),
            cache,
            stages,
            seconds,
            result,
        };
        if !common.quiet {
            eprintln!("{}", summary(&report));
        }
        if let Some(path) = &common.report {
            report.write(path)?;
        }
        Ok(())
    })
}

fn to_json(value: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).expect("results serialize")
}

/// One line for a human: time, peak memory against the budget, spills.
fn summary(report: &JobReport) -> String {
    let budget = &report.budget;
    let peak = budget.peak_data_rss;
    let memory = match budget.plan.budget {
        Some(limit) => format!(
            "peak data RSS {} of a {} budget (RSS with code {})",
            human(peak),
            human(limit),
            human(budget.peak_rss)
        ),
        None => format!(
            "peak data RSS {} (no budget; RSS with code {})",
            human(peak),
            human(budget.peak_rss)
        ),
    };
    let spill = &report.spill;
    format!(
        "{} done in {:.2} s; {memory}; spilled {}, read back {}; cached table on SSD {}, read back {}",
        report.job,
        report.seconds,
        human(spill.spilled_bytes),
        human(spill.spill_read_bytes),
        human(spill.cache_written_bytes),
        human(spill.cache_read_bytes),
    )
}
