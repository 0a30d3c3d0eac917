//! The KV store's placement (index dram/pmem x data dram/pmem/ssd) and
//! persistence mode (off/async/sync) for a workload, from `strata lab
//! kv-placement` (throughput per mix, p99, restart, DRAM per key) and `strata
//! lab durable-cache` (what the command log's modes cost against none).
//!
//! Persistence applies to records in DRAM (the command log); records in
//! persistent memory are durable at every write, on the SSD within its flush
//! interval, both with persistence off.

use strata_units::human;

use super::choice::{choose, Advice, Considered, Figure, Goal, Restart};
use super::evidence::{at_read_share, nearest, Evidence, RecordedRun};
use super::workload::{Durability, RestartWeight, Skew, Workload, KEY_BYTES};
use crate::lab::kv_placement::PLACEMENTS;

/// kv-placement's workloads as (read share, step).
const KV_MIXES: [(f64, &str); 3] = [(0.0, "100% write"), (0.5, "50/50"), (1.0, "100% read")];
/// durable-cache's phases as (read share, step).
const LOG_MIXES: [(f64, &str); 5] = [
    (0.0, "insert"),
    (0.5, "5:5"),
    (0.7, "3:7"),
    (0.9, "1:9"),
    (1.0, "uniform reads"),
];
/// durable-cache's rows for the command log's modes.
const LOG_OFF: &str = "strata, persistence off";
const LOG_MODES: [(&str, &str, Durability); 2] = [
    ("async", "strata, async logging", Durability::Bounded),
    ("sync", "strata, sync logging", Durability::EveryWrite),
];

/// Recommends a placement and persistence mode.
pub fn advise(w: &Workload, evidence: &Evidence) -> Advice {
    let mut advice = Advice::default();
    let run = match evidence.pick("kv-placement", Some(w.value_size)) {
        Ok(run) => run,
        Err(why) => {
            advice.not_covered.push(format!(
                "{why}: no placement is recommended (`strata lab kv-placement` measures one value \
                 size, 100 B; figures at another size need a run at it)"
            ));
            return advice;
        }
    };
    advice.sources.push(format!("kv-placement: {}", run.cite()));
    let log_run = if w.durability > Durability::None {
        match evidence.pick("durable-cache", Some(w.value_size)) {
            Ok(r) => {
                advice.sources.push(format!("durable-cache: {}", r.cite()));
                Some(r)
            }
            Err(why) => {
                advice.not_covered.push(format!(
                    "records in DRAM with the command log (persistence async/sync): {why}"
                ));
                None
            }
        }
    } else {
        None
    };
    let run_keys = run.number("keys").unwrap_or(0.0);
    let run_value = run.number("value_size").unwrap_or(w.value_size as f64);
    for &(label, index, data) in &PLACEMENTS {
        let base = placement(w, run, label, run_value);
        let flags = format!("--index {index} --data {data}");
        match data {
            "dram" => {
                advice.options.push(Considered {
                    name: format!("{label}, persistence off"),
                    flags: format!("{flags} --persistence off"),
                    keeps: Durability::None,
                    restart: Restart::Empty,
                    ..base.clone()
                });
                if let Some(log) = log_run {
                    for (mode, row, keeps) in LOG_MODES {
                        advice
                            .options
                            .push(with_log(w, &base, log, (mode, row, keeps), &flags));
                    }
                }
            }
            _ => advice.options.push(Considered {
                name: label.into(),
                flags: format!("{flags} --persistence off"),
                keeps: if data == "pmem" {
                    Durability::EveryWrite
                } else {
                    Durability::Bounded
                },
                ..base
            }),
        }
    }
    for o in &mut advice.options {
        o.excluded = exclusion(w, o);
    }
    let goal = match w.restart {
        RestartWeight::Decides => Goal::Restart,
        RestartWeight::Irrelevant => Goal::Throughput,
    };
    choose(&mut advice, goal);
    notes(w, run, run_keys, &mut advice);
    advice
}

