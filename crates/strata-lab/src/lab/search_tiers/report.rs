//! Table 4 (indexing, search and mixed latency per tier) with its best row,
//! ratios to the seed and verdict, and the plots.

use super::plan::{PEER, SEED, SEED_BEST, TABLE4, TARGETS, TIERS};
use crate::lab::plot::{bar_chart, Bars};
use crate::lab::run::Run;
use crate::lab::table::{ratio, Cell, Table};

/// Table rows: the tiers, then the peer (its cells skipped when it was not run).
fn rows() -> Vec<&'static str> {
    TIERS.iter().map(|t| t.0).chain([PEER]).collect()
}

/// Table 4 and the seed's figures beside it.
pub(super) fn tables(run: &mut Run, with_peer: bool) {
    let cols = [
        "indexing docs/s",
        "search latency ms",
        "mixed relative latency ms",
        "mixed current latency ms",
    ];
    let mut t4 = Table::new(
        TABLE4,
        "medians over rounds; mixed at 60% of the tier's indexing rate",
        &cols,
    );
    for (i, label) in rows().into_iter().enumerate() {
        let get = |step: &str, fig: &str| {
            if label == PEER && !with_peer {
                Cell::Skipped("peer not run".into())
            } else {
                Cell::from_option(run.median(label, step, fig), "no measurement")
            }
        };
        let cells = vec![
            get("index+query", "docs_per_sec"),
            get("index+query", "search_ms"),
            get("mixed 60%", "relative_ms"),
            get("mixed 60%", "current_ms"),
        ];
        let seed = SEED
            .get(i)
            .map(|s| s.iter().map(|&v| Some(v)).chain([None]).collect());
        t4.push(label, cells, seed.filter(|_| label != PEER));
    }
    // The seed's "best" row: the best tier per column and its ratio to the seed's DRAM
    // configuration (here `ssd, small cache`).
    let base = "ssd, small cache";
    let mut best_names = Vec::new();
    let mut best_cells = Vec::new();
    for (c, col) in cols.iter().enumerate() {
        let higher_is_better = c == 0;
        let best = TIERS
            .iter()
            .filter_map(|(l, _)| Some((*l, t4.get(l, col)?)))
            .reduce(|a, b| {
                if (b.1 > a.1) == higher_is_better {
                    b
                } else {
                    a
                }
            });
        let r = best.and_then(|(name, v)| {
            best_names.push(format!("{col}: {name}"));
            let b = t4.get(base, col)?;
            Some(if higher_is_better { v / b } else { b / v })
        });
        best_cells.push(Cell::from_option(r, "not measured"));
    }
    let seed_best = SEED_BEST.iter().map(|&v| Some(v)).chain([None]).collect();
    t4.push(
        "best (ratio over ssd, small cache)",
        best_cells,
        Some(seed_best),
    );
    let idx = ratio(t4.get("pmem", cols[0]), t4.get(base, cols[0]));
    let search = ratio(t4.get(base, cols[1]), t4.get("dram", cols[1]));
    let mixed = ratio(t4.get(base, cols[2]), t4.get("dram", cols[2]));
    let show = |r: Option<f64>| r.map_or("not measured".into(), |r| format!("{r:.2}x"));
    // "Wins" means by more than the rounds' noise: 5%.
    let holds = |r: Option<f64>| {
        if r.is_some_and(|r| r > 1.05) {
            "holds"
        } else {
            "does not hold"
        }
    };
    t4.verdict = format!(
        "Best per column: {}. The seed: indexing is bound by storage, so fast persistent storage \
         wins (PMEM-AD 1.45x): here pmem indexes at {} the ssd tier's rate ({}). Searching older \
         data is bound by how much of the index stays cached, so large memory wins (1.09x search, \
         3.2x mixed): here dram is {} faster than the small-cache ssd tier at search ({}) and {} \
         in the mixed phase ({}).",
        best_names.join("; "),
        show(idx),
        holds(idx),
        show(search),
        holds(search),
        show(mixed),
        holds(mixed),
    );

    let mcols: Vec<String> = TARGETS
        .iter()
        .flat_map(|(t, _)| {
            [
                format!("{t} relative ms"),
                format!("{t} current ms"),
                format!("{t} docs/s"),
            ]
        })
        .collect();
    let mcols_ref: Vec<&str> = mcols.iter().map(String::as_str).collect();
    let mut mixed_t = Table::new(
        "Mixed phase at three indexing targets",
        "dashboard latency and achieved indexing rate, medians over rounds",
        &mcols_ref,
    );
    for label in rows() {
        let cells = TARGETS
            .iter()
            .flat_map(|(t, _)| {
                ["relative_ms", "current_ms", "achieved_docs_per_sec"].map(|f| {
                    if label == PEER && !with_peer {
                        Cell::Skipped("peer not run".into())
                    } else {
                        Cell::from_option(
                            run.median(label, &format!("mixed {t}"), f),
                            "no measurement",
                        )
                    }
                })
            })
            .collect();
        mixed_t.push(label, cells, None);
    }
    let rising: Vec<bool> = TIERS
        .iter()
        .filter_map(|(l, _)| {
            Some(mixed_t.get(l, "90% relative ms")? > mixed_t.get(l, "30% relative ms")?)
        })
        .collect();
    mixed_t.verdict = format!(
        "The seed: higher indexing targets raise query latency. Here relative-window latency at \
         90% of the indexing rate is above that at 30% for {} of {} tiers: the conclusion {}.",
        rising.iter().filter(|&&b| b).count(),
        rising.len(),
        if !rising.is_empty() && rising.iter().all(|&b| b) {
            "holds"
        } else {
            "does not hold everywhere"
        }
    );
    run.results.tables.extend([t4, mixed_t]);
}

/// Bar charts of Table 4's columns.
pub(super) fn plots(run: &mut Run) {
    let tiers: Vec<String> = TIERS.iter().map(|t| t.0.to_owned()).collect();
    let one = |run: &Run, step: &str, fig: &str| -> Vec<Option<f64>> {
        TIERS
            .iter()
            .map(|(l, _)| run.median(l, step, fig))
            .collect()
    };
    let indexing = one(run, "index+query", "docs_per_sec");
    let out = bar_chart(
        &run.dir,
        "indexing",
        "Indexing throughput per tier",
        "documents/s",
        &tiers,
        &[Bars {
            name: "indexing",
            values: indexing,
        }],
    );
    run.plotted(out);
    let lat = [
        ("search", one(run, "index+query", "search_ms")),
        ("mixed relative", one(run, "mixed 60%", "relative_ms")),
        ("mixed current", one(run, "mixed 60%", "current_ms")),
    ];
    let bars = Bars::from_series(&lat);
    let out = bar_chart(
        &run.dir,
        "latency",
        "Dashboard latency per tier",
        "ms (mean)",
        &tiers,
        &bars,
    );
    run.plotted(out);
    let targets: Vec<String> = TARGETS
        .iter()
        .map(|t| format!("{} of indexing rate", t.0))
        .collect();
    let series: Vec<(String, Vec<Option<f64>>)> = TIERS
        .iter()
        .map(|(l, _)| {
            (
                (*l).to_owned(),
                TARGETS
                    .iter()
                    .map(|(t, _)| run.median(l, &format!("mixed {t}"), "relative_ms"))
                    .collect(),
            )
        })
        .collect();
    let bars = Bars::from_series(&series);
    let out = bar_chart(
        &run.dir,
        "mixed-targets",
        "Relative-window latency against the indexing target",
        "ms (mean)",
        &targets,
        &bars,
    );
    run.plotted(out);
}
