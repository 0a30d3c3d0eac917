//! `strata lab swap` (seed 002: Spark with SSD swap): word count and logistic
//! regression at DRAM budgets of 100%, 50%, 25% and 12.5% of the data, the
//! budget enforced by Strata's memory manager (spilling and caching on the
//! SSD tier) and, with `--cgroup`, by the kernel with swap (the seed's setup).
//!
//! `--quick` runs 80 MiB inputs at 100% and 75%: a job needs a budget of
//! about 55 MiB whatever its input (the process's own ~7 MiB, a 32 MiB slack
//! for memory no operator accounts for, a 16 MiB operator pool:
//! `strata_analytics::budget`), so the quick budgets are chosen above that
//! floor, the smaller one below the input so that it spills.
//!
//! Each round runs `strata bench analytics` once per job through
//! [`Hooks::analytics`] (a child process per job and budget, so every run's
//! peak memory is its own); rounds repeat the whole matrix and the tables show
//! medians. Without the hook (a build without the analytics engine) the
//! command says so and writes nothing. Spark, the seed's system, runs the
//! same jobs at the same budgets (`--modes spark`: local mode, the driver's
//! memory at the budget, in the cgroup with `--cgroup`) when pyspark is
//! installed (`scripts/peers/spark`), and is listed as not run otherwise.
//!
//! # Layout
//! - `plan`: the jobs, modes, budgets and names.
//! - `report`: the tables with their verdicts, and the plot.

mod plan;
mod report;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use self::plan::{budgets_for, column, config, JOBS, MODES, QUICK_SIZE, SPARK};
use self::report::{plot, tables, Stopped};
use super::common::{CommonArgs, Hooks};
use super::run::{Measurement, Run};
use crate::LabError;

/// Arguments of `strata lab swap`.
#[derive(Debug, Clone, Args)]
pub struct SwapArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,

    /// Size of each job's input [default: 1gb; 80mb with --quick, run at
    /// budgets of 100% and 75% only (both above the ~55 MiB a job needs)].
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,

    /// A memory cgroup this process may write, for the kernel-confined runs
    /// (`scripts/bench-analytics` makes one and a swap file, and removes both);
    /// without it those runs are listed as not run.
    #[arg(long, value_name = "DIR")]
    pub cgroup: Option<PathBuf>,

    /// Iterations of logistic regression [default: 10, 3 with --quick].
    #[arg(long)]
    pub iterations: Option<usize>,

    /// Distinct words of word count's text [default: the generator's,
    /// 200,000]: a larger vocabulary makes word count's groups outgrow the
    /// small budgets (`strata bench analytics --vocabulary`).
    #[arg(long)]
    pub vocabulary: Option<usize>,

    /// Seconds after which one run is stopped and listed as still running
    /// (a kernel-confined run that swaps can take hours).
    #[arg(long, value_name = "SECONDS", default_value_t = 900.0)]
    pub run_timeout: f64,

    /// Run no Spark, even when pyspark is installed.
    #[arg(long)]
    pub no_peer: bool,

    /// The Spark job script.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "scripts/bench-analytics-spark.py"
    )]
    pub spark_script: PathBuf,
}

