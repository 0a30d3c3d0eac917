//! `strata lab ssd-iops` (issue 35, "The SSD tier"): random-read IOPS of the
//! SSD store beside `fio` on the same file at the same queue depth.
//!
//! The store side runs in this executable through [`Hooks::ssd_reads`]: a
//! data file several times larger than any cache (the record cache off),
//! filled with records whose entries fit in one 4 KiB window, read
//! uniformly by `--depth` concurrent `fetch_async` loops, so that every read
//! is one 4 KiB `O_DIRECT` device read; once per engine (`uring`: one
//! thread keeping up to `--depth` reads in flight on its ring; `threads`:
//! `--depth` threads, one blocking read each).
//! `fio --ioengine=io_uring --direct=1 --rw=randread --bs=4k` then reads the
//! same file's records region at the same `--iodepth`. Rounds interleave
//! the store's engines and fio; tables show medians, the ratio to fio
//! (target: at least 0.7) and the CPU time per read of each (the whole
//! process, user + system, over the measured window).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;

use super::common::{secs, CommonArgs, Hooks, SsdReadsRun};
use super::run::{Measurement, Run};
use super::table::{ratio, Cell, Table};
use crate::LabError;

/// Arguments of `strata lab ssd-iops`.
#[derive(Debug, Clone, Args)]
pub struct SsdIopsArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,

    /// Reads in flight: the store's concurrent reads and queue depth, and
    /// fio's `--iodepth`.
    #[arg(long, default_value_t = 16)]
    pub depth: usize,

    /// Size of the data file in MiB [default: 4096; 256 with --quick].
    #[arg(long, value_name = "MIB")]
    pub file_mib: Option<u64>,

    /// Seconds measured per run [default: 10; 2 with --quick].
    #[arg(long)]
    pub seconds: Option<f64>,

    /// The store's I/O engines to measure.
    #[arg(long, value_delimiter = ',', default_value = "uring,threads")]
    pub engines: Vec<String>,

    /// The fio executable.
    #[arg(long, value_name = "PATH", default_value = "fio")]
    pub fio: PathBuf,
}

/// Title of the results table.
pub const READS: &str = "Random 4 KiB reads at one queue depth";

const FIO: &str = "fio (io_uring, O_DIRECT)";

fn store_label(engine: &str) -> String {
    format!("SSD store, {engine} engine")
}

/// Runs the experiment.
pub fn run(args: &SsdIopsArgs, hooks: &Hooks) -> Result<PathBuf, LabError> {
    let common = &args.common;
    common.in_this_executable("ssd-iops")?;
    let Some(read) = hooks.ssd_reads else {
        return Err(LabError::NotAvailable(
            "strata lab ssd-iops: not available in this build (no SSD store in process)".into(),
        ));
    };
    if args.depth == 0 {
        return Err(LabError::Config("--depth must be at least 1".into()));
    }
    if let Some(bad) = args
        .engines
        .iter()
        .find(|e| !["uring", "threads"].contains(&e.as_str()))
    {
        return Err(LabError::Config(format!(
            "--engines: unknown engine {bad:?} (uring, threads)"
        )));
    }
    let quick = common.quick;
    let file_size = args.file_mib.unwrap_or(if quick { 256 } else { 4096 }) << 20;
    let seconds = args.seconds.unwrap_or(if quick { 2.0 } else { 10.0 });
    let warmup = if quick { 0.5 } else { 2.0 };
    let rounds = common.rounds();
    let per_run = seconds + warmup + 1.0;
    let planned = secs(per_run * ((args.engines.len() + 1) * rounds) as f64);
    let mut run = Run::start("ssd-iops", "issue 35", common, planned, None)?;
    let dir = tempfile::Builder::new()
        .prefix("strata-lab-ssd-iops")
        .tempdir_in(&run.data_dir)
        .map_err(|source| LabError::WriteResult {
            path: run.data_dir.clone(),
            source,
        })?;
    run.param("depth", args.depth);
    run.param("file_bytes", file_size);
    run.param("seconds", seconds);
    run.param("warmup_seconds", warmup);
    let mut fio_missing = None;
    for round in 0..rounds {
        let mut region = None;
        for engine in &args.engines {
            let label = store_label(engine);
            run.progress.step(&label, &format!("round {}", round + 1));
            let request = SsdReadsRun {
                dir: dir.path().to_path_buf(),
                file_size,
                engine: engine.clone(),
                // The uring engine is one ring thread whatever this says;
                // the thread engine gets one thread per read in flight.
                io_threads: args.depth,
                depth: args.depth,
                warmup: secs(warmup),
                duration: secs(seconds),
            };
            let command = format!("in process: {request:?}");
            let result = read(&request).map_err(|e| LabError::Check(format!("{label}: {e}")))?;
            if result.engine != *engine {
                run.note(format!("{label}: read with the {} engine", result.engine));
            }
            if result.errors > 0 {
                run.note(format!(
                    "{label}, round {}: {} reads failed",
                    round + 1,
                    result.errors
                ));
            }
            let mut figures = BTreeMap::new();
            let reads = result.reads.max(1) as f64;
            figures.insert("iops".to_owned(), result.reads as f64 / result.seconds);
            figures.insert(
                "cpu_us_per_read".to_owned(),
                result.cpu_seconds / reads * 1e6,
            );
            figures.insert("errors".to_owned(), result.errors as f64);
            region = Some((result.data_file.clone(), result.data_bytes));
            run.measured(Measurement {
                config: label,
                step: READS.to_owned(),
                round,
                command,
                figures,
                raw: serde_json::to_value(&result).unwrap_or_default(),
            });
            run.progress.done(secs(per_run));
        }
        let Some((file, bytes)) = region else {
            continue;
        };
        run.progress.step(FIO, &format!("round {}", round + 1));
        match fio(&args.fio, &file, bytes, args.depth, warmup, seconds) {
            Ok((figures, raw, command)) => run.measured(Measurement {
                config: FIO.to_owned(),
                step: READS.to_owned(),
                round,
                command,
                figures,
                raw,
            }),
            Err(why) => fio_missing = Some(why),
        }
        run.progress.done(secs(per_run));
    }
    if let Some(why) = fio_missing {
        run.skip(FIO, &why);
    }
    table(&mut run, args);
    run.finish(
        "Issue 35 asks the SSD tier for random-read IOPS of at least 70% of what fio gets \
         from the same file at the same queue depth. The store's side is library level: \
         concurrent fetch_async calls of records read uniformly from a data file with the \
         record cache off, each one 4 KiB O_DIRECT read checked by its CRC; fio reads 4 KiB \
         blocks of the same file's records region with io_uring. CPU per read is the whole \
         process's user + system time over the measured window divided by the reads.",
    )
}

