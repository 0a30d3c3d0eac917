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
//! command says so and writes nothing. Spark is run by
//! `scripts/bench-analytics --spark` (it installs pyspark and takes minutes
//! per run); here it is listed as not run.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use super::common::{CommonArgs, Hooks};
use super::plot::{line_chart, Line};
use super::run::{Measurement, Run};
use super::table::{ratio, Cell, Table};
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
}

/// (label, `--jobs`).
const JOBS: [(&str, &str); 2] = [
    ("word count", "wordcount"),
    ("logistic regression", "logreg"),
];

/// (label, `--modes`, the bench's `mode` in its JSON).
const MODES: [(&str, &str); 2] = [("Strata", "strata"), ("kernel (cgroup + swap)", "kernel")];

/// Budgets in percent of the input, largest first (the slowdown's base).
const BUDGETS: [f64; 4] = [100.0, 50.0, 25.0, 12.5];

/// Input of a quick run: its 75% budget (60 MiB) is above the ~55 MiB a job
/// needs (see the module's doc) and below the input, so that the job spills.
const QUICK_SIZE: &str = "80mb";

/// Budgets of a quick run, in percent of [`QUICK_SIZE`].
const QUICK_BUDGETS: [f64; 2] = [100.0, 75.0];

/// The budgets of a run, largest first.
fn budgets_for(quick: bool) -> &'static [f64] {
    if quick {
        &QUICK_BUDGETS
    } else {
        &BUDGETS
    }
}

/// The seed's slowdown at `percent` of its largest memory (2x, 4x and 8x at
/// 8, 4 and 2 GB of 16 GB for 10 GB of data): run time in proportion to the
/// RAM removed.
fn seed_slowdown(percent: f64) -> f64 {
    100.0 / percent
}

/// Title of the run-time table.
pub const RUN_TIME: &str = "Run time against the DRAM budget";
/// Title of the slowdown table.
pub const SLOWDOWN: &str = "Slowdown against the same configuration at 100%";
/// Title of the memory table.
pub const MEMORY: &str = "Peak resident data of Strata's runs against the budget";

fn column(percent: f64) -> String {
    format!("{percent}%")
}

fn config(job: &str, mode: &str) -> String {
    format!("{job}, {mode}")
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
    let modes: Vec<(&str, &str)> = MODES
        .into_iter()
        .filter(|(_, m)| *m == "strata" || args.cgroup.is_some())
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
            argv.push(format!("--run-timeout={}", args.run_timeout));
            let command = format!("strata bench analytics {}", argv.join(" "));
            let results = bench(&argv).map_err(|e| LabError::Check(format!("{command}: {e}")))?;
            record(&mut run, &results, job_label, round, &command)?;
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
    run.skip(
        "Apache Spark",
        "run by scripts/bench-analytics --spark (installs pyspark, minutes per run); \
         docs/benchmarks.md has the last side-by-side figures",
    );
    tables(&mut run, &modes, budgets);
    plot(&mut run, &modes, budgets);
    run.finish(
        "The seed ran Spark's word count and logistic regression over 10 GB with 16, 8, 4 \
         and 2 GB of RAM, the rest of the memory being Linux swap on a SATA SSD: run time \
         grew in proportion to the RAM taken away, about 8x at one eighth. Here the same \
         jobs run on Strata's analytics engine with the DRAM budget at fractions of the \
         data (100%, 50%, 25% and 12.5%; 100% and 75% in a quick run): Strata's memory manager keeps the budget by spilling operators \
         and the cached table to the SSD tier in large aligned writes; the kernel-confined \
         runs (with --cgroup) give the same job no engine budget and let the kernel swap.",
    )
}

/// Records one bench run's results (a JSON list of runs).
fn record(
    run: &mut Run,
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

fn tables(run: &mut Run, modes: &[(&str, &str)], budgets: &[f64]) {
    let columns: Vec<String> = budgets.iter().map(|&b| column(b)).collect();
    let cols: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut time = Table::new(RUN_TIME, "seconds, median over rounds", &cols);
    let mut slowdown = Table::new(SLOWDOWN, "run time / run time at 100%", &cols);
    let mut memory = Table::new(MEMORY, "peak resident data / budget", &cols);
    for (job, _) in JOBS {
        for (mode, _) in modes {
            let name = config(job, mode);
            let secs: Vec<Option<f64>> = columns
                .iter()
                .map(|c| run.median(&name, c, "seconds"))
                .collect();
            let cells = |values: Vec<Option<f64>>| {
                values
                    .into_iter()
                    .map(|v| Cell::from_option(v, "run failed (see Not run)"))
                    .collect::<Vec<_>>()
            };
            time.push(&name, cells(secs.clone()), None);
            let slow = secs.iter().map(|s| ratio(*s, secs[0])).collect();
            let seed = budgets.iter().map(|&b| Some(seed_slowdown(b))).collect();
            slowdown.push(&name, cells(slow), Some(seed));
            if *mode == "Strata" {
                let used = columns
                    .iter()
                    .map(|c| {
                        ratio(
                            run.median(&name, c, "peak_rss"),
                            run.median(&name, c, "budget_bytes"),
                        )
                    })
                    .collect();
                memory.push(&name, cells(used), None);
            }
        }
    }
    // The smallest budget: 12.5% (75% in a quick run).
    let smallest = budgets.last().copied().unwrap_or(100.0);
    let at = |t: &Table, job: &str, mode: &str| t.get(&config(job, mode), &column(smallest));
    let mut findings = Vec::new();
    for (job, _) in JOBS {
        let own = at(&slowdown, job, "Strata");
        let kernel = ratio(
            at(&time, job, "kernel (cgroup + swap)"),
            at(&time, job, "Strata"),
        );
        findings.push(format!(
            "{job}: Strata at {} is {} its own time at 100% (target at most 2x){}",
            column(smallest),
            own.map_or("not measured against".into(), |r| format!("{r:.2}x")),
            kernel.map_or(String::new(), |r| format!(
                ", and {r:.2}x faster than the kernel-confined run (target at least 3x)"
            )),
        ));
    }
    slowdown.verdict = format!(
        "The seed: about 2x, 4x and 8x at one half, one quarter and one eighth of the \
         memory (run time in proportion to the memory removed). Here: {}.",
        findings.join("; ")
    );
    time.verdict = "Medians over the rounds; each run is a fresh process.".into();
    memory.verdict = "Resident data is RssAnon + RssShmem sampled every 10 ms (the \
                      executable's own pages not counted); the job keeps a stated slack \
                      of max(budget / 8, 32 MiB) for memory no operator accounts for."
        .into();
    run.results.tables.extend([time, slowdown, memory]);
}

fn plot(run: &mut Run, modes: &[(&str, &str)], budgets: &[f64]) {
    let mut names = Vec::new();
    let mut points = Vec::new();
    for (job, _) in JOBS {
        for (mode, _) in modes {
            let name = config(job, mode);
            let line: Vec<(f64, f64)> = budgets
                .iter()
                .filter_map(|&b| Some((b, run.median(&name, &column(b), "seconds")?)))
                .collect();
            names.push(name);
            points.push(line);
        }
    }
    let lines: Vec<Line<'_>> = names
        .iter()
        .zip(points)
        .map(|(name, points)| Line {
            name,
            points,
            spans: Vec::new(),
        })
        .collect();
    let out = line_chart(
        &run.dir,
        "run-time",
        "Run time against the DRAM budget",
        ("DRAM budget, % of the data", "seconds"),
        &lines,
    );
    run.plotted(out);
}
