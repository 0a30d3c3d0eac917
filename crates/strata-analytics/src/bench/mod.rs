//! `strata bench analytics`: the seed's experiment. Generates the inputs
//! ([`generate`]), then runs each job at each DRAM budget as a child
//! process (`strata job ... --report`), with the budget enforced by
//! Strata or by the kernel (a memory cgroup and swap), and prints the run
//! times side by side with the slowdown against the same configuration's
//! time at the largest budget.
//!
//! A child per run: each measurement starts from a fresh process, its
//! peak RSS is its own, and a kernel-confined child can be moved into the
//! cgroup before it allocates (`sh -c 'echo $$ > cgroup.procs; exec ...'`).

pub mod args;
mod child;
pub mod generate;
mod spark;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::Serialize;

pub use args::{AnalyticsBenchArgs, BenchJob, Confinement, SparkForm};

use self::child::{drop_caches, first_paragraph, in_cgroup, run_bounded, set_cgroup_limit};
use crate::error::AnalyticsError;
use strata_units::human;

/// One run's figures.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    /// The job.
    pub job: BenchJob,
    /// How the budget was enforced.
    pub mode: Confinement,
    /// The budget in percent of the input.
    pub budget_percent: f64,
    /// The budget in bytes.
    pub budget_bytes: u64,
    /// Wall-clock seconds of the child process.
    pub seconds: f64,
    /// The child's job seconds (its report), engine start to result.
    pub job_seconds: f64,
    /// The child's peak resident data (`RssAnon + RssShmem`, sampled;
    /// the executable's pages not counted).
    pub peak_rss: u64,
    /// Bytes spilled plus cached-table bytes written to the SSD tier.
    pub ssd_written: u64,
    /// Bytes read back from the SSD tier.
    pub ssd_read: u64,
    /// Seconds over the same mode's seconds at the first budget.
    pub slowdown: f64,
    /// Why the run failed (with `--keep-going`; its figures are then 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Seconds after which a run still going was stopped (`--run-timeout`):
    /// it would have taken longer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timed_out_after: Option<f64>,
}

impl RunResult {
    /// A run that failed with `error`.
    fn failed(
        job: BenchJob,
        mode: Confinement,
        (budget_percent, budget_bytes): (f64, u64),
        error: AnalyticsError,
    ) -> RunResult {
        RunResult {
            job,
            mode,
            budget_percent,
            budget_bytes,
            seconds: 0.0,
            job_seconds: 0.0,
            peak_rss: 0,
            ssd_written: 0,
            ssd_read: 0,
            slowdown: 0.0,
            timed_out_after: match &error {
                AnalyticsError::TimedOut { seconds, .. } => Some(*seconds),
                _ => None,
            },
            error: Some(error.to_string()),
        }
    }
}

/// The input of `job` for `args`, generated if missing.
fn input_for(args: &AnalyticsBenchArgs, job: BenchJob) -> Result<PathBuf, AnalyticsError> {
    let size = args.size.bytes();
    let name = match job {
        BenchJob::Wordcount if args.vocabulary == generate::VOCABULARY => {
            format!("text-{size}-{}.txt", args.seed)
        }
        BenchJob::Wordcount => format!("text-{size}-{}-v{}.txt", args.seed, args.vocabulary),
        BenchJob::Logreg => format!("points-{size}-{}.csv", args.seed),
    };
    let path = args.data_dir.join(name);
    if path.exists() {
        return Ok(path);
    }
    eprintln!(
        "generating {} of {} data: {}",
        human(size),
        job.name(),
        path.display()
    );
    let partial = path.with_extension("partial");
    let written = match job {
        BenchJob::Wordcount => generate::write_text(&partial, size, args.seed, args.vocabulary),
        BenchJob::Logreg => generate::write_points(&partial, size, args.seed),
    };
    written
        .and_then(|_| std::fs::rename(&partial, &path))
        .map_err(|e| AnalyticsError::io(format!("generating {}", path.display()), e))?;
    Ok(path)
}

