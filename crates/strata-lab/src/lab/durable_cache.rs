//! `strata lab durable-cache` (seed 004, ARCUS's command log and snapshots):
//! persistence off / async / sync under the seed's memtier-style phases (insert
//! every key, uniform reads, then writes:reads 1:9, 3:7 and 5:5), throughput
//! and average/p90/p95/p99 latency, beside Redis (no AOF, `appendfsync
//! everysec`, `appendfsync always`), memcached and, when `scripts/peers/arcus`
//! has built it, ARCUS itself (`use_persistence` false, and true with
//! `async_logging` true or false); then a checkpoint under a 1:9
//! load as a per-second timeline (Strata async and Redis everysec, BGSAVE).
//!
//! Strata, memcached and ARCUS are driven over the memcached text protocol, Redis over RESP, all by the same `bench kv` client.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::common::{runtime, secs, CommonArgs};
use super::kv_step::{kv, size_arg, At};
use super::peers::{available, PeerKind, PeerProcess, Server};
use super::plot::{bar_chart, line_chart, Bars, Line};
use super::run::{Measurement, Run};
use super::table::{number, ratio, Cell, Table};
use crate::kv::Protocol;
use crate::spawn::ServerProcess;
use crate::LabError;

/// A configuration: Strata in a persistence mode, or a peer.
#[derive(Debug, Clone, Copy)]
enum Target {
    Strata(&'static str),
    Peer(PeerKind),
}

/// (row label, target), in the tables' order.
const CONFIGS: [(&str, Target); 10] = [
    ("strata, persistence off", Target::Strata("off")),
    ("strata, async logging", Target::Strata("async")),
    ("strata, sync logging", Target::Strata("sync")),
    ("redis, no AOF", Target::Peer(PeerKind::RedisOff)),
    (
        "redis, appendfsync everysec",
        Target::Peer(PeerKind::RedisEverysec),
    ),
    (
        "redis, appendfsync always",
        Target::Peer(PeerKind::RedisAlways),
    ),
    ("memcached", Target::Peer(PeerKind::Memcached)),
    ("arcus, persistence off", Target::Peer(PeerKind::ArcusOff)),
    ("arcus, async logging", Target::Peer(PeerKind::ArcusAsync)),
    ("arcus, sync logging", Target::Peer(PeerKind::ArcusSync)),
];

/// (column, set:get ratio); the insert is sequential over every key.
pub const PHASES: [(&str, &str); 5] = [
    ("insert", "1:0"),
    ("uniform reads", "0:1"),
    ("1:9", "1:9"),
    ("3:7", "3:7"),
    ("5:5", "5:5"),
];

/// Configurations whose checkpoint under load is timed.
const CHECKPOINTED: [&str; 2] = ["strata, async logging", "redis, appendfsync everysec"];

/// A configuration's per-second points and its checkpoint's span.
type Timeline = (String, Vec<(f64, f64)>, (f64, f64));

/// Title of the throughput table.
pub const THROUGHPUT: &str = "Throughput per persistence mode";
/// Title of the checkpoint table.
pub const CHECKPOINT: &str = "Checkpoint under a 1:9 load";

struct Sizes {
    keys: u64,
    value: usize,
    measure: f64,
    connections: usize,
    timeline: f64,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                keys: 5_000,
                value: 50,
                measure: 0.5,
                connections: 16,
                timeline: 3.0,
            }
        } else {
            Self {
                keys: 1_000_000,
                value: 50,
                measure: 10.0,
                connections: 50,
                timeline: 30.0,
            }
        }
    }

    fn per_config(&self) -> Duration {
        secs(2.0 + self.keys as f64 / 20_000.0 + 4.0 * self.measure)
    }
}

/// Runs the experiment.
pub fn run(common: &CommonArgs) -> Result<PathBuf, LabError> {
    let sizes = Sizes::new(common.quick);
    let rounds = common.rounds();
    let planned =
        (sizes.per_config() * CONFIGS.len() as u32 + secs(sizes.timeline) * 2) * rounds as u32;
    let mut run = Run::start("durable-cache", "004", common, planned)?;
    run.param("keys", sizes.keys);
    run.param("value_size", sizes.value);
    run.param("measure_secs_per_phase", sizes.measure);
    run.param("connections", sizes.connections);
    run.param("checkpoint_timeline_secs", sizes.timeline);
    run.param(
        "strata",
        "strata serve --threads 1 --eviction off, memcached text protocol",
    );
    let rt = runtime()?;
    let mut missing = Vec::new();
    for round in 0..rounds {
        for &(label, target) in &CONFIGS {
            if let Target::Peer(kind) = target {
                if let Err(why) = available(kind) {
                    if round == 0 {
                        missing.push(label);
                        run.skip(label, &why);
                    }
                    continue;
                }
            }
            rt.block_on(config(&mut run, common, &sizes, round, label, target))?;
            run.progress.done(sizes.per_config());
        }
    }
    tables(&mut run, &missing);
    plots(&mut run);
    run.finish(
        "The seed measured ARCUS (memcached with a command log and snapshots) with persistence \
         off, asynchronous and synchronous logging under memtier_benchmark's phases, and a \
         checkpoint's dip under load. Here Strata's `--persistence off|async|sync` runs beside \
         ARCUS itself in the same three modes (when scripts/peers/arcus built it), Redis's AOF \
         modes and memcached; the data directory's measured \
         fsync latency (above) bounds what synchronous logging can do.",
    )
}

