//! `strata lab oltp` (seed 003, DBx1000 with Taurus logging): TPC-C with
//! NO_WAIT and Silo against the log device (none, SSD, RAM disk, persistent
//! memory), throughput and abort ratio (aborts per commit), on Strata's
//! transaction engine in process (`strata bench tpcc` through [`Hooks::tpcc`]);
//! DBx1000 itself beside it when `--dbx1000-src` gives its source
//! (`scripts/peers/dbx1000` builds and runs it), skipped with a line otherwise.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;

use super::common::{secs, CommonArgs, Hooks};
use super::plot::{bar_chart, Bars};
use super::run::{Measurement, Run};
use super::table::{ratio, Cell, Table};
use crate::LabError;

/// Arguments of `strata lab oltp`.
#[derive(Debug, Clone, Args)]
pub struct OltpArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,

    /// DBx1000 source tree for the peer run (see scripts/peers/dbx1000). Without it
    /// the tree `scripts/peers/dbx1000 --install SRC` (or `clone`) keeps in
    /// target/peers/dbx1000/src is used, and DBx1000 is skipped when there is none.
    #[arg(long, value_name = "DIR")]
    pub dbx1000_src: Option<PathBuf>,

    /// Run no DBx1000, even when its source is installed.
    #[arg(long, conflicts_with = "dbx1000_src")]
    pub no_peer: bool,

    /// Directory holding the peer scripts.
    #[arg(long, value_name = "DIR", default_value = "scripts/peers")]
    pub peers_dir: PathBuf,
}

/// (column, `--cc`, DBx1000's CC_ALG).
const CCS: [(&str, &str, &str); 2] = [("NO_WAIT", "no_wait", "NO_WAIT"), ("Silo", "silo", "SILO")];

/// (row, `--log`): the seed's log devices.
const LOGS: [(&str, &str); 4] = [
    ("none", "none"),
    ("SSD", "file"),
    ("RAM disk", "ramdisk"),
    ("pmem", "pmem"),
];

/// The seed's abort ratios (rows as [`LOGS`], columns NO_WAIT, Silo).
const SEED_ABORTS: [[f64; 2]; 4] = [
    [0.00929, 0.03085],
    [0.00050, 1.46235],
    [0.00429, 0.01273],
    [0.00738, 0.01209],
];

/// Title of the throughput table.
pub const THROUGHPUT: &str = "TPC-C throughput per log device";
/// Title of the abort-ratio table.
pub const ABORTS: &str = "Abort ratio (aborts / commits) per log device";

