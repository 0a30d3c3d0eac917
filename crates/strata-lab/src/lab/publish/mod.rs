//! `strata lab publish <run-dir>... [--page docs/benchmarks.md]`: rewrites the
//! rows of the page's "At a glance" table whose targets the lab measures, from
//! the `results.json` of one or more lab runs.
//!
//! - [`target`]: what a target is (figure sources, rules, its row).
//! - [`targets`]: the named targets, each with its row, figures and threshold.
//! - [`page`]: finding and rewriting a row, every other line kept byte for byte.
//!
//! Each updated row gets its figure (with the machine and the command that
//! produced it), its status against the threshold, the run's date and the
//! commit of the binary that measured ([`Results::commit_label`]). A
//! target whose figure is absent from the runs (not run, a peer skipped, a run
//! smaller than the target's size) is left as it was and reported on stderr.
//! `--quick` runs are refused unless `--allow-quick`, and even then they feed
//! only issue 33's quick-mode target: a CI run never overwrites real figures.

pub mod page;
pub mod target;
pub mod targets;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;

use super::run::{median, Results};
use crate::LabError;
use page::Update;
use targets::{Expr, Rule, Source, Target, EXPERIMENTS, TARGETS};

/// Arguments of `strata lab publish`.
#[derive(Debug, Clone, Args)]
pub struct PublishArgs {
    /// Lab run directories (or their results.json files); an experiment may be
    /// given more than once (runs of different `--only` parts): each target is
    /// read from the latest of its runs that has the target's figures.
    #[arg(required = true, value_name = "RUN_DIR")]
    pub runs: Vec<PathBuf>,

    /// The page to rewrite.
    #[arg(long, value_name = "FILE", default_value = "docs/benchmarks.md")]
    pub page: PathBuf,

    /// Accept --quick runs, for issue 33's quick-mode target only (their
    /// figures are never published for any other target).
    #[arg(long)]
    pub allow_quick: bool,
}

/// What publishing decided: the row updates and, per target left as it was, why.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Rows to rewrite.
    pub updates: Vec<Update>,
    /// "issue N, target: reason" for each target not updated.
    pub left: Vec<String>,
}

/// Loads a run directory's `results.json` (or the file itself) and checks its
/// experiment is one of the lab's.
pub fn load(path: &Path) -> Result<Results, LabError> {
    let file = if path.is_dir() {
        path.join("results.json")
    } else {
        path.to_owned()
    };
    if !file.exists() {
        return Err(LabError::Config(format!(
            "{}: no such file (give a lab run directory, which holds results.json)",
            file.display()
        )));
    }
    let results = Results::load(&file)?;
    if !EXPERIMENTS.contains(&results.experiment.as_str()) {
        return Err(LabError::Config(format!(
            "{}: unknown experiment \"{}\" (the lab's are {})",
            file.display(),
            results.experiment,
            EXPERIMENTS.join(", ")
        )));
    }
    Ok(results)
}

/// Decides every target's row from `runs` (in the order given).
pub fn decide(runs: &[Results], allow_quick: bool) -> Result<Outcome, LabError> {
    let mut full: BTreeMap<&str, Vec<&Results>> = BTreeMap::new();
    let mut quick: BTreeMap<&str, &Results> = BTreeMap::new();
    for r in runs {
        if r.quick && !allow_quick {
            return Err(LabError::Config(format!(
                "the {} run of {} is a --quick run: quick figures are not published \
                 (--allow-quick records them for issue 33's quick-mode target only)",
                r.experiment, r.started_utc
            )));
        }
        if r.quick {
            quick.insert(r.experiment.as_str(), r);
        } else {
            full.entry(r.experiment.as_str()).or_default().push(r);
        }
    }
    // Latest first; a stable sort keeps the command line's order among equals.
    for list in full.values_mut() {
        list.sort_by(|a, b| b.started_utc.cmp(&a.started_utc));
    }
    let mut out = Outcome::default();
    for t in TARGETS {
        let decided = match t.rule {
            Rule::QuickSuite(limit) => quick_suite(&quick, limit),
            _ => match full.get(t.experiment) {
                Some(list) => first_judged(t, list),
                None if quick.contains_key(t.experiment) => {
                    Err(format!("{}: quick, not a figure", t.experiment))
                }
                None => Err(format!("no {} run given", t.experiment)),
            },
        };
        match decided {
            Ok(u) => out.updates.push(u),
            Err(why) => out
                .left
                .push(format!("issue {}, \"{}\": {why}", t.issue, t.text)),
        }
    }
    Ok(out)
}

/// The target's row from the first of `runs` (latest first) that has its
/// figures; the latest run's reason when none has.
fn first_judged(t: &Target, runs: &[&Results]) -> Result<Update, String> {
    let mut first_err = None;
    for r in runs {
        match judge(t, r) {
            Ok(u) => return Ok(u),
            Err(why) => {
                first_err.get_or_insert(why);
            }
        }
    }
    Err(first_err.unwrap_or_else(|| format!("no {} run given", t.experiment)))
}

/// Runs `strata lab publish`; returns the page's path.
pub fn run(args: &PublishArgs) -> Result<PathBuf, LabError> {
    let runs = args
        .runs
        .iter()
        .map(|p| load(p))
        .collect::<Result<Vec<_>, _>>()?;
    let outcome = decide(&runs, args.allow_quick)?;
    let fail = |e: String| LabError::Config(format!("{}: {e}", args.page.display()));
    let text = std::fs::read_to_string(&args.page).map_err(|e| fail(e.to_string()))?;
    let (new, missing) = page::apply(&text, &outcome.updates).map_err(fail)?;
    for why in &outcome.left {
        eprintln!("left as it was: {why}");
    }
    for u in &missing {
        eprintln!(
            "not on the page: issue {}, \"{}\" (no row with that target)",
            u.issue, u.target
        );
    }
    if new != text {
        std::fs::write(&args.page, new).map_err(|source| LabError::WriteResult {
            path: args.page.clone(),
            source,
        })?;
    }
    let written = outcome.updates.len() - missing.len();
    eprintln!(
        "{}: {written} row(s) rewritten, {} left as they were",
        args.page.display(),
        outcome.left.len()
    );
    Ok(args.page.clone())
}