/// Runs the experiment of `args`.
pub fn run_bench(args: AnalyticsBenchArgs) -> Result<(), AnalyticsError> {
    if args.modes.contains(&Confinement::Kernel) && args.cgroup.is_none() {
        return Err(AnalyticsError::Usage(
            "--modes kernel needs --cgroup DIR (a memory cgroup; scripts/bench-analytics makes one)"
                .into(),
        ));
    }
    if args.budgets.iter().any(|b| !(*b > 0.0 && *b <= 1000.0)) {
        return Err(AnalyticsError::Usage(
            "--budgets are percents in (0, 1000]".into(),
        ));
    }
    let mut inputs = Vec::new();
    for &job in &args.jobs {
        inputs.push((job, input_for(&args, job)?));
    }
    if args.generate_only {
        inputs
            .iter()
            .for_each(|(_, path)| println!("{}", path.display()));
        return Ok(());
    }
    let exe = std::env::current_exe()
        .map_err(|e| AnalyticsError::io("finding the strata executable", e))?;
    let spill_dir = args
        .spill_dir
        .clone()
        .unwrap_or_else(|| args.data_dir.join("spill"));
    let mut results = Vec::new();
    for (job, input) in &inputs {
        let bytes = std::fs::metadata(input)
            .map_err(|e| AnalyticsError::io(format!("reading {}", input.display()), e))?
            .len();
        for &mode in &args.modes {
            let mut first = None;
            for &percent in &args.budgets {
                let budget = (bytes as f64 * percent / 100.0) as u64;
                let run = Run {
                    args: &args,
                    exe: &exe,
                    job: *job,
                    input,
                    spill_dir: &spill_dir,
                };
                let mut result = match run.once(mode, percent, budget) {
                    Ok(result) => result,
                    Err(e) if args.keep_going => {
                        eprintln!("{} {mode:?} {percent}%: {e}", job.name());
                        results.push(RunResult::failed(*job, mode, (percent, budget), e));
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                let base = *first.get_or_insert(result.seconds);
                result.slowdown = result.seconds / base;
                eprintln!(
                    "{:<9} {:<6} {:>6}% ({:>9}): {:>8.2} s (x{:.2}), peak data RSS {}, SSD written {} read {}",
                    job.name(),
                    format!("{mode:?}").to_lowercase(),
                    percent,
                    human(budget),
                    result.seconds,
                    result.slowdown,
                    human(result.peak_rss),
                    human(result.ssd_written),
                    human(result.ssd_read),
                );
                results.push(result);
            }
        }
    }
    println!("{}", table(&results));
    if let Some(path) = &args.output {
        let json = serde_json::to_string_pretty(&results).expect("results serialize");
        std::fs::write(path, json + "\n")
            .map_err(|e| AnalyticsError::io(format!("writing {}", path.display()), e))?;
    }
    Ok(())
}

/// One job's runs.
struct Run<'a> {
    args: &'a AnalyticsBenchArgs,
    exe: &'a Path,
    job: BenchJob,
    input: &'a Path,
    spill_dir: &'a Path,
}

impl Run<'_> {
    /// `strata job` for this job, reporting to `report`, with an engine
    /// budget of `budget` bytes (`None`: unlimited).
    fn strata_job(&self, report: &Path, budget: Option<u64>) -> Command {
        let mut c = Command::new(self.exe);
        c.args(["job", self.job.name(), "--input"])
            .arg(self.input)
            .arg("--spill-dir")
            .arg(self.spill_dir)
            .args(["--quiet", "--report"])
            .arg(report)
            .arg("--dram-budget")
            .arg(budget.map_or_else(|| "unlimited".into(), |b| b.to_string()));
        if let Some(p) = self.args.partitions {
            c.args(["--partitions", &p.to_string()]);
        }
        match self.job {
            BenchJob::Wordcount => c.args(["--top", "10"]),
            BenchJob::Logreg => c
                .args(["--iterations", &self.args.iterations.to_string()])
                .args([
                    "--cache-compression",
                    &format!("{:?}", self.args.cache_compression).to_lowercase(),
                ]),
        };
        c
    }

    /// Runs the job once under `mode` at `budget` bytes.
    fn once(
        &self,
        mode: Confinement,
        percent: f64,
        budget: u64,
    ) -> Result<RunResult, AnalyticsError> {
        let report = self
            .spill_dir
            .join(format!("report-{}.json", std::process::id()));
        std::fs::create_dir_all(self.spill_dir)
            .map_err(|e| AnalyticsError::io(format!("creating {}", self.spill_dir.display()), e))?;
        let mut command = match mode {
            Confinement::Spark => spark::command(self.args, self.job, self.input, budget),
            Confinement::Strata => self.strata_job(&report, Some(budget)),
            Confinement::Kernel => self.strata_job(&report, None),
        };
        if let (Confinement::Kernel | Confinement::Spark, Some(cgroup)) = (mode, &self.args.cgroup)
        {
            set_cgroup_limit(cgroup, budget)?;
            command = in_cgroup(&command, cgroup);
        }
        if self.args.drop_caches {
            drop_caches()?;
        }
        let started = Instant::now();
        let errors = self
            .spill_dir
            .join(format!("stderr-{}.txt", std::process::id()));
        let output = (mode == Confinement::Spark).then(|| {
            self.spill_dir
                .join(format!("stdout-{}.txt", std::process::id()))
        });
        let status = run_bounded(
            &mut command,
            (output.as_deref(), &errors),
            self.args.run_timeout(),
        )?;
        let seconds = started.elapsed().as_secs_f64();
        let stderr = std::fs::read_to_string(&errors).unwrap_or_default();
        let _ = std::fs::remove_file(&errors);
        let stdout = output.map(|path| {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let _ = std::fs::remove_file(&path);
            text
        });
        let Some(status) = status else {
            return Err(AnalyticsError::TimedOut {
                run: format!("{} at {percent}% ({mode:?})", self.job.name()),
                seconds,
            });
        };
        if !status.success() {
            return Err(AnalyticsError::Engine(format!(
                "{} at {percent}% ({mode:?}) failed ({status}): {}",
                self.job.name(),
                first_paragraph(&stderr)
            )));
        }
        if let Some(stdout) = stdout {
            return Ok(RunResult {
                job: self.job,
                mode,
                budget_percent: percent,
                budget_bytes: budget,
                seconds,
                job_seconds: spark::job_seconds(&stdout)?,
                // Spark's memory is not sampled; its SSD traffic is swap.
                peak_rss: 0,
                ssd_written: 0,
                ssd_read: 0,
                slowdown: 1.0,
                error: None,
                timed_out_after: None,
            });
        }
        let text = std::fs::read_to_string(&report)
            .map_err(|e| AnalyticsError::io(format!("reading {}", report.display()), e))?;
        let _ = std::fs::remove_file(&report);
        let json: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| AnalyticsError::Engine(format!("a job's report: {e}")))?;
        let number = |pointer: &str| {
            json.pointer(pointer)
                .and_then(|v| v.as_f64())
                .unwrap_or(0.0)
        };
        Ok(RunResult {
            job: self.job,
            mode,
            budget_percent: percent,
            budget_bytes: budget,
            seconds,
            job_seconds: number("/seconds"),
            peak_rss: number("/budget/peak_data_rss") as u64,
            ssd_written: (number("/spill/spilled_bytes") + number("/spill/cache_written_bytes"))
                as u64,
            ssd_read: (number("/spill/spill_read_bytes") + number("/spill/cache_read_bytes"))
                as u64,
            slowdown: 1.0,
            error: None,
            timed_out_after: None,
        })
    }
}

