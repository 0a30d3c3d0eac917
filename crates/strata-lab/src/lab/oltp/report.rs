//! The tables of `strata lab oltp` (throughput and abort ratio per log
//! device beside the seed's, DBx1000 beside Strata) and the plots.

use super::plan::{ABORTS, CCS, LOGS, SEED_ABORTS, THROUGHPUT};
use crate::lab::plot::{bar_chart, Bars};
use crate::lab::run::Run;
use crate::lab::table::{ratio, Cell, Table};

pub(super) fn tables(run: &mut Run, with_dbx: bool) {
    let cols: Vec<&str> = CCS.iter().map(|c| c.0).collect();
    let mut throughput = Table::new(
        THROUGHPUT,
        "committed transactions/s, median over rounds",
        &cols,
    );
    let mut aborts = Table::new(
        ABORTS,
        "aborted attempts per commit, median over rounds",
        &cols,
    );
    for (i, (log_label, _)) in LOGS.iter().enumerate() {
        let cell = |figure: &str| {
            CCS.iter()
                .map(|(cc, _, _)| {
                    Cell::from_option(
                        run.median(&format!("{cc}, log {log_label}"), "tpcc", figure),
                        "no measurement",
                    )
                })
                .collect()
        };
        throughput.push(log_label, cell("txn_per_s"), None);
        aborts.push(
            log_label,
            cell("abort_ratio"),
            Some(SEED_ABORTS[i].iter().map(|&v| Some(v)).collect()),
        );
    }
    let t = |log: &str, cc: &str| throughput.get(log, cc);
    let silo_nolog = ratio(t("none", "Silo"), t("none", "NO_WAIT"));
    let nvm_gain: Vec<f64> = ["RAM disk", "pmem"]
        .iter()
        .flat_map(|d| ["NO_WAIT", "Silo"].map(|cc| ratio(t(d, cc), t("SSD", cc))))
        .flatten()
        .collect();
    let nw_over_silo: Vec<f64> = ["RAM disk", "pmem"]
        .iter()
        .filter_map(|d| ratio(t(d, "NO_WAIT"), t(d, "Silo")))
        .collect();
    let fmt = |v: &[f64]| {
        v.iter()
            .map(|r| format!("{r:.2}x"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let holds = |b: bool| if b { "holds" } else { "does not hold" };
    throughput.verdict = format!(
        "The seed: without logging Silo is ~18% faster than NO_WAIT; NVM log devices raise \
         throughput 2-4x over the SSD; and with logging on NVM, NO_WAIT beats Silo (2.4x on the \
         RAM disk, 1.5x on DCPMM). Here: Silo / NO_WAIT without logging is {} ({}); NVM over SSD \
         is {} ({}); NO_WAIT / Silo on RAM disk and pmem is {} ({}).",
        silo_nolog.map_or("not measured".into(), |r| format!("{r:.2}x")),
        holds(silo_nolog.is_some_and(|r| r > 1.0)),
        fmt(&nvm_gain),
        holds(!nvm_gain.is_empty() && nvm_gain.iter().all(|&r| r >= 2.0)),
        fmt(&nw_over_silo),
        holds(!nw_over_silo.is_empty() && nw_over_silo.iter().all(|&r| r > 1.0)),
    );
    let silo_more: Vec<bool> = LOGS
        .iter()
        .filter_map(|(d, _)| Some(aborts.get(d, "Silo")? > aborts.get(d, "NO_WAIT")?))
        .collect();
    aborts.verdict = format!(
        "The seed: Silo aborts more than NO_WAIT with every log device (most of all on the SSD, \
         where its abort ratio passed 1). Here Silo aborts more on {} of {} log devices: the \
         seed's conclusion {}.",
        silo_more.iter().filter(|&&b| b).count(),
        silo_more.len(),
        holds(!silo_more.is_empty() && silo_more.iter().all(|&b| b))
    );
    let mut dbx = Table::new(
        "DBx1000 beside Strata, no logging",
        "transactions/s and aborts per commit",
        &["txn/s", "abort ratio"],
    );
    for (cc, _, _) in CCS {
        let row = |config: &str, figure: &str| {
            if config.starts_with("DBx1000") && !with_dbx {
                Cell::Skipped("no --dbx1000-src".into())
            } else {
                Cell::from_option(
                    run.median(config, "tpcc", figure),
                    "run failed (see Not run)",
                )
            }
        };
        for config in [format!("DBx1000 {cc}"), format!("{cc}, log none")] {
            let label = if config.starts_with("DBx1000") {
                config.clone()
            } else {
                format!("Strata {cc}")
            };
            dbx.push(
                &label,
                vec![row(&config, "txn_per_s"), row(&config, "abort_ratio")],
                None,
            );
        }
    }
    dbx.verdict = match ratio(dbx.get("Strata NO_WAIT", "txn/s"), dbx.get("DBx1000 NO_WAIT", "txn/s")) {
        Some(r) => format!("Strata's engine runs the same mix at {r:.2}x DBx1000's NO_WAIT throughput on this machine."),
        None => "DBx1000 was not run, so there is no side-by-side figure.".into(),
    };
    run.results.tables.extend([throughput, aborts, dbx]);
}

pub(super) fn plots(run: &mut Run) {
    let categories: Vec<String> = LOGS.iter().map(|l| l.0.to_owned()).collect();
    for (stem, title, unit, figure) in [
        (
            "throughput",
            "TPC-C throughput per log device",
            "transactions/s",
            "txn_per_s",
        ),
        (
            "abort-ratio",
            "Abort ratio per log device",
            "aborts per commit",
            "abort_ratio",
        ),
    ] {
        let series: Vec<(String, Vec<Option<f64>>)> = CCS
            .iter()
            .map(|(cc, _, _)| {
                let values = LOGS
                    .iter()
                    .map(|(l, _)| run.median(&format!("{cc}, log {l}"), "tpcc", figure))
                    .collect();
                ((*cc).to_owned(), values)
            })
            .collect();
        let bars = Bars::from_series(&series);
        let out = bar_chart(&run.dir, stem, title, unit, &categories, &bars);
        run.plotted(out);
    }
}
