//! The throughput and latency tables per persistence mode and peer, with
//! the seed's conclusions checked, and their plots.

use super::plan::{CONFIGS, PHASES, THROUGHPUT};
use crate::lab::plot::{bar_chart, Bars};
use crate::lab::run::Run;
use crate::lab::table::{number, ratio, Cell, Table};

/// The throughput and latency tables.
pub(super) fn tables(run: &mut Run, missing: &[&str]) {
    let skipped = |label: &str| missing.contains(&label);
    let cell = |run: &Run, label: &str, step: &str, figure: &str| {
        if skipped(label) {
            Cell::Skipped("not installed".into())
        } else {
            Cell::from_option(run.median(label, step, figure), "no measurement")
        }
    };
    let columns: Vec<&str> = PHASES.iter().map(|p| p.0).collect();
    let mut throughput = Table::new(THROUGHPUT, "operations/s, median over rounds", &columns);
    for (label, _) in CONFIGS {
        let cells = PHASES
            .iter()
            .map(|(p, _)| cell(run, label, p, "ops_per_sec"))
            .collect();
        throughput.push(label, cells, None);
    }
    let off = "strata, persistence off";
    let get = |label: &str, phase: &str| throughput.get(label, phase);
    let sync_mix = ratio(get("strata, sync logging", "1:9"), get(off, "1:9"));
    let async_mix = ratio(get("strata, async logging", "1:9"), get(off, "1:9"));
    let reads = ratio(
        get("strata, sync logging", "uniform reads"),
        get(off, "uniform reads"),
    );
    let pct = |r: Option<f64>| r.map_or("not measured".into(), |r| format!("{:.0}%", r * 100.0));
    let gap = match (get(off, "1:9"), get("strata, sync logging", "1:9")) {
        (Some(a), Some(b)) if a >= b => format!("{} ops/s below it", number(a - b)),
        (Some(a), Some(b)) => format!("{} ops/s above it", number(b - a)),
        _ => "the gap not measured".into(),
    };
    let cheap = sync_mix.is_some_and(|r| r >= 0.8) && reads.is_some_and(|r| r >= 0.9);
    throughput.verdict = format!(
        "The seed: persistence costs little (synchronous logging ~20k ops/s below the plain cache \
         on the 1:9 mix) and reads are unaffected. Here, on the 1:9 mix, async logging keeps {} \
         and sync logging {} of the plain cache's throughput ({gap}), and reads \
         with sync logging run at {} of the plain cache's: the seed's conclusion {}.",
        pct(async_mix),
        pct(sync_mix),
        pct(reads),
        if cheap {
            "holds here"
        } else {
            "does not hold here (see the fsync latency above: each sync write waits for the device)"
        }
    );
    run.results.tables.push(throughput);

    for (phase, _) in PHASES {
        let mut t = Table::new(
            &format!("Latency, {phase}"),
            "milliseconds, median over rounds",
            &["avg", "p90", "p95", "p99"],
        );
        for (label, _) in CONFIGS {
            let cells = ["mean_ms", "p90_ms", "p95_ms", "p99_ms"]
                .iter()
                .map(|f| cell(run, label, phase, f))
                .collect();
            t.push(label, cells, None);
        }
        let r = ratio(t.get("strata, sync logging", "avg"), t.get(off, "avg"));
        let a = ratio(t.get("strata, async logging", "avg"), t.get(off, "avg"));
        t.verdict = format!(
            "Average latency against the plain cache in this phase: async logging {}, sync logging {}. \
             The seed saw persistence add little latency{}; here that {}.",
            r_x(a),
            r_x(r),
            if phase == "uniform reads" { " and none to reads" } else { "" },
            if r.is_some_and(|r| r <= 1.5) { "holds" } else { "does not hold for synchronous logging" }
        );
        run.results.tables.push(t);
    }
}

fn r_x(r: Option<f64>) -> String {
    r.map_or("not measured".into(), |r| format!("{r:.2}x"))
}

/// Bar charts of throughput and latency per phase.
pub(super) fn plots(run: &mut Run) {
    let categories: Vec<String> = PHASES.iter().map(|p| p.0.to_owned()).collect();
    for (stem, title, unit, figure) in [
        (
            "throughput",
            "Throughput per persistence mode",
            "operations/s",
            "ops_per_sec",
        ),
        (
            "latency-p99",
            "p99 latency per persistence mode",
            "ms",
            "p99_ms",
        ),
    ] {
        let series: Vec<(String, Vec<Option<f64>>)> = CONFIGS
            .iter()
            .map(|(l, _)| {
                (
                    (*l).to_owned(),
                    PHASES.iter().map(|p| run.median(l, p.0, figure)).collect(),
                )
            })
            .collect();
        let bars = Bars::from_series(&series);
        let out = bar_chart(&run.dir, stem, title, unit, &categories, &bars);
        run.plotted(out);
    }
}