/// The results as a Markdown table, one row per job and budget, a column
/// pair (seconds, slowdown) per mode.
pub fn table(results: &[RunResult]) -> String {
    let mut modes: Vec<Confinement> = Vec::new();
    let mut rows: Vec<(BenchJob, u64, f64)> = Vec::new();
    for r in results {
        if !modes.contains(&r.mode) {
            modes.push(r.mode);
        }
        if !rows
            .iter()
            .any(|(j, _, p)| *j == r.job && *p == r.budget_percent)
        {
            rows.push((r.job, r.budget_bytes, r.budget_percent));
        }
    }
    let mut out = String::from("| job | DRAM budget |");
    for mode in &modes {
        out.push_str(&format!(" {} s | {} slowdown |", name(*mode), name(*mode)));
    }
    out.push_str("\n|---|---|");
    out.push_str(&"---|---|".repeat(modes.len()));
    for (job, bytes, percent) in rows {
        out.push_str(&format!(
            "\n| {} | {percent}% ({}) |",
            job.name(),
            human(bytes)
        ));
        for mode in &modes {
            let cell = results
                .iter()
                .find(|r| r.job == job && r.budget_percent == percent && r.mode == *mode);
            match cell {
                Some(RunResult {
                    timed_out_after: Some(t),
                    ..
                }) => out.push_str(&format!(" over {t:.0} (stopped) | - |")),
                Some(RunResult { error: Some(_), .. }) => out.push_str(" failed | - |"),
                Some(r) => out.push_str(&format!(" {:.2} | x{:.2} |", r.seconds, r.slowdown)),
                None => out.push_str(" - | - |"),
            }
        }
    }
    out
}

fn name(mode: Confinement) -> &'static str {
    match mode {
        Confinement::Strata => "Strata",
        Confinement::Kernel => "kernel (cgroup + swap)",
        Confinement::Spark => "Apache Spark",
    }
}