/// A figure of `r`.
fn read(r: &Results, s: Source) -> Result<f64, String> {
    match s {
        Source::Cell(table, row, col) => r
            .table(table)
            .ok_or_else(|| format!("no table \"{table}\""))?
            .get(row, col)
            .ok_or_else(|| format!("\"{table}\" has no figure at {row} / {col}")),
        Source::Measured(config, step, figure) => {
            let values: Vec<f64> = r
                .measurements
                .iter()
                .filter(|m| m.config == config && m.step == step)
                .filter_map(|m| m.figures.get(figure).copied())
                .collect();
            median(&values).ok_or_else(|| format!("no {figure} measured for {config} / {step}"))
        }
    }
}

fn eval(r: &Results, e: Expr) -> Result<f64, String> {
    match e {
        Expr::Value(s) => read(r, s),
        Expr::Ratio(a, b) => {
            let (a, b) = (read(r, a)?, read(r, b)?);
            if b > 0.0 {
                Ok(a / b)
            } else {
                Err("a ratio over zero".into())
            }
        }
    }
}

/// The target's row from one full run.
fn judge(t: &Target, r: &Results) -> Result<Update, String> {
    if let Some((name, at_least)) = t.requires {
        let value = r.parameters.get(name).and_then(serde_json::Value::as_f64);
        match value {
            Some(v) if v >= at_least => {}
            Some(v) => {
                return Err(format!(
                    "the run has {name} = {v}, the target is stated at {at_least}"
                ))
            }
            None => return Err(format!("the run does not record {name}")),
        }
    }
    let mut shown = Vec::new();
    let mut met = true;
    for (i, (label, e)) in t.figures.iter().enumerate() {
        let v = eval(r, *e)?;
        met &= match t.rule {
            Rule::AtLeast(x) => v >= x,
            Rule::AtMost(x) => v <= x,
            // A figure without bounds of its own is a target defect: not met.
            Rule::Bounds(bounds) => bounds.get(i).is_some_and(|&(lo, hi)| v >= lo && v <= hi),
            Rule::Reported | Rule::QuickSuite(_) => true,
        };
        shown.push(if t.times {
            format!("{label} {v:.2}x")
        } else {
            format!("{label} {}{}", super::table::number(v), t.unit)
        });
    }
    let status = match (t.rule, met) {
        (Rule::Reported, _) => "reported",
        (_, true) => "met",
        (_, false) => "missed",
    };
    Ok(row(
        t,
        r,
        format!("{}; {}", shown.join(", "), provenance(r)),
        status,
    ))
}

/// Issue 33's row from the quick runs of all five experiments.
fn quick_suite(quick: &BTreeMap<&str, &Results>, limit: f64) -> Result<Update, String> {
    let absent: Vec<&str> = EXPERIMENTS
        .iter()
        .copied()
        .filter(|e| !quick.contains_key(e))
        .collect();
    if !absent.is_empty() {
        return Err(format!(
            "needs a --quick run of every experiment (--allow-quick); missing: {}",
            absent.join(", ")
        ));
    }
    let runs: Vec<&Results> = EXPERIMENTS.iter().map(|e| quick[e]).collect();
    let total: f64 = runs.iter().map(|r| r.elapsed_secs).sum();
    let tables: usize = runs.iter().map(|r| r.tables.len()).sum();
    let verdicts = runs
        .iter()
        .flat_map(|r| &r.tables)
        .filter(|t| !t.verdict.is_empty())
        .count();
    let each: Vec<String> = runs
        .iter()
        .map(|r| format!("{} {:.0} s", r.experiment, r.elapsed_secs))
        .collect();
    let latest = runs
        .iter()
        .max_by(|a, b| a.started_utc.cmp(&b.started_utc))
        .copied()
        .unwrap_or(runs[0]);
    let figure = format!(
        "all five quick modes end to end in {total:.0} s ({}); {verdicts} of {tables} tables with a verdict; {}",
        each.join(", "),
        provenance(latest)
    );
    let status = if total < limit && verdicts == tables {
        "met"
    } else {
        "missed"
    };
    let t = TARGETS
        .iter()
        .find(|t| matches!(t.rule, Rule::QuickSuite(_)))
        .ok_or("no quick-suite target")?;
    Ok(row(t, latest, figure, status))
}

fn row(t: &Target, r: &Results, figure: String, status: &str) -> Update {
    Update {
        issue: t.issue.into(),
        target: t.text.into(),
        figure,
        status: status.into(),
        date: r
            .started_utc
            .get(..16)
            .unwrap_or(&r.started_utc)
            .replace('T', " "),
        commit: r.commit_label(),
    }
}

/// The machine and the command of a run, for the figure cell.
fn provenance(r: &Results) -> String {
    let m = &r.machine;
    let mut words = r.command.split_whitespace();
    let program = words
        .next()
        .and_then(|p| Path::new(p).file_name())
        .map_or("strata".into(), |p| p.to_string_lossy().into_owned());
    let rest: Vec<&str> = words.collect();
    format!(
        "{} round(s), {} cores {}, {:.1} GiB; `{program} {}`",
        r.rounds,
        m.cores,
        m.cpu_model,
        m.memory_bytes as f64 / (1u64 << 30) as f64,
        rest.join(" ")
    )
}