/// `fio` at `depth` over the first `bytes` of `file`: its figures (IOPS and
/// CPU µs per read), its JSON and the command; `Err` saying why when it
/// could not run.
fn fio(
    fio: &Path,
    file: &Path,
    bytes: u64,
    depth: usize,
    warmup: f64,
    seconds: f64,
) -> Result<(BTreeMap<String, f64>, serde_json::Value, String), String> {
    let argv = vec![
        "--name=randread".to_owned(),
        format!("--filename={}", file.display()),
        format!("--size={bytes}"),
        "--ioengine=io_uring".to_owned(),
        "--direct=1".to_owned(),
        "--rw=randread".to_owned(),
        "--bs=4k".to_owned(),
        format!("--iodepth={depth}"),
        "--numjobs=1".to_owned(),
        "--norandommap".to_owned(),
        "--randrepeat=0".to_owned(),
        "--time_based".to_owned(),
        format!("--ramp_time={}ms", (warmup * 1000.0) as u64),
        format!("--runtime={}ms", (seconds * 1000.0) as u64),
        "--output-format=json".to_owned(),
    ];
    let command = format!("{} {}", fio.display(), argv.join(" "));
    let output = std::process::Command::new(fio)
        .args(&argv)
        .output()
        .map_err(|e| format!("{command}: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("{command}: {} ({})", output.status, stderr.trim()));
    }
    let raw: serde_json::Value =
        serde_json::from_slice(&output.stdout).map_err(|e| format!("{command}: its JSON: {e}"))?;
    let job = &raw["jobs"][0];
    let number = |v: &serde_json::Value, what: &str| {
        v.as_f64()
            .ok_or_else(|| format!("{command}: no {what} in its JSON"))
    };
    let iops = number(&job["read"]["iops"], "read.iops")?;
    let ios = number(&job["read"]["total_ios"], "read.total_ios")?;
    let cpu_pct = number(&job["usr_cpu"], "usr_cpu")? + number(&job["sys_cpu"], "sys_cpu")?;
    let runtime = number(&job["job_runtime"], "job_runtime")? / 1000.0;
    let mut figures = BTreeMap::new();
    figures.insert("iops".to_owned(), iops);
    figures.insert(
        "cpu_us_per_read".to_owned(),
        cpu_pct / 100.0 * runtime / ios.max(1.0) * 1e6,
    );
    Ok((figures, raw, command))
}

fn table(run: &mut Run, args: &SsdIopsArgs) {
    let mut reads = Table::new(
        READS,
        &format!("queue depth {}, median over rounds", args.depth),
        &["IOPS", "CPU µs per read", "IOPS / fio's"],
    );
    let fio_iops = run.median(FIO, READS, "iops");
    let mut rows: Vec<String> = args.engines.iter().map(|e| store_label(e)).collect();
    rows.push(FIO.to_owned());
    for label in rows {
        let iops = run.median(&label, READS, "iops");
        let cpu = run.median(&label, READS, "cpu_us_per_read");
        let not_run = "not run (see Not run)";
        reads.push(
            &label,
            vec![
                Cell::from_option(iops, not_run),
                Cell::from_option(cpu, not_run),
                Cell::from_option(ratio(iops, fio_iops), not_run),
            ],
            None,
        );
    }
    for engine in &args.engines {
        if let Some(r) = reads.get(&store_label(engine), "IOPS / fio's") {
            let verdict = if r >= 0.7 { "met" } else { "missed" };
            run.note(format!(
                "{engine} engine: {r:.2}x fio's IOPS at depth {} (target at least 0.7x: {verdict})",
                args.depth
            ));
        }
    }
    run.results.tables.push(reads);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_fio_is_a_reason_not_a_panic() {
        let why = fio(
            Path::new("/nonexistent/fio"),
            Path::new("/tmp/x"),
            4096,
            1,
            0.0,
            1.0,
        )
        .unwrap_err();
        assert!(why.contains("/nonexistent/fio"), "{why}");
    }
}