async fn start(
    run: &Run,
    common: &CommonArgs,
    sizes: &Sizes,
    target: Target,
) -> Result<(Server, Protocol, String), LabError> {
    match target {
        Target::Strata(mode) => {
            let options: Vec<String> = [
                "--threads",
                "1",
                "--log-level",
                "warn",
                "--eviction",
                "off",
                "--persistence",
                mode,
            ]
            .into_iter()
            .map(String::from)
            .chain([
                "--memory-limit".into(),
                size_arg(sizes.keys * (sizes.value as u64 + 64) * 3 + (256 << 20)),
            ])
            .collect();
            let server = ServerProcess::start_in(
                common.server_binary.as_deref(),
                &options,
                &run.data_dir,
                false,
            )
            .await?;
            Ok((
                Server::Strata(server),
                Protocol::Memcache,
                format!("strata serve {}", options.join(" ")),
            ))
        }
        Target::Peer(kind) => {
            let binary = available(kind).map_err(LabError::NotAvailable)?;
            let peer = PeerProcess::start(kind, &binary, &run.data_dir).await?;
            let command = peer.command.clone();
            Ok((Server::Peer(peer), kind.protocol(), command))
        }
    }
}

async fn config(
    run: &mut Run,
    common: &CommonArgs,
    sizes: &Sizes,
    round: usize,
    label: &str,
    target: Target,
) -> Result<(), LabError> {
    run.progress
        .step(label, &format!("round {}: starting", round + 1));
    let (server, protocol, command) = start(run, common, sizes, target).await?;
    if round == 0 {
        run.note(format!("{label}: {command}"));
    }
    let port = server.port(protocol);
    let keys = sizes.keys.to_string();
    for (step, ratio) in PHASES {
        run.progress
            .step(label, &format!("round {}: {step}", round + 1));
        let mut argv = vec![
            format!("--ratio={ratio}"),
            format!("--key-max={keys}"),
            format!("--value-size={}", sizes.value),
            format!("--connections={}", sizes.connections),
            "--key-prefix=memtier-".into(),
        ];
        if step == "insert" {
            argv.extend([
                "--key-pattern=sequential".into(),
                format!("--requests={keys}"),
            ]);
        } else {
            argv.extend([
                format!("--duration={}", sizes.measure),
                format!("--seed={}", round + 1),
            ]);
        }
        kv(
            run,
            At {
                config: label,
                step,
                round,
            },
            port,
            protocol,
            &argv,
        )
        .await?;
    }
    if CHECKPOINTED.contains(&label) {
        checkpoint(
            run,
            sizes,
            round,
            label,
            (port, server.port(Protocol::Resp), protocol),
        )
        .await?;
    }
    server.stop().await
}

