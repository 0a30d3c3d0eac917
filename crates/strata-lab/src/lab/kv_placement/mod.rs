//! `strata lab kv-placement` (seed 001, Aerospike's Hybrid Memory Architecture):
//! the hash index in DRAM or persistent memory, the records in DRAM, persistent
//! memory or on the SSD tier; per placement the seed's phases (load every key,
//! a warm-up of writes, then each measured workload: 50/50, 100% read, 100%
//! write) and the restart time after a SIGKILL.
//!
//! Placements: dram/dram, dram/pmem, dram/ssd, pmem/pmem, pmem/ssd (`--index
//! pmem` needs persistent records, so pmem/dram does not exist). Rounds are
//! interleaved: each round starts every placement afresh, in order.
//!
//! # Layout
//! - `plan`: the placements, workloads, seed figures and sizes.
//! - `placement`: one placement's round (its server, the phases, the
//!   restart) and the memory its keys take.
//! - `report`: the throughput, latency and restart tables with the seed's
//!   figures, and the plots.

mod placement;
mod plan;
mod report;

use std::path::PathBuf;

use self::placement::placement;
use self::plan::Sizes;
pub use self::plan::{LATENCY, PLACEMENTS, RESTART, THROUGHPUT, WORKLOADS};
use self::report::{plots, tables};
use super::common::{runtime, CommonArgs};
use super::run::Run;
use crate::LabError;

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
