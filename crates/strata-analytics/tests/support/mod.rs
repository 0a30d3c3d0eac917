//! What the analytics tests share: engines with a pool of a chosen size,
//! jobs run in-process, and the plain computations results are checked
//! against.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::Path;

use clap::Parser;
use strata_analytics::budget::BudgetPlan;
use strata_analytics::jobs::args::{LogregArgs, SqlArgs, WordcountArgs};
use strata_analytics::jobs::input::{Input, InputFormat};
use strata_analytics::jobs::run::JobRun;
use strata_analytics::tier::SpillIo;
use strata_analytics::{EngineOptions, JobCommand, JobEngine};

/// Held by every test that runs a job in this process: a job's DRAM budget
/// is planned from the process's resident memory, which a job of another
/// test running beside it would inflate (the files of `tests/` are modules
/// of one test binary, so one process). Not poisoned by a failed test.
static IN_PROCESS_JOBS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Waits until no other test runs a job in this process (async tests).
pub async fn jobs_alone() -> tokio::sync::MutexGuard<'static, ()> {
    IN_PROCESS_JOBS.lock().await
}

/// [`jobs_alone`] for tests outside a runtime.
pub fn jobs_alone_blocking() -> tokio::sync::MutexGuard<'static, ()> {
    IN_PROCESS_JOBS.blocking_lock()
}

/// `strata job ...` as the binary parses it.
#[derive(Parser)]
struct Cli {
    #[command(subcommand)]
    job: JobCommand,
}

/// Parses `strata job <args>`.
pub fn command(args: &[&str]) -> JobCommand {
    Cli::try_parse_from(std::iter::once("job").chain(args.iter().copied()))
        .unwrap_or_else(|e| panic!("{args:?}: {e}"))
        .job
}

pub fn wordcount_args(args: &[&str]) -> WordcountArgs {
    match command(&[&["wordcount"], args].concat()) {
        JobCommand::Wordcount(a) => a,
        _ => unreachable!(),
    }
}

pub fn logreg_args(args: &[&str]) -> LogregArgs {
    match command(&[&["logreg"], args].concat()) {
        JobCommand::Logreg(a) => a,
        _ => unreachable!(),
    }
}

pub fn sql_args(args: &[&str]) -> SqlArgs {
    match command(&[&["sql"], args].concat()) {
        JobCommand::Sql(a) => a,
        _ => unreachable!(),
    }
}

/// A job run on an engine whose operators' pool is `pool` bytes (`None`:
/// unbounded), spilling under `spill_dir`, in `partitions` partitions.
pub fn run_with_pool(pool: Option<u64>, spill_dir: &Path, partitions: usize) -> JobRun {
    let options = EngineOptions {
        budget: None,
        spill_dir: spill_dir.to_path_buf(),
        spill_limit: 1 << 30,
        spill_io: SpillIo::Direct,
        spill_compression: Default::default(),
        partitions,
    };
    let plan = BudgetPlan {
        budget: pool,
        baseline: 0,
        slack: 0,
        pool,
    };
    JobRun::new(JobEngine::with_plan(&options, plan).unwrap(), true)
}

pub fn input(path: &Path) -> Input {
    Input::open(path, InputFormat::Auto, true).unwrap()
}

/// Words as the job defines them, counted the plain way: maximal runs of
/// alphanumeric characters, lowercased.
pub fn plain_word_counts(text: &str) -> HashMap<String, u64> {
    let mut counts = HashMap::new();
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

/// Batch gradient descent of logistic regression on CSV `text` (header,
/// label first), row by row: the weights and the mean loss before each
/// step.
pub fn plain_logreg(text: &str, iterations: usize, step: f64) -> (Vec<f64>, Vec<f64>) {
    let rows: Vec<(f64, Vec<f64>)> = text
        .lines()
        .skip(1)
        .map(|line| {
            let mut values = line.split(',').map(|v| v.parse::<f64>().unwrap());
            let label = values.next().unwrap();
            (if label > 0.0 { 1.0 } else { -1.0 }, values.collect())
        })
        .collect();
    let features = rows[0].1.len();
    let n = rows.len() as f64;
    let mut w = vec![0.0; features];
    let mut losses = Vec::new();
    for _ in 0..iterations {
        let mut gradient = vec![0.0; features];
        let mut loss = 0.0;
        for (y, x) in &rows {
            let dot: f64 = x.iter().zip(&w).map(|(a, b)| a * b).sum();
            loss += (1.0 + (-y * dot).exp()).ln();
            let factor = (1.0 / (1.0 + (-y * dot).exp()) - 1.0) * y;
            for (g, xi) in gradient.iter_mut().zip(x) {
                *g += factor * xi;
            }
        }
        losses.push(loss / n);
        for (wj, gj) in w.iter_mut().zip(&gradient) {
            *wj -= step * gj / n;
        }
    }
    (w, losses)
}

/// Relative closeness.
pub fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}