/// A placement's figures from kv-placement (persistence off).
fn placement(w: &Workload, run: &RecordedRun, label: &str, run_value: f64) -> Considered {
    let ops: Vec<(f64, f64)> = KV_MIXES
        .iter()
        .filter_map(|(s, step)| Some((*s, run.median(label, step, "ops_per_sec")?)))
        .collect();
    let throughput = at_read_share(&ops, w.read_fraction)
        .map(|(v, how)| Figure::new(v, format!("kv-placement, {how}")));
    let p99: Vec<(f64, f64)> = KV_MIXES
        .iter()
        .filter_map(|(s, step)| Some((*s, run.median(label, step, "p99_ms")?)))
        .collect();
    let latency = nearest(&p99, w.read_fraction)
        .map(|(s, v)| Figure::new(v, format!("kv-placement p99 at {:.0}% reads", s * 100.0)));
    let restart = match (
        run.median(label, "restart", "restart_secs"),
        run.median(label, "restart", "keys_restored"),
    ) {
        (Some(secs), keys) => Restart::Measured {
            secs,
            keys: keys.unwrap_or(0.0),
        },
        (None, _) => Restart::NotMeasured("no restart measured in the kv-placement run".into()),
    };
    Considered {
        name: label.into(),
        flags: String::new(),
        keeps: Durability::None,
        throughput,
        latency,
        extra: Vec::new(),
        restart,
        dram: dram_need(w, run, label, run_value),
        pmem: pmem_need(w, run, label, run_value),
        excluded: None,
    }
}

/// DRAM this placement needs for the workload's keys: the measured DRAM per
/// key (outside the SSD record cache) with the value size adjusted where the
/// records are in DRAM; without a measurement, for records in DRAM the keys
/// and values themselves (a lower bound), otherwise unknown.
fn dram_need(w: &Workload, run: &RecordedRun, label: &str, run_value: f64) -> Option<Figure> {
    let in_dram = label.ends_with("data dram");
    let keys = w.keys as f64;
    match run.median(label, "memory", "dram_bytes_per_key") {
        Some(per_key) => {
            let per_key = if in_dram {
                (per_key - run_value + w.value_size as f64).max(0.0)
            } else {
                per_key
            };
            Some(Figure::new(
                per_key * keys,
                format!(
                    "{per_key:.0} B per key measured by kv-placement{}",
                    if in_dram { ", value size adjusted" } else { "" }
                ),
            ))
        }
        None if in_dram => Some(Figure::new(
            w.data_bytes() as f64,
            format!(
                "at least the keys and values ({KEY_BYTES} B keys); DRAM per key not measured in this run"
            ),
        )),
        None => None,
    }
}

/// Persistent memory this placement needs: measured per key (value size
/// adjusted where the records are there), the keys and values as a lower bound
/// for records there without a measurement, none without pmem.
fn pmem_need(w: &Workload, run: &RecordedRun, label: &str, run_value: f64) -> Option<Figure> {
    if !label.contains("pmem") {
        return Some(Figure::new(0.0, "uses no persistent memory"));
    }
    let records = label.ends_with("data pmem");
    let keys = w.keys as f64;
    let measured = run.median(label, "memory", "pmem_bytes");
    let run_keys = run.median(label, "memory", "keys").filter(|k| *k > 0.0);
    match (measured, run_keys) {
        (Some(bytes), Some(k)) => {
            let mut per_key = bytes / k;
            if records {
                per_key = (per_key - run_value + w.value_size as f64).max(0.0);
            }
            Some(Figure::new(
                per_key * keys,
                format!("{per_key:.0} B per key measured by kv-placement"),
            ))
        }
        _ if records => Some(Figure::new(
            w.data_bytes() as f64,
            "at least the keys and values; not measured in this run",
        )),
        _ => None,
    }
}