/// A 1:9 load with a per-second timeline; BGSAVE a third of the way in, `INFO
/// persistence` polled every 50 ms to see when the checkpoint ends.
async fn checkpoint(
    run: &mut Run,
    sizes: &Sizes,
    round: usize,
    label: &str,
    (port, resp_port, protocol): (u16, u16, Protocol),
) -> Result<(), LabError> {
    run.progress.step(
        label,
        &format!("round {}: checkpoint under load", round + 1),
    );
    let argv = [
        "--ratio=1:9".to_owned(),
        format!("--key-max={}", sizes.keys),
        format!("--value-size={}", sizes.value),
        format!("--connections={}", sizes.connections),
        "--key-prefix=memtier-".into(),
        format!("--duration={}", sizes.timeline),
        "--timeline".into(),
        format!("--seed={}", round + 1),
    ];
    let started = Instant::now();
    let delay = secs(sizes.timeline / 3.0);
    let watch = async move {
        tokio::time::sleep(delay).await;
        let begin = started.elapsed().as_secs_f64();
        crate::restart::info::call(resp_port, &["BGSAVE"]).await?;
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let text = crate::restart::info::call(resp_port, &["INFO", "persistence"]).await?;
            let busy = text.lines().any(|l| {
                [
                    "strata_checkpoint_in_progress:1",
                    "rdb_bgsave_in_progress:1",
                ]
                .contains(&l.trim())
            });
            if !busy || Instant::now() > deadline {
                return Ok::<_, LabError>((begin, started.elapsed().as_secs_f64()));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    let step = "checkpoint timeline";
    let (result, span) = tokio::join!(
        kv(
            run,
            At {
                config: label,
                step,
                round
            },
            port,
            protocol,
            &argv
        ),
        watch
    );
    let result = result?;
    let (begin, end) = span?;
    let timeline = result.timeline.unwrap_or_default();
    let during: Vec<f64> = timeline
        .iter()
        .filter(|s| (s.second as f64) < end && (s.second as f64 + 1.0) > begin)
        .map(|s| s.ops_per_sec)
        .collect();
    let outside: Vec<f64> = timeline
        .iter()
        .filter(|s| !((s.second as f64) < end && (s.second as f64 + 1.0) > begin))
        .map(|s| s.ops_per_sec)
        .collect();
    let after: Vec<f64> = timeline
        .iter()
        .filter(|s| s.second as f64 >= end)
        .map(|s| s.ops_per_sec)
        .collect();
    let median_outside = super::run::median(&outside);
    let lowest = during.iter().copied().reduce(f64::min);
    let mut figures: std::collections::BTreeMap<String, f64> = [
        ("checkpoint_start_s", begin),
        ("checkpoint_end_s", end),
        ("checkpoint_secs", end - begin),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    for (name, value) in [
        ("median_ops_outside", median_outside),
        ("lowest_ops_during", lowest),
        ("lowest_over_median", ratio(lowest, median_outside)),
        ("median_ops_after", super::run::median(&after)),
    ] {
        if let Some(v) = value {
            figures.insert(name.into(), v);
        }
    }
    run.measured(Measurement {
        config: label.into(),
        step: "checkpoint".into(),
        round,
        command: format!("BGSAVE on port {resp_port} {:.1} s into the timeline run above; INFO persistence every 50 ms", begin),
        figures,
        raw: serde_json::to_value(&timeline).unwrap_or_default(),
    });
    Ok(())
}

fn tables(run: &mut Run, missing: &[&str]) {
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

    let cols = [
        "checkpoint s",
        "median ops/s outside",
        "lowest ops/s during",
        "lowest / median",
        "median ops/s after",
    ];
    let figs = [
        "checkpoint_secs",
        "median_ops_outside",
        "lowest_ops_during",
        "lowest_over_median",
        "median_ops_after",
    ];
    let mut cp = Table::new(
        CHECKPOINT,
        "per-second throughput while a BGSAVE checkpoint runs",
        &cols,
    );
    for label in CHECKPOINTED {
        let cells = figs
            .iter()
            .map(|f| cell(run, label, "checkpoint", f))
            .collect();
        cp.push(label, cells, None);
    }
    let s = "strata, async logging";
    let dip = cp.get(s, "lowest / median");
    let recovered = ratio(
        cp.get(s, "median ops/s after"),
        cp.get(s, "median ops/s outside"),
    );
    cp.verdict = match (dip, recovered) {
        (Some(d), Some(r)) => format!(
            "The seed: a checkpoint causes a visible, temporary throughput dip. Here Strata's \
             lowest second during the checkpoint is {:.0}% of the median second outside it (a \
             dip {}), and after it throughput is {:.0}% of that median ({}).",
            d * 100.0,
            if d < 0.9 { "is visible, as in the seed" } else { "is not visible: the paced checkpoint avoids the seed's dip" },
            r * 100.0,
            if r >= 0.9 { "temporary" } else { "not recovered within the run" }
        ),
        _ => "The checkpoint's dip could not be computed (the checkpoint outlasted the run or was not measured).".into(),
    };
    run.results.tables.push(cp);
}

fn r_x(r: Option<f64>) -> String {
    r.map_or("not measured".into(), |r| format!("{r:.2}x"))
}

fn plots(run: &mut Run) {
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
        let bars: Vec<Bars<'_>> = series
            .iter()
            .map(|(n, v)| Bars {
                name: n,
                values: v.clone(),
            })
            .collect();
        let out = bar_chart(&run.dir, stem, title, unit, &categories, &bars);
        run.plotted(out);
    }
    // The first round's timelines, with the checkpoint shaded.
    let lines: Vec<Timeline> = CHECKPOINTED
        .iter()
        .filter_map(|label| {
            let m = run
                .results
                .measurements
                .iter()
                .find(|m| m.config == *label && m.step == "checkpoint")?;
            let points: Vec<(f64, f64)> = m
                .raw
                .as_array()?
                .iter()
                .filter_map(|s| Some((s["second"].as_f64()? + 0.5, s["ops_per_sec"].as_f64()?)))
                .collect();
            let span = (
                *m.figures.get("checkpoint_start_s")?,
                *m.figures.get("checkpoint_end_s")?,
            );
            Some(((*label).to_owned(), points, span))
        })
        .collect();
    if !lines.is_empty() {
        let lines: Vec<Line<'_>> = lines
            .iter()
            .map(|(n, p, span)| Line {
                name: n,
                points: p.clone(),
                spans: vec![*span],
            })
            .collect();
        let out = line_chart(
            &run.dir,
            "checkpoint-timeline",
            "1:9 load with a checkpoint (shaded)",
            ("second", "operations/s"),
            &lines,
        );
        run.plotted(out);
    }
}
