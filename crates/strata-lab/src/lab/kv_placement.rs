//! `strata lab kv-placement` (seed 001, Aerospike's Hybrid Memory Architecture):
//! the hash index in DRAM or persistent memory, the records in DRAM, persistent
//! memory or on the SSD tier; per placement the seed's phases (load every key,
//! a warm-up of writes, then each measured workload: 50/50, 100% read, 100%
//! write) and the restart time after a SIGKILL.
//!
//! Placements: dram/dram, dram/pmem, dram/ssd, pmem/pmem, pmem/ssd (`--index
//! pmem` needs persistent records, so pmem/dram does not exist). Rounds are
//! interleaved: each round starts every placement afresh, in order.

use std::path::PathBuf;
use std::time::Duration;

use super::common::{runtime, secs, CommonArgs};
use super::kv_step::{kv, size_arg, At};
use super::plot::{bar_chart, Bars};
use super::run::Run;
use super::table::{ratio, Cell, Table};
use crate::kv::Protocol;
use crate::spawn::ServerProcess;
use crate::LabError;

/// (row label, --index, --data).
pub const PLACEMENTS: [(&str, &str, &str); 5] = [
    ("index dram, data dram", "dram", "dram"),
    ("index dram, data pmem", "dram", "pmem"),
    ("index dram, data ssd", "dram", "ssd"),
    ("index pmem, data pmem", "pmem", "pmem"),
    ("index pmem, data ssd", "pmem", "ssd"),
];

/// (column, set:get ratio).
pub const WORKLOADS: [(&str, &str); 3] = [
    ("50/50", "1:1"),
    ("100% read", "0:1"),
    ("100% write", "1:0"),
];

/// The seed's operations/s on the Xeon 8268 (50/50, read, write).
const SEED: [(&str, [f64; 3]); 3] = [
    (
        "index dram, data ssd",
        [2_100_000.0, 2_240_000.0, 1_760_000.0],
    ),
    (
        "index pmem, data ssd",
        [2_000_000.0, 2_200_000.0, 1_740_000.0],
    ),
    (
        "index pmem, data pmem",
        [2_600_000.0, 2_810_000.0, 2_120_000.0],
    ),
];

/// Title of the throughput table.
pub const THROUGHPUT: &str = "Throughput per placement";
/// Title of the latency table.
pub const LATENCY: &str = "Latency per placement";
/// Title of the restart table.
pub const RESTART: &str = "Restart after a crash per placement";

struct Sizes {
    keys: u64,
    value: usize,
    warmup: f64,
    measure: f64,
    connections: usize,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                keys: 20_000,
                value: 100,
                warmup: 0.3,
                measure: 0.5,
                connections: 16,
            }
        } else {
            Self {
                keys: 1_000_000,
                value: 100,
                warmup: 5.0,
                measure: 15.0,
                connections: 50,
            }
        }
    }

    fn data_bytes(&self) -> u64 {
        self.keys * (self.value as u64 + 32)
    }

    fn per_placement(&self) -> Duration {
        secs(3.0 + self.keys as f64 / 60_000.0 + self.warmup + 3.0 * self.measure + 2.0)
    }
}

/// Runs the experiment.
pub fn run(common: &CommonArgs) -> Result<PathBuf, LabError> {
    let sizes = Sizes::new(common.quick);
    let rounds = common.rounds();
    let planned = sizes.per_placement() * (rounds * PLACEMENTS.len()) as u32;
    let mut run = Run::start(
        "kv-placement",
        "001",
        common,
        planned,
        common.server_binary.as_deref(),
    )?;
    run.param("keys", sizes.keys);
    run.param("value_size", sizes.value);
    run.param("warmup_secs", sizes.warmup);
    run.param("measure_secs_per_workload", sizes.measure);
    run.param("connections", sizes.connections);
    run.param(
        "server",
        "strata serve --threads 1 --eviction off (store mode)",
    );
    run.param("pmem_dir", common.pmem_dir.display().to_string());
    let rt = runtime()?;
    for round in 0..rounds {
        for &(label, index, data) in &PLACEMENTS {
            rt.block_on(placement(
                &mut run,
                common,
                &sizes,
                round,
                (label, index, data),
            ))?;
            run.progress.done(sizes.per_placement());
        }
    }
    run.skip(
        "index dram, data dram: restart",
        "records in DRAM are lost at a crash without persistence (see durable-cache)",
    );
    tables(&mut run);
    plots(&mut run);
    run.finish(
        "The seed placed Aerospike's primary index in DRAM or persistent memory and its \
         records on NVMe SSDs or persistent memory, and measured 50/50, 100% read and 100% \
         write throughput after a load and a warm-up. Here Strata's `--index` and `--data` \
         tiers take those places; persistent memory is emulated by files in the pmem \
         directory unless it is a DAX mount.",
    )
}

