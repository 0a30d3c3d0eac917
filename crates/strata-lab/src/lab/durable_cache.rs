//! `strata lab durable-cache` (seed 004, ARCUS's command log and snapshots):
//! persistence off / async / sync under the seed's memtier-style phases (insert
//! every key, uniform reads, then writes:reads 1:9, 3:7 and 5:5), throughput
//! and average/p90/p95/p99 latency, beside Redis (no AOF, `appendfsync
//! everysec`, `appendfsync always`), memcached and, when `scripts/peers/arcus`
//! has built it, ARCUS itself (`use_persistence` false, and true with
//! `async_logging` true or false); then a checkpoint under a 1:9 load as a
//! per-second timeline (Strata async and Redis everysec, BGSAVE), Strata's
//! against interleaved control runs without one (`durable_checkpoint`); and
//! Strata's sync logging against Redis `appendfsync always` with server and
//! client pinned to their own cores (`durable_pinned`).
//!
//! Strata, memcached and ARCUS are driven over the memcached text protocol, Redis over RESP, all by the same `bench kv` client.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::common::{runtime, secs, CommonArgs};
use super::durable_checkpoint::{self as checkpoint, CHECKPOINTED};
use super::durable_control as control;
use super::durable_pinned as pinned;
use super::kv_step::{kv, size_arg, At};
use super::peers::{available, PeerKind, PeerProcess, Server};
use super::plot::{bar_chart, Bars};
use super::run::Run;
use super::table::{number, ratio, Cell, Table};
use crate::kv::Protocol;
use crate::spawn::ServerProcess;
use crate::LabError;

/// `strata lab durable-cache`'s options.
#[derive(Debug, Clone, Args)]
pub struct DurableCacheArgs {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub common: CommonArgs,

    /// Run one part only [default: all three].
    #[arg(long, value_enum)]
    pub only: Option<Part>,

    /// Checkpointed runs of Strata per round, each alternated with a control
    /// run of the same length and load without a checkpoint [default: 3, 1 with --quick].
    #[arg(long)]
    pub pairs: Option<usize>,
}

/// A part of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Part {
    /// The memtier-style phases of every configuration (throughput and latency tables).
    Phases,
    /// The checkpoint timelines (after the insert phase fills the keys), Strata's
    /// against its control runs.
    Checkpoint,
    /// Sync logging against Redis `appendfsync always`, set-only, pinned to cores.
    Pinned,
}

impl DurableCacheArgs {
    fn runs(&self, part: Part) -> bool {
        self.only.is_none_or(|only| only == part)
    }
}

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

/// Title of the throughput table.
pub const THROUGHPUT: &str = "Throughput per persistence mode";

struct Sizes {
    keys: u64,
    value: usize,
    measure: f64,
    connections: usize,
    timeline: f64,
    pairs: usize,
    pinned: f64,
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
                pairs: 1,
                pinned: 0.5,
            }
        } else {
            Self {
                keys: 1_000_000,
                value: 50,
                measure: 10.0,
                connections: 50,
                timeline: 30.0,
                pairs: 3,
                pinned: 10.0,
            }
        }
    }

    fn per_config(&self) -> Duration {
        secs(2.0 + self.keys as f64 / 20_000.0 + 4.0 * self.measure)
    }
}