/// The DRAM-records option with the command log in `mode`: kv-placement's
/// throughput scaled by what the mode costs against no log in durable-cache.
fn with_log(
    w: &Workload,
    base: &Considered,
    log: &RecordedRun,
    (mode, row, keeps): (&str, &str, Durability),
    flags: &str,
) -> Considered {
    let series = |config: &str, figure: &str| -> Vec<(f64, f64)> {
        LOG_MIXES
            .iter()
            .filter_map(|(s, step)| Some((*s, log.median(config, step, figure)?)))
            .collect()
    };
    let off = at_read_share(&series(LOG_OFF, "ops_per_sec"), w.read_fraction);
    let on = at_read_share(&series(row, "ops_per_sec"), w.read_fraction);
    let throughput = match (&base.throughput, off, on) {
        (Some(b), Some((off, _)), Some((on, how))) => Some(Figure::new(
            b.value * on / off,
            format!(
                "kv-placement's {:.0} ops/s x {:.2} ({mode} logging against none in durable-cache, {how})",
                b.value,
                on / off
            ),
        )),
        _ => None,
    };
    let latency = nearest(&series(row, "p99_ms"), w.read_fraction)
        .map(|(s, v)| Figure::new(v, format!("durable-cache p99 at {:.0}% reads", s * 100.0)));
    Considered {
        name: format!("{}, persistence {mode}", base.name),
        flags: format!("{flags} --persistence {mode}"),
        keeps,
        throughput,
        latency,
        restart: Restart::NotMeasured(
            "snapshot load and log replay: not measured by the lab".into(),
        ),
        ..base.clone()
    }
}

fn exclusion(w: &Workload, o: &Considered) -> Option<String> {
    if o.keeps < w.durability {
        return Some(format!(
            "{}: less than asked ({})",
            o.keeps.describe(),
            w.durability.describe()
        ));
    }
    if let Some(d) = &o.dram {
        if d.value > w.dram_budget as f64 {
            return Some(format!(
                "needs {} of DRAM, over the budget of {}",
                human(d.value as u64),
                human(w.dram_budget)
            ));
        }
    }
    if let Some(p) = &o.pmem {
        if p.value > w.pmem_budget as f64 {
            return Some(if w.pmem_budget == 0 {
                "needs persistent memory; the workload has none (--pmem-budget)".into()
            } else {
                format!(
                    "needs {} of persistent memory, over the budget of {}",
                    human(p.value as u64),
                    human(w.pmem_budget)
                )
            });
        }
    } else if w.pmem_budget == 0 {
        return Some("needs persistent memory; the workload has none (--pmem-budget)".into());
    }
    if w.restart == RestartWeight::Decides && matches!(o.restart, Restart::Empty) {
        return Some("restarts empty: nothing to restart into".into());
    }
    None
}

fn notes(w: &Workload, run: &RecordedRun, run_keys: f64, advice: &mut Advice) {
    if w.skew == Skew::Zipfian {
        advice.notes.push(
            "the lab's runs draw keys uniformly: under a Zipfian load the SSD placements' record \
             cache serves more reads than measured, so their figures are a lower bound"
                .into(),
        );
    }
    if run_keys > 0.0 && w.keys as f64 > 10.0 * run_keys {
        advice.notes.push(format!(
            "measured with {run_keys:.0} keys, {}x fewer than this workload's {}: restart times \
             that scan (index in DRAM) grow with the keys and are not covered at this size",
            (w.keys as f64 / run_keys).round(),
            w.keys
        ));
    }
    if run.quick {
        advice.notes.push(
            "the kv-placement run used --quick sizes: its figures are indicative only".into(),
        );
    }
    // The SSD figures were measured with a record cache of some share of the data.
    let data = run_keys * (run.number("value_size").unwrap_or(0.0) + KEY_BYTES as f64);
    let measured_cache = run.median("index dram, data ssd", "memory", "ssd_cache_bytes");
    if let (Some(cache), true) = (measured_cache, data > 0.0) {
        let share = cache / data;
        for o in advice
            .options
            .iter()
            .filter(|o| o.name.ends_with("data ssd") && o.excluded.is_none())
        {
            let need = o.dram.as_ref().map_or(0.0, |d| d.value);
            let left = (w.dram_budget as f64 - need).max(0.0) / w.data_bytes().max(1) as f64;
            if left < share / 2.0 {
                advice.notes.push(format!(
                    "{}: measured with a record cache of {:.0}% of the data; this budget leaves \
                     {:.1}%, so more reads go to the SSD than measured",
                    o.name,
                    share * 100.0,
                    left * 100.0
                ));
            }
        }
    }
}
