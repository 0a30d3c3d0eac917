//! The driver: open (or recover) the database, load it, run the workers
//! through a warm-up and the measured window, then check consistency and,
//! if asked, recover and check again.
//!
//! The workers themselves are in `worker`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use strata_txn::{AbortCause, ConcurrencyControl, Database, LogDevice, NoWait, Options, Silo};

use crate::bench::args::{CcName, TpccArgs};
use crate::bench::report::{Latency, RecoveryResult, TpccResult, TypeCounts};
use crate::bench::worker::{worker, Control, WorkerResult};
use crate::consistency;
use crate::random::Constants;
use crate::schema::{self, Tables};

/// Runs the benchmark `args` describes.
pub fn run_tpcc(args: &TpccArgs) -> Result<TpccResult, String> {
    args.validate()?;
    match args.cc {
        CcName::NoWait => run::<NoWait>(args),
        CcName::Silo => run::<Silo>(args),
    }
}

fn open<C: ConcurrencyControl>(args: &TpccArgs) -> Result<Database<C>, String> {
    let log = match args.log_dir() {
        None => LogDevice::None,
        Some(dir) => LogDevice::from_name(&args.log, Some(dir)).map_err(|e| e.to_string())?,
    };
    let options = Options::default()
        .with_max_workers(args.threads.max(1))
        .with_epoch_interval(Some(Duration::from_millis(args.epoch_ms)))
        .with_capacity_hint(args.warehouses as usize * 100_000)
        .with_log(log);
    let tables = schema::tables().map_err(|e| e.to_string())?;
    Database::<C>::open(options, tables).map_err(|e| e.to_string())
}

fn run<C: ConcurrencyControl>(args: &TpccArgs) -> Result<TpccResult, String> {
    if let (Some(dir), false) = (args.log_dir(), args.keep) {
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("cannot empty {}: {e}", dir.display())),
        }
    }
    let started = Instant::now();
    let db = Arc::new(open::<C>(args)?);
    let t = Tables::of(&db).map_err(|e| e.to_string())?;
    let loaded = db.row_count(t.warehouse).map_err(|e| e.to_string())?;
    let mut seeder = rand::SeedableRng::seed_from_u64(args.seed);
    let load_constants = if loaded == 0 {
        let c = crate::load::load(&db, args.warehouses, args.threads, args.seed)
            .map_err(|e| format!("load: {e}"))?;
        if args.log != "none" {
            // The load's log goes: the run starts from a checkpoint.
            db.checkpoint()
                .map_err(|e| format!("checkpoint after the load: {e}"))?;
        }
        c
    } else if loaded != args.warehouses as usize {
        return Err(format!(
            "the kept database has {loaded} warehouses, not {}",
            args.warehouses
        ));
    } else {
        Constants::for_load(&mut seeder)
    };
    let load_seconds = started.elapsed().as_secs_f64();
    let run_constants = Constants::for_run(load_constants, &mut seeder);
    let control = Arc::new(Control {
        stop: AtomicBool::new(false),
        measuring: AtomicBool::new(false),
        committed: (0..args.threads).map(|_| AtomicU64::new(0)).collect(),
    });
    let acks = match &args.ack_file {
        None => None,
        Some(path) => Some(Arc::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("{}: {e}", path.display()))?,
        )),
    };
    let handles: Vec<_> = (0..args.threads)
        .map(|k| {
            let (db, control, acks, args) = (
                Arc::clone(&db),
                Arc::clone(&control),
                acks.clone(),
                args.clone(),
            );
            std::thread::Builder::new()
                .name(format!("tpcc-{k}"))
                .spawn(move || {
                    worker::<C>(&db, t, &args, k, run_constants, &control, acks.as_deref())
                })
                .map_err(|e| format!("cannot start a worker: {e}"))
        })
        .collect::<Result<_, _>>()?;
    let checkpointer = (args.checkpoint_every > 0.0).then(|| {
        let (db, control, every) = (Arc::clone(&db), Arc::clone(&control), args.checkpoint_every);
        std::thread::spawn(move || -> Result<u64, String> {
            let mut taken = 0;
            let mut next = Instant::now() + Duration::from_secs_f64(every);
            while !control.stop.load(Ordering::Acquire) {
                if Instant::now() >= next {
                    db.checkpoint().map_err(|e| format!("checkpoint: {e}"))?;
                    taken += 1;
                    next = Instant::now() + Duration::from_secs_f64(every);
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(taken)
        })
    });
    std::thread::sleep(Duration::from_secs_f64(args.warmup));
    let log_before = db.log_stats().unwrap_or_default();
    let cpu_before = process_cpu_seconds();
    control.measuring.store(true, Ordering::Release);
    let measure_start = Instant::now();
    let progress = progress_bar(args);
    let total = |c: &Control| {
        c.committed
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .sum::<u64>()
    };
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let done = total(&control);
        let secs = measure_start.elapsed().as_secs_f64();
        if let Some(bar) = &progress {
            bar.set_message(format!(
                "{done} committed, {:.0} txn/s",
                done as f64 / secs.max(1e-9)
            ));
            bar.set_position((secs * 10.0) as u64);
        }
        let finished = match args.transactions {
            Some(n) => done >= n,
            None => secs >= args.duration,
        };
        if finished || handles.iter().all(|h| h.is_finished()) {
            break;
        }
    }
    control.stop.store(true, Ordering::Release);
    let seconds = measure_start.elapsed().as_secs_f64();
    let cpu_seconds = process_cpu_seconds() - cpu_before;
    if let Some(bar) = progress {
        bar.finish_and_clear();
    }
    let mut results = Vec::new();
    for h in handles {
        results.push(h.join().map_err(|_| "a worker panicked".to_string())??);
    }
    if let Some(c) = checkpointer {
        c.join()
            .map_err(|_| "the checkpoint thread panicked".to_string())??;
    }
    let log_after = db.log_stats().unwrap_or_default();
    let consistency = consistency::check(&db, args.mix).map_err(|e| e.to_string())?;
    let mut result = summarize(args, results, seconds, load_seconds, consistency);
    result.cpu_seconds = cpu_seconds;
    result.cpu_us_per_txn = cpu_seconds * 1e6 / result.commits.max(1) as f64;
    result.log = db_log_name(args);
    result.epochs_closed = log_after.epochs_closed - log_before.epochs_closed;
    result.epoch_close_us = (log_after.close_micros - log_before.close_micros) as f64
        / result.epochs_closed.max(1) as f64;
    result.log_bytes = log_after.bytes - log_before.bytes;
    result.log_syncs = log_after.syncs - log_before.syncs;
    if args.recover {
        db.sync_epochs();
        drop(db);
        let reopen = Instant::now();
        let db = open::<C>(&TpccArgs {
            keep: true,
            ..args.clone()
        })?;
        let millis = reopen.elapsed().as_millis() as u64;
        let report = db.recovery_report().cloned().unwrap_or_default();
        let writes = report.writes_applied + report.writes_skipped;
        result.recovery = Some(RecoveryResult {
            millis,
            checkpoint_rows: report.checkpoint_rows,
            load_millis: report.load_millis,
            txns_replayed: report.txns_replayed,
            writes,
            replay_millis: report.replay_millis,
            writes_per_s: writes as f64 / (report.replay_millis.max(1) as f64 / 1000.0),
            index_millis: report.index_millis,
            consistency: consistency::check(&db, args.mix)
                .map_err(|e| format!("after recovery: {e}"))?,
        });
    }
    result.machine = machine();
    Ok(result)
}