async fn placement(
    run: &mut Run,
    common: &CommonArgs,
    sizes: &Sizes,
    round: usize,
    (label, index, data): (&str, &str, &str),
) -> Result<(), LabError> {
    let data_bytes = sizes.data_bytes();
    let pmem = tempfile::Builder::new()
        .prefix("strata-lab-pmem-")
        .tempdir_in(&common.pmem_dir)
        .map_err(|source| LabError::Spawn {
            binary: common.pmem_dir.clone(),
            source,
        })?;
    let mut options: Vec<String> = vec![
        "--threads".into(),
        "1".into(),
        "--log-level".into(),
        "warn".into(),
        "--eviction".into(),
        "off".into(),
        "--memory-limit".into(),
        size_arg(3 * data_bytes + (256 << 20)),
        "--index".into(),
        index.into(),
        "--data".into(),
        data.into(),
    ];
    if index == "pmem" || data == "pmem" {
        options.extend([
            "--pmem-path".into(),
            pmem.path().join("strata.pmem").display().to_string(),
            "--pmem-size".into(),
            size_arg(4 * data_bytes + (256 << 20)),
        ]);
    }
    if data == "ssd" {
        options.extend([
            "--ssd-size".into(),
            size_arg(3 * data_bytes + (64 << 20)),
            "--dram-cache-size".into(),
            size_arg((data_bytes / 10).max(2 << 20)),
        ]);
    }
    run.progress
        .step(label, &format!("round {}: starting", round + 1));
    let mut server = ServerProcess::start_in(
        common.server_binary.as_deref(),
        &options,
        &common.data_dir,
        false,
    )
    .await?;
    let port = server.port(Protocol::Resp);
    let keys = sizes.keys.to_string();
    run.progress.step(
        label,
        &format!("round {}: load {} keys", round + 1, sizes.keys),
    );
    let load = [
        "--ratio=1:0".into(),
        "--key-pattern=sequential".into(),
        format!("--requests={keys}"),
        format!("--key-max={keys}"),
        format!("--value-size={}", sizes.value),
        "--connections=8".into(),
        "--pipeline=32".into(),
    ];
    kv(
        run,
        At {
            config: label,
            step: "load",
            round,
        },
        port,
        Protocol::Resp,
        &load,
    )
    .await?;
    let timed = |ratio: &str, duration: f64| -> Vec<String> {
        vec![
            format!("--ratio={ratio}"),
            format!("--duration={duration}"),
            format!("--key-max={keys}"),
            format!("--value-size={}", sizes.value),
            format!("--connections={}", sizes.connections),
            format!("--seed={}", round + 1),
        ]
    };
    run.progress
        .step(label, &format!("round {}: warm-up", round + 1));
    let warm = timed("1:0", sizes.warmup);
    kv(
        run,
        At {
            config: label,
            step: "warm-up",
            round,
        },
        port,
        Protocol::Resp,
        &warm,
    )
    .await?;
    for (step, ratio) in WORKLOADS {
        run.progress
            .step(label, &format!("round {}: {step}", round + 1));
        let argv = timed(ratio, sizes.measure);
        let r = kv(
            run,
            At {
                config: label,
                step,
                round,
            },
            port,
            Protocol::Resp,
            &argv,
        )
        .await?;
        if r.errors > 0 || r.misses > 0 {
            run.note(format!(
                "{label}, round {}, {step}: {} errors, {} misses (every key was loaded)",
                round + 1,
                r.errors,
                r.misses
            ));
        }
    }
    memory(run, label, round, port).await?;
    if data != "dram" {
        run.progress
            .step(label, &format!("round {}: kill -9 and restart", round + 1));
        if data == "ssd" {
            // Ten SSD flush intervals: everything written is durable before the kill.
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
        server.kill_now();
        let took = server.restart(Duration::from_secs(600)).await?;
        let fields = crate::restart::info::fields(port).await?;
        let restored = fields
            .get("keys")
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0);
        run.measured(super::run::Measurement {
            config: label.into(),
            step: "restart".into(),
            round,
            command: format!("kill -9, then strata serve {}", options.join(" ")),
            figures: [
                ("restart_secs".to_owned(), took.as_secs_f64()),
                ("keys_restored".to_owned(), restored),
            ]
            .into_iter()
            .collect(),
            raw: serde_json::to_value(&fields).unwrap_or_default(),
        });
    }
    server.stop().await
}

/// Records the memory the loaded keys take (`INFO everything`): DRAM in use by
/// the keyspace (`tier_dram_bytes_used`: index, stubs and records in DRAM, not
/// the SSD tier's record cache, which is `ssd_cache_bytes`), persistent memory
/// in use, and DRAM per key (what `strata advise` sizes placements with).
async fn memory(run: &mut Run, label: &str, round: usize, port: u16) -> Result<(), LabError> {
    let fields = crate::restart::info::fields(port).await?;
    let get = |name: &str| {
        fields
            .get(name)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    let keys = get("keys");
    let used = get("used_memory");
    let dram = if fields.contains_key("tier_dram_bytes_used") {
        get("tier_dram_bytes_used")
    } else {
        used
    };
    let cache = get("tier_ssd_cache_bytes");
    let mut figures: std::collections::BTreeMap<String, f64> = [
        ("keys", keys),
        ("used_memory_bytes", used),
        ("dram_bytes", dram),
        ("rss_bytes", get("used_memory_rss")),
        ("index_bytes", get("strata_index_bytes")),
        ("ssd_cache_bytes", cache),
        ("pmem_bytes", get("tier_pmem_bytes_used")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    if keys > 0.0 {
        figures.insert("dram_bytes_per_key".into(), dram / keys);
    }
    run.measured(super::run::Measurement {
        config: label.into(),
        step: "memory".into(),
        round,
        command: "INFO everything (after the measured workloads)".into(),
        figures,
        raw: serde_json::Value::Null,
    });
    Ok(())
}

fn tables(run: &mut Run) {
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

fn plots(run: &mut Run) {
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
        let bars: Vec<Bars<'_>> = s
            .iter()
            .map(|(n, v)| Bars {
                name: n,
                values: v.clone(),
            })
            .collect();
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
