//! `strata lab durable-cache` (seed 004, ARCUS's command log and snapshots):
//! persistence off / async / sync under the seed's memtier-style phases (insert
//! every key, uniform reads, then writes:reads 1:9, 3:7 and 5:5), throughput
//! and average/p90/p95/p99 latency, beside Redis (no AOF, `appendfsync
//! everysec`, `appendfsync always`), memcached and, when `scripts/peers/arcus`
//! has built it, ARCUS itself (`use_persistence` false, and true with
//! `async_logging` true or false); then a checkpoint under a 1:9 load as a
//! per-second timeline (Strata async and Redis everysec, BGSAVE), Strata's
//! against interleaved control runs without one (`checkpoint`); and
//! Strata's sync logging against Redis `appendfsync always` with server and
//! client pinned to their own cores (`pinned`).
//!
//! Strata, memcached and ARCUS are driven over the memcached text protocol, Redis over RESP, all by the same `bench kv` client.
//!
//! # Layout
//! - `plan`: the options, the configurations, the phases and the sizes.
//! - `rounds`: one configuration's round (its server, the phases, the
//!   checkpoint timelines) and one pinned round.
//! - `report`: the throughput and latency tables and their plots.
//! - `checkpoint`: the checkpoint under load and its control runs;
//!   `control`: their tables and plots.
//! - `pinned`: sync logging against Redis `always` on pinned cores.

mod checkpoint;
mod control;
mod pinned;
mod plan;
mod report;
mod rounds;

use std::path::PathBuf;
use std::time::Duration;

use self::checkpoint::CHECKPOINTED;
pub use self::plan::DurableCacheArgs;
use self::plan::{Part, Sizes, Target, CONFIGS};
use self::report::{plots, tables};
use self::rounds::{config, pinned_round};
use super::common::{runtime, secs};
use super::peers::available;
use super::run::Run;
use crate::LabError;

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
