//! The throughput, latency and restart tables per placement with the
//! seed's figures and verdicts, and the plots.

use super::plan::{LATENCY, PLACEMENTS, RESTART, SEED, THROUGHPUT, WORKLOADS};
use crate::lab::plot::{bar_chart, Bars};
use crate::lab::run::Run;
use crate::lab::table::{ratio, Cell, Table};

/// The throughput, latency and restart tables.
pub(super) fn tables(run: &mut Run) {
    let columns: Vec<&str> = WORKLOADS.iter().map(|w| w.0).collect();
    let mut throughput = Table::new(THROUGHPUT, "operations/s, median over rounds", &columns);
    for &(label, _, _) in &PLACEMENTS {
        let cells = WORKLOADS
            .iter()
            .map(|(w, _)| Cell::from_option(run.median(label, w, "ops_per_sec"), "no measurement"))
            .collect();
        let seed = SEED
            .iter()
            .find(|s| s.0 == label)
            .map(|s| s.1.iter().map(|&v| Some(v)).collect());
        throughput.push(label, cells, seed);
    }
    throughput.verdict = throughput_verdict(&throughput);

    let lat_cols = [
        "50/50 p50",
        "50/50 p99",
        "100% read p50",
        "100% read p99",
        "100% write p50",
        "100% write p99",
    ];
    let mut latency = Table::new(LATENCY, "milliseconds, median over rounds", &lat_cols);
    for &(label, _, _) in &PLACEMENTS {
        let cells = WORKLOADS
            .iter()
            .flat_map(|(w, _)| {
                ["p50_ms", "p99_ms"]
                    .map(|f| Cell::from_option(run.median(label, w, f), "no measurement"))
            })
            .collect();
        latency.push(label, cells, None);
    }
    let worst_p99 = PLACEMENTS
        .iter()
        .flat_map(|p| {
            WORKLOADS
                .iter()
                .filter_map(|w| run.median(p.0, w.0, "p99_ms"))
        })
        .fold(0.0f64, f64::max);
    latency.verdict =
        format!(
        "The seed: nearly all requests completed in under a millisecond. Here the slowest p99 of \
         any placement and workload is {:.3} ms, so the claim {} on this machine (its clients \
         share the cores with the server).",
        worst_p99,
        if worst_p99 < 1.0 { "holds" } else { "does not hold" }
    );

    let mut restart = Table::new(
        RESTART,
        "seconds from process start to serving; keys found after",
        &["restart s", "keys restored"],
    );
    for &(label, _, data) in &PLACEMENTS {
        let cells = if data == "dram" {
            let why = "not persistent";
            vec![Cell::Skipped(why.into()), Cell::Skipped(why.into())]
        } else {
            vec![
                Cell::from_option(
                    run.median(label, "restart", "restart_secs"),
                    "no measurement",
                ),
                Cell::from_option(
                    run.median(label, "restart", "keys_restored"),
                    "no measurement",
                ),
            ]
        };
        restart.push(label, cells, None);
    }
    let faster = |fast: &str, slow: &str| {
        ratio(
            restart.get(slow, "restart s"),
            restart.get(fast, "restart s"),
        )
    };
    let ssd = faster("index pmem, data ssd", "index dram, data ssd");
    let pm = faster("index pmem, data pmem", "index dram, data pmem");
    let show = |r: Option<f64>| r.map_or("not measured".into(), |r| format!("{r:.1}x"));
    let holds = ssd.is_some_and(|r| r > 1.0) && pm.is_some_and(|r| r > 1.0);
    restart.verdict = format!(
        "The seed: with the index in persistent memory the node serves again without scanning \
         the records to rebuild it. Here the DRAM index's restart takes {} the pmem index's over \
         SSD records and {} over pmem records (above 1x: the pmem index is faster): the claim {}.",
        show(ssd),
        show(pm),
        if holds { "holds" } else { "does not hold" }
    );
    run.results.tables.extend([throughput, latency, restart]);
}

fn throughput_verdict(t: &Table) -> String {
    let index_cost: Vec<Option<f64>> = WORKLOADS
        .iter()
        .map(|(w, _)| {
            ratio(
                t.get("index pmem, data ssd", w),
                t.get("index dram, data ssd", w),
            )
        })
        .collect();
    let worst = index_cost
        .iter()
        .flatten()
        .fold(f64::INFINITY, |a, &b| a.min(b));
    let data_gain = ratio(
        t.get("index pmem, data pmem", "50/50"),
        t.get("index pmem, data ssd", "50/50"),
    );
    let first =
        if worst.is_finite() {
            format!(
            "Moving the index from DRAM to persistent memory (records on SSD) keeps {:.0}% of the \
             throughput at worst (seed: 95-99%), so \"it costs almost nothing\" {}",
            worst * 100.0,
            if worst >= 0.9 { "holds here" } else { "does not hold here" }
        )
        } else {
            "The index's cost could not be computed (a placement was not measured)".into()
        };
    let second = match data_gain {
        Some(g) => format!(
            "Putting the records in persistent memory too gives {g:.2}x on the 50/50 mix (seed: \
             1.30x): the seed's gain {}",
            if g >= 1.1 { "holds" } else { "does not hold" }
        ),
        None => "the records' gain could not be computed".into(),
    };
    format!("{first}. {second}. The seed's absolute figures come from 2 sockets, 10 NVMe SSDs and 4 client machines; the ratios to them say how far this machine is from that one, not whether Strata is slower.")
}

/// Bar charts of throughput and latency per placement.
pub(super) fn plots(run: &mut Run) {
    let categories: Vec<String> = WORKLOADS.iter().map(|w| w.0.to_owned()).collect();
    let series = |figure: &str, run: &Run| -> Vec<(String, Vec<Option<f64>>)> {
        PLACEMENTS
            .iter()
            .map(|p| {
                (
                    p.0.to_owned(),
                    WORKLOADS
                        .iter()
                        .map(|w| run.median(p.0, w.0, figure))
                        .collect(),
                )
            })
            .collect()
    };
    for (stem, title, unit, figure) in [
        (
            "throughput",
            "Throughput per placement",
            "operations/s",
            "ops_per_sec",
        ),
        ("latency-p99", "p99 latency per placement", "ms", "p99_ms"),
    ] {
        let s = series(figure, run);
        let bars = Bars::from_series(&s);
        let out = bar_chart(&run.dir, stem, title, unit, &categories, &bars);
        run.plotted(out);
    }
    let persistent: Vec<&str> = PLACEMENTS
        .iter()
        .filter(|p| p.2 != "dram")
        .map(|p| p.0)
        .collect();
    let values: Vec<Option<f64>> = persistent
        .iter()
        .map(|p| run.median(p, "restart", "restart_secs"))
        .collect();
    let cats: Vec<String> = persistent.iter().map(|p| (*p).to_owned()).collect();
    let out = bar_chart(
        &run.dir,
        "restart",
        "Restart after kill -9",
        "seconds",
        &cats,
        &[Bars {
            name: "restart",
            values,
        }],
    );
    run.plotted(out);
}
