//! The tables of `strata lab swap` (run time, slowdown against the seed's,
//! Strata's peak memory against its budget) with their verdicts, and the
//! run-time plot.

use std::collections::BTreeMap;

use super::plan::{column, config, seed_slowdown, JOBS, MEMORY, RUN_TIME, SLOWDOWN, SPARK};
use crate::lab::plot::{line_chart, Line};
use crate::lab::run::Run;
use crate::lab::table::{ratio, Cell, Table};

/// Runs stopped at `--run-timeout`: (configuration, column) to the longest
/// time one ran before it was stopped.
pub(super) type Stopped = BTreeMap<(String, String), f64>;

/// Why a cell has no figure: a run stopped at the time limit says how
/// long it ran (`over` turns those seconds into the cell's bound), any
/// other failure points at the Not run list.
fn missing(
    stopped: &Stopped,
    name: &str,
    col: &str,
    over: impl Fn(f64) -> Option<String>,
) -> String {
    stopped
        .get(&(name.to_owned(), col.to_owned()))
        .and_then(|&t| over(t))
        .unwrap_or_else(|| "run failed (see Not run)".to_owned())
}

pub(super) fn tables(run: &mut Run, modes: &[(&str, &str)], budgets: &[f64], stopped: &Stopped) {
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
            let cells = |values: Vec<Option<f64>>, over: &dyn Fn(f64) -> Option<String>| {
                values
                    .into_iter()
                    .zip(&columns)
                    .map(|(v, c)| {
                        v.map_or_else(
                            || Cell::Skipped(missing(stopped, &name, c, over)),
                            Cell::Value,
                        )
                    })
                    .collect::<Vec<_>>()
            };
            let never = |_: f64| None;
            time.push(
                &name,
                cells(secs.clone(), &|t| Some(format!("over {t:.0} s (stopped)"))),
                None,
            );
            let slow = secs.iter().map(|s| ratio(*s, secs[0])).collect();
            let seed = budgets.iter().map(|&b| Some(seed_slowdown(b))).collect();
            let first = secs[0];
            let over_first =
                |t: f64| first.map(|s| format!("over {:.1}x (stopped at {t:.0} s)", t / s));
            slowdown.push(&name, cells(slow, &over_first), Some(seed));
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
                memory.push(&name, cells(used, &never), None);
            }
        }
    }
    // The smallest budget: 12.5% (75% in a quick run).
    let smallest = budgets.last().copied().unwrap_or(100.0);
    let at = |t: &Table, job: &str, mode: &str| t.get(&config(job, mode), &column(smallest));
    let mut findings = Vec::new();
    let mut verdicts = Vec::new();
    for (job, _) in JOBS {
        let own = at(&slowdown, job, "Strata");
        let kernel = ratio(
            at(&time, job, "kernel (cgroup + swap)"),
            at(&time, job, "Strata"),
        );
        let strata = at(&time, job, "Strata");
        let spark = match ratio(at(&time, job, SPARK), strata) {
            Some(r) => Some(format!("{r:.2}x")),
            // Spark stopped at the time limit: Strata is faster by at least
            // the limit over its own time.
            None => stopped
                .get(&(config(job, SPARK), column(smallest)))
                .zip(strata)
                .map(|(&t, s)| format!("more than {:.1}x (Spark stopped after {t:.0} s)", t / s)),
        };
        // The seed's conclusion, judged on the seed's own set-up (the
        // kernel confining the job): it holds from half its slowdown.
        let seed = seed_slowdown(smallest);
        let confined = at(&slowdown, job, "kernel (cgroup + swap)");
        verdicts.push(match confined {
            Some(k) => {
                format!(
                "{job} confined by the kernel slows {k:.2}x at {} ({}: the seed saw {seed:.1}x)",
                column(smallest),
                if k >= seed / 2.0 { "holds" } else { "does not hold" }
            )
            }
            None => format!("{job}: not judged (no kernel-confined run)"),
        });
        findings.push(format!(
            "{job}: Strata at {} is {} its own time at 100% (target at most 2x){}{}",
            column(smallest),
            own.map_or("not measured against".into(), |r| format!("{r:.2}x")),
            kernel.map_or(String::new(), |r| format!(
                ", and {r:.2}x faster than the kernel-confined run (target at least 3x)"
            )),
            spark.map_or(String::new(), |r| format!(
                ", and {r} faster than Spark at that budget"
            )),
        ));
    }
    slowdown.verdict = format!(
        "The seed: about 2x, 4x and 8x at one half, one quarter and one eighth of the \
         memory (run time in proportion to the memory removed). Whether that holds here \
         (counted as holding from half the seed's slowdown): {}. Strata's own budget: {}.",
        verdicts.join("; "),
        findings.join("; ")
    );
    time.verdict = "Medians over the rounds; each run is a fresh process.".into();
    memory.verdict = "Resident data is RssAnon + RssShmem sampled every 10 ms (the \
                      executable's own pages not counted); the job keeps a stated slack \
                      of max(budget / 8, 32 MiB) for memory no operator accounts for."
        .into();
    run.results.tables.extend([time, slowdown, memory]);
}

pub(super) fn plot(run: &mut Run, modes: &[(&str, &str)], budgets: &[f64]) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_stopped_at_the_limit_says_how_long_it_ran() {
        let mut stopped = Stopped::new();
        stopped.insert(("logreg / Spark".into(), "25%".into()), 120.4);
        let over = |t: f64| Some(format!("over {t:.0} s (stopped)"));
        assert_eq!(
            missing(&stopped, "logreg / Spark", "25%", over),
            "over 120 s (stopped)"
        );
        assert_eq!(
            missing(&stopped, "logreg / Spark", "50%", over),
            "run failed (see Not run)"
        );
        // No bound to give (the 100% run failed too): the generic reason.
        assert_eq!(
            missing(&stopped, "logreg / Spark", "25%", |_| None),
            "run failed (see Not run)"
        );
    }
}