/// Runs the experiment.
pub fn run(args: &DurableCacheArgs) -> Result<PathBuf, LabError> {
    let common = &args.common;
    let mut sizes = Sizes::new(common.quick);
    if let Some(pairs) = args.pairs {
        sizes.pairs = pairs.max(1);
    }
    let rounds = common.rounds();
    let timelines = secs(sizes.timeline) * (2 * sizes.pairs as u32 + 1);
    let per_round = [
        (Part::Phases, sizes.per_config() * CONFIGS.len() as u32),
        (Part::Checkpoint, timelines + sizes.per_config() / 4),
        (Part::Pinned, secs(2.0 * (sizes.pinned + 1.0))),
    ]
    .into_iter()
    .filter(|(part, _)| args.runs(*part))
    .map(|(_, d)| d)
    .sum::<Duration>();
    let mut run = Run::start(
        "durable-cache",
        "004",
        common,
        per_round * rounds as u32,
        common.server_binary.as_deref(),
    )?;
    run.param("keys", sizes.keys);
    run.param("value_size", sizes.value);
    run.param("measure_secs_per_phase", sizes.measure);
    run.param("connections", sizes.connections);
    run.param("checkpoint_timeline_secs", sizes.timeline);
    run.param("checkpoint_control_pairs_per_round", sizes.pairs);
    run.param("pinned_secs", sizes.pinned);
    if let Some(only) = args.only {
        run.param("only", format!("{only:?}").to_lowercase());
    }
    run.param(
        "strata",
        "strata serve --threads 1 --eviction off, memcached text protocol",
    );
    let pinned_possible = pinned::possible(&run);
    let rt = runtime()?;
    let mut missing = Vec::new();
    for round in 0..rounds {
        for &(label, target) in &CONFIGS {
            let checkpointed = args.runs(Part::Checkpoint) && CHECKPOINTED.contains(&label);
            if !args.runs(Part::Phases) && !checkpointed {
                continue;
            }
            if let Target::Peer(kind) = target {
                if let Err(why) = available(kind) {
                    if round == 0 {
                        missing.push(label);
                        run.skip(label, &why);
                    }
                    continue;
                }
            }
            rt.block_on(config(&mut run, args, &sizes, (round, label), target))?;
            run.progress.done(sizes.per_config());
        }
        if args.runs(Part::Pinned) {
            if let Err(why) = &pinned_possible {
                if round == 0 {
                    run.skip(pinned::PINNED, why);
                }
                continue;
            }
            for (label, target) in CONFIGS.iter().filter(|c| pinned::ROWS.contains(&c.0)) {
                if let Target::Peer(kind) = target {
                    if available(*kind).is_err() {
                        continue;
                    }
                }
                rt.block_on(pinned_round(
                    &mut run,
                    common,
                    &sizes,
                    (round, label),
                    *target,
                ))?;
            }
        }
    }
    let skipped = |label: &str| missing.contains(&label);
    if args.runs(Part::Phases) {
        tables(&mut run, &missing);
        plots(&mut run);
    }
    if args.runs(Part::Checkpoint) {
        control::tables(&mut run, &skipped);
        control::plots(&mut run);
    }
    if args.runs(Part::Pinned) {
        let why = pinned_possible.err();
        pinned::table(&mut run, &|label| {
            why.clone()
                .or_else(|| skipped(label).then(|| "not installed".into()))
        });
    }
    run.finish(
        "The seed measured ARCUS (memcached with a command log and snapshots) with persistence \
         off, asynchronous and synchronous logging under memtier_benchmark's phases, and a \
         checkpoint's dip under load. Here Strata's `--persistence off|async|sync` runs beside \
         ARCUS itself in the same three modes (when scripts/peers/arcus built it), Redis's AOF \
         modes and memcached; the data directory's measured \
         fsync latency (above) bounds what synchronous logging can do.",
    )
}

/// One round of the pinned comparison for one server (see `durable_pinned`).
async fn pinned_round(
    run: &mut Run,
    common: &CommonArgs,
    sizes: &Sizes,
    (round, label): (usize, &str),
    target: Target,
) -> Result<(), LabError> {
    let (server, protocol, command) = start(run, common, sizes, target).await?;
    if round == 0 {
        run.note(format!("{label}, pinned: {command}"));
    }
    let pid = server
        .pid()
        .ok_or_else(|| LabError::Config(format!("{label}: the server is not running")))?;
    let argv = [
        "--ratio=1:0".to_owned(),
        format!("--key-max={}", sizes.keys),
        format!("--value-size={}", sizes.value),
        format!("--connections={}", sizes.connections),
        "--key-prefix=memtier-".into(),
        format!("--duration={}", sizes.pinned),
        format!("--seed={}", round + 1),
    ];
    let port = server.port(protocol);
    let measured = pinned::measure(run, (label, round), (pid, port, protocol), &argv).await;
    server.stop().await?;
    measured
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

/// One configuration's round: the phases (or, with `--only checkpoint`, the
/// insert that fills the keys), then the checkpoint timelines if it has them.
async fn config(
    run: &mut Run,
    args: &DurableCacheArgs,
    sizes: &Sizes,
    (round, label): (usize, &str),
    target: Target,
) -> Result<(), LabError> {
    let common = &args.common;
    run.progress
        .step(label, &format!("round {}: starting", round + 1));
    let (server, protocol, command) = start(run, common, sizes, target).await?;
    if round == 0 {
        run.note(format!("{label}: {command}"));
    }
    let port = server.port(protocol);
    let keys = sizes.keys.to_string();
    let phases = if args.runs(Part::Phases) {
        &PHASES[..]
    } else {
        &PHASES[..1]
    };
    for &(step, ratio) in phases {
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
    if args.runs(Part::Checkpoint) && CHECKPOINTED.contains(&label) {
        let load = checkpoint::Load {
            keys: sizes.keys,
            value: sizes.value,
            connections: sizes.connections,
            secs: sizes.timeline,
        };
        let target = checkpoint::Target {
            port,
            protocol,
            resp_port: server.port(Protocol::Resp),
        };
        checkpoint::timelines(run, load, target, (label, round), sizes.pairs).await?;
    }
    server.stop().await
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
}
