//! `strata lab oltp` (seed 003, DBx1000 with Taurus logging): TPC-C with
//! NO_WAIT and Silo against the log device (none, SSD, RAM disk, persistent
//! memory), throughput and abort ratio (aborts per commit), on Strata's
//! transaction engine in process (`strata bench tpcc` through [`Hooks::tpcc`]);
//! DBx1000 itself beside it when `--dbx1000-src` gives its source
//! (`scripts/peers/dbx1000` builds and runs it), skipped with a line otherwise.
//!
//! # Layout
//! - `plan`: the concurrency controls, log devices, the seed's figures.
//! - `dbx1000`: the peer's source and its runs.
//! - `report`: the tables and plots.

mod dbx1000;
mod plan;
mod report;

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;

use self::dbx1000::{dbx1000, dbx1000_source};
use self::plan::{CCS, LOGS};
use self::report::{plots, tables};
use super::common::{secs, CommonArgs, Hooks};
use super::run::{Measurement, Run};
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
    let dbx_src = dbx1000_source(args.dbx1000_src.as_deref(), args.no_peer);
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
                (&args.peers_dir, src),
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