fn db_log_name(args: &TpccArgs) -> String {
    match args.log_dir() {
        None => "none".into(),
        Some(dir) => format!("{} ({})", args.log, dir.display()),
    }
}

fn progress_bar(args: &TpccArgs) -> Option<indicatif::ProgressBar> {
    if args.no_progress || args.transactions.is_some() {
        return None;
    }
    let bar = indicatif::ProgressBar::new((args.duration * 10.0) as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {elapsed} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// CPU time this process has used (user and system), from /proc; 0
/// where there is none. On a machine shared with other work, throughput
/// follows the CPU the scheduler grants; CPU per transaction does not.
fn process_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces, in parentheses).
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of the line, 12 and 13 here.
    (ticks(11) + ticks(12)) / 100.0
}

fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    format!("{cpus} cores, load average {}", load.join(" "))
}

fn summarize(
    args: &TpccArgs,
    results: Vec<WorkerResult>,
    seconds: f64,
    load_seconds: f64,
    consistency: consistency::Consistency,
) -> TpccResult {
    let mut per_type: BTreeMap<String, TypeCounts> = BTreeMap::new();
    let mut aborts = [0u64; 3];
    let mut latency = Histogram::<u64>::new_with_bounds(1, 600_000_000, 3).expect("bounds");
    let mut commits = 0;
    for r in results {
        for (name, c) in r.per_type {
            let e = per_type.entry(name.to_owned()).or_default();
            e.commits += c.commits;
            e.rollbacks += c.rollbacks;
            e.aborts += c.aborts;
        }
        for (a, b) in aborts.iter_mut().zip(r.aborts) {
            *a += b;
        }
        commits += r.commits;
        let _ = latency.add(&r.latency);
    }
    if args.mix == crate::mix::Mix::Dbx1000 {
        per_type.retain(|name, _| name == "new_order" || name == "payment");
    }
    let total_aborts: u64 = aborts.iter().sum();
    let new_orders = per_type.get("new_order").map_or(0, |c| c.commits);
    TpccResult {
        cc: match args.cc {
            CcName::NoWait => "no_wait".into(),
            CcName::Silo => "silo".into(),
        },
        log: String::new(),
        warehouses: args.warehouses,
        threads: args.threads,
        mix: args.mix.name().into(),
        seconds,
        warmup_seconds: args.warmup,
        load_seconds,
        commits,
        txn_per_s: commits as f64 / seconds,
        new_order_per_min: new_orders as f64 * 60.0 / seconds,
        aborts: total_aborts,
        abort_ratio: total_aborts as f64 / commits.max(1) as f64,
        aborts_by_cause: AbortCause::ALL
            .iter()
            .map(|c| (c.name().to_owned(), aborts[*c as usize]))
            .collect(),
        per_type,
        latency_us: Latency {
            count: latency.len(),
            mean: latency.mean(),
            p50: latency.value_at_quantile(0.5),
            p90: latency.value_at_quantile(0.9),
            p99: latency.value_at_quantile(0.99),
            p999: latency.value_at_quantile(0.999),
            max: latency.max(),
        },
        consistency,
        ..TpccResult::default()
    }
}