/// Runs the experiment.
pub fn run(args: &SwapArgs, hooks: &Hooks) -> Result<PathBuf, LabError> {
    let common = &args.common;
    common.in_this_executable("swap")?;
    let Some(bench) = hooks.analytics else {
        return Err(LabError::NotAvailable(
            "strata lab swap: not available in this build (the analytics engine, \
             `strata bench analytics`, is not compiled in)"
                .into(),
        ));
    };
    let size = args
        .size
        .clone()
        .unwrap_or_else(|| if common.quick { QUICK_SIZE } else { "1gb" }.into());
    let budgets = budgets_for(common.quick);
    let iterations = args.iterations.unwrap_or(if common.quick { 3 } else { 10 });
    let spark = spark_available(args);
    let modes: Vec<(&str, &str)> = MODES
        .into_iter()
        .filter(|(_, m)| match *m {
            "kernel" => args.cgroup.is_some(),
            "spark" => spark.is_ok(),
            _ => true,
        })
        .collect();
    let rounds = common.rounds();
    let per_job = Duration::from_secs(if common.quick { 60 } else { 240 });
    let planned = per_job * (JOBS.len() * modes.len() * rounds) as u32;
    // In this executable (the measured binary is the lab's own).
    let mut run = Run::start("swap", "002", common, planned, None)?;
    let data_dir = run.data_dir.join("strata-lab-analytics");
    run.param("input_size", &size);
    run.param("budgets_percent", budgets);
    run.param("logreg_iterations", iterations);
    if let Some(words) = args.vocabulary {
        run.param("wordcount_vocabulary", words);
    }
    let mut stopped = Stopped::new();
    for round in 0..rounds {
        for (job_label, job) in JOBS {
            run.progress
                .step(job_label, &format!("round {}", round + 1));
            let mut argv: Vec<String> = vec![
                format!("--jobs={job}"),
                format!("--size={size}"),
                format!("--data-dir={}", data_dir.display()),
                format!(
                    "--budgets={}",
                    budgets
                        .iter()
                        .map(f64::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                format!(
                    "--modes={}",
                    modes.iter().map(|m| m.1).collect::<Vec<_>>().join(",")
                ),
                format!("--iterations={iterations}"),
                "--keep-going".into(),
            ];
            if let Some(cgroup) = &args.cgroup {
                argv.push(format!("--cgroup={}", cgroup.display()));
            }
            if let Some(words) = args.vocabulary {
                argv.push(format!("--vocabulary={words}"));
            }
            if spark.is_ok() {
                argv.push(format!("--spark-script={}", args.spark_script.display()));
            }
            argv.push(format!("--run-timeout={}", args.run_timeout));
            let command = format!("strata bench analytics {}", argv.join(" "));
            let results = bench(&argv).map_err(|e| LabError::Check(format!("{command}: {e}")))?;
            record(&mut run, &mut stopped, &results, job_label, round, &command)?;
            run.progress.done(per_job * modes.len() as u32);
        }
    }
    if args.cgroup.is_none() {
        run.skip(
            "kernel (cgroup + swap)",
            "no --cgroup given (scripts/bench-analytics sets up a memory cgroup and a swap \
             file, passes them here, and removes both)",
        );
    }
    if let Err(why) = &spark {
        run.skip(SPARK, why);
    }
    tables(&mut run, &modes, budgets, &stopped);
    plot(&mut run, &modes, budgets);
    run.finish(
        "The seed ran Spark's word count and logistic regression over 10 GB with 16, 8, 4 \
         and 2 GB of RAM, the rest of the memory being Linux swap on a SATA SSD: run time \
         grew in proportion to the RAM taken away, about 8x at one eighth. Here the same \
         jobs run on Strata's analytics engine with the DRAM budget at fractions of the \
         data (100%, 50%, 25% and 12.5%; 100% and 75% in a quick run): Strata's memory manager keeps the budget by spilling operators \
         and the cached table to the SSD tier in large aligned writes; the kernel-confined \
         runs (with --cgroup) give the same job no engine budget and let the kernel swap; \
         Spark runs the jobs in local mode with its driver's memory at the budget.",
    )
}

/// Whether Spark can run here, or why not.
fn spark_available(args: &SwapArgs) -> Result<(), String> {
    if args.no_peer {
        return Err("--no-peer given".into());
    }
    if !args.spark_script.is_file() {
        return Err(format!(
            "its job script {} is not here (run from the checkout's root)",
            args.spark_script.display()
        ));
    }
    let imports = std::process::Command::new("python3")
        .args(["-c", "import pyspark, numpy"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
    match imports {
        Ok(status) if status.success() => Ok(()),
        _ => Err(
            "pyspark is not installed (scripts/peers/spark installs pyspark 4, \
                  numpy and Java 17)"
                .into(),
        ),
    }
}

/// Records one bench run's results (a JSON list of runs), and in
/// `stopped` the runs stopped at the time limit.
fn record(
    run: &mut Run,
    stopped: &mut Stopped,
    results: &serde_json::Value,
    job_label: &str,
    round: usize,
    command: &str,
) -> Result<(), LabError> {
    let list = results
        .as_array()
        .ok_or_else(|| LabError::Check(format!("{command}: its results are not a list")))?;
    for result in list {
        let mode = result["mode"].as_str().unwrap_or_default();
        let Some((mode_label, _)) = MODES.iter().find(|(_, m)| *m == mode) else {
            return Err(LabError::Check(format!("{command}: unknown mode {mode:?}")));
        };
        let percent = result["budget_percent"].as_f64().unwrap_or(f64::NAN);
        let name = config(job_label, mode_label);
        if let Some(error) = result["error"].as_str() {
            if let Some(t) = result["timed_out_after"].as_f64() {
                let longest = stopped.entry((name.clone(), column(percent))).or_insert(t);
                *longest = longest.max(t);
            }
            run.skip(
                &format!("{name} at {}, round {}", column(percent), round + 1),
                error,
            );
            continue;
        }
        let mut figures = BTreeMap::new();
        for name in [
            "seconds",
            "job_seconds",
            "budget_bytes",
            "peak_rss",
            "ssd_written",
            "ssd_read",
        ] {
            if let Some(v) = result[name].as_f64() {
                figures.insert(name.to_owned(), v);
            }
        }
        run.measured(Measurement {
            config: name,
            step: column(percent),
            round,
            command: command.to_owned(),
            figures,
            raw: result.clone(),
        });
    }
    Ok(())
}