/// Runs the experiment.
pub fn run(args: &OltpArgs, hooks: &Hooks) -> Result<PathBuf, LabError> {
    let common = &args.common;
    common.in_this_executable("oltp")?;
    let Some(tpcc) = hooks.tpcc else {
        return Err(LabError::NotAvailable(
            "strata lab oltp: not available in this build (no TPC-C engine)".into(),
        ));
    };
    let quick = common.quick;
    let (warehouses, duration, warmup) = if quick { (1, 1.0, 0.3) } else { (2, 10.0, 2.0) };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let per_config = secs(duration + warmup + if quick { 2.0 } else { 6.0 });
    let rounds = common.rounds();
    let dbx_src = dbx1000_source(args);
    let dbx_runs = if dbx_src.is_ok() { CCS.len() } else { 0 };
    let planned = per_config * ((CCS.len() * LOGS.len() + dbx_runs) * rounds) as u32;
    // In this executable (the measured binary is the lab's own).
    let mut run = Run::start("oltp", "003", common, planned, None)?;
    run.param("warehouses", warehouses);
    run.param("threads", threads);
    run.param("duration_secs", duration);
    run.param("warmup_secs", warmup);
    run.param(
        "mix",
        "dbx1000 (NewOrder and Payment 50/50, as DBx1000's master branch)",
    );
    let tag = std::process::id();
    for round in 0..rounds {
        for (log_label, log) in LOGS {
            for (cc_label, cc, _) in CCS {
                let config = format!("{cc_label}, log {log_label}");
                run.progress.step(&config, &format!("round {}", round + 1));
                let mut argv: Vec<String> = [
                    "--cc",
                    cc,
                    "--log",
                    log,
                    "--mix",
                    "dbx1000",
                    "--no-progress",
                ]
                .into_iter()
                .map(String::from)
                .collect();
                argv.extend([
                    format!("--warehouses={warehouses}"),
                    format!("--threads={threads}"),
                    format!("--duration={duration}"),
                    format!("--warmup={warmup}"),
                    format!("--seed={}", round + 1),
                ]);
                let dir = match log {
                    "none" => None,
                    "file" => Some(run.data_dir.join(format!("strata-lab-tpcc-{tag}"))),
                    "ramdisk" => {
                        Some(PathBuf::from("/dev/shm").join(format!("strata-lab-tpcc-{tag}-ram")))
                    }
                    _ => Some(run.pmem_dir.join(format!("strata-lab-tpcc-{tag}-pmem"))),
                };
                if let Some(dir) = &dir {
                    argv.push(format!("--log-path={}", dir.display()));
                }
                let outcome = tpcc(&argv);
                if let Some(dir) = &dir {
                    let _ = std::fs::remove_dir_all(dir);
                }
                let result = outcome.map_err(|e| {
                    LabError::Check(format!("strata bench tpcc {}: {e}", argv.join(" ")))
                })?;
                let mut figures = BTreeMap::new();
                for name in [
                    "txn_per_s",
                    "abort_ratio",
                    "commits",
                    "aborts",
                    "cpu_us_per_txn",
                ] {
                    if let Some(v) = result[name].as_f64() {
                        figures.insert(name.to_owned(), v);
                    }
                }
                if let Some(p99) = result["latency_us"]["p99"].as_f64() {
                    figures.insert("p99_us".into(), p99);
                }
                run.measured(Measurement {
                    config: config.clone(),
                    step: "tpcc".into(),
                    round,
                    command: format!("strata bench tpcc {}", argv.join(" ")),
                    figures,
                    raw: result,
                });
                run.progress.done(per_config);
            }
        }
        if let Ok(src) = &dbx_src {
            dbx1000(
                &mut run,
                (args, src),
                round,
                (threads, warehouses),
                per_config,
            );
        }
    }
    if let Err(why) = &dbx_src {
        run.skip("DBx1000", why);
    }
    tables(&mut run, dbx_src.is_ok());
    plots(&mut run);
    run.finish(
        "The seed ran TPC-C on DBx1000 (500 warehouses, 48 clients) with NO_WAIT and Silo, \
         without logging and with Taurus logging to a SATA SSD, a RAM disk and Optane DCPMM. \
         Here Strata's transaction engine runs the same mix in process with each log device: \
         `SSD` is the data directory's disk (fdatasync), `RAM disk` a file on /dev/shm, `pmem` \
         the persistent-memory log in the pmem directory.",
    )
}

/// Where `scripts/peers/dbx1000 --install` (or `clone`) keeps the source.
const INSTALLED_DBX1000: &str = "target/peers/dbx1000/src";

/// DBx1000's source tree, or why DBx1000 does not run.
fn dbx1000_source(args: &OltpArgs) -> Result<PathBuf, String> {
    if let Some(src) = &args.dbx1000_src {
        return Ok(src.clone());
    }
    if args.no_peer {
        return Err("--no-peer given".into());
    }
    let installed = PathBuf::from(INSTALLED_DBX1000);
    if installed.join("config.h").is_file() {
        return Ok(installed);
    }
    Err(format!(
        "no --dbx1000-src given and none installed in {INSTALLED_DBX1000} \
         (scripts/peers/dbx1000 --install SRC keeps a source tree there)"
    ))
}

fn dbx1000(
    run: &mut Run,
    (args, src): (&OltpArgs, &Path),
    round: usize,
    (threads, warehouses): (usize, u32),
    planned: Duration,
) {
    let script = args.peers_dir.join("dbx1000");
    for (cc_label, _, alg) in CCS {
        let config = format!("DBx1000 {cc_label}");
        run.progress.step(&config, &format!("round {}", round + 1));
        let argv = [
            src.display().to_string(),
            "--cc".into(),
            alg.into(),
            "--threads".into(),
            threads.to_string(),
            "--warehouses".into(),
            warehouses.to_string(),
        ];
        let command = format!("{} {}", script.display(), argv.join(" "));
        let output = std::process::Command::new(&script).args(&argv).output();
        let line = match output {
            Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout)
                .lines()
                .last()
                .unwrap_or("")
                .to_owned(),
            Ok(o) => {
                let why = String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .last()
                    .unwrap_or("failed")
                    .to_owned();
                run.skip(&config, &format!("{command}: {why}"));
                continue;
            }
            Err(e) => {
                run.skip(&config, &format!("{command}: {e}"));
                continue;
            }
        };
        let figures: BTreeMap<String, f64> = line
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .filter_map(|(k, v)| Some((k.to_owned(), v.parse::<f64>().ok()?)))
            .collect();
        run.measured(Measurement {
            config,
            step: "tpcc".into(),
            round,
            command,
            figures,
            raw: serde_json::Value::String(line),
        });
        run.progress.done(planned);
    }
}

fn tables(run: &mut Run, with_dbx: bool) {
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

fn plots(run: &mut Run) {
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
