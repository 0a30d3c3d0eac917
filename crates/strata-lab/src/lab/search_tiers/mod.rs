//! `strata lab search-tiers` (seed 000, Elasticsearch on Optane): Rally's
//! eventdata track (`bench eventdata`) per search tier: bulk indexing
//! throughput, dashboard search latency, and the mixed phase (indexing at a
//! paced rate while querying) at three indexing targets, with "relative" (older
//! data) and "current" (data being indexed) latency. The seed's Table 4 with
//! this machine's figures and its "best" row.
//!
//! Tiers: `dram` (everything in memory: the seed's large-memory PMEM-MM),
//! `ssd` with a small block cache (the seed's DRAM config, whose page cache held
//! a fraction of the index), `pmem` (fresh segments durable in persistent
//! memory: the seed's PMEM-AD). The mixed targets are 30%, 60% and 90% of the
//! tier's own indexing throughput in the same round (the seed's 50k/100k/150k
//! docs/s were 30-90% of its). A peer Elasticsearch-compatible server is run
//! with `--peer-url`, and skipped otherwise.
//!
//! # Layout
//! - `plan`: the options, tiers, targets, the seed's Table 4 and the sizes.
//! - `server`: one Strata tier's server, started per round and waited on
//!   until search has recovered.
//! - `phases`: the eventdata phases against one server, recorded as measurements.
//! - `report`: Table 4 with its best row and ratios, and the plots.

mod phases;
mod plan;
mod report;
mod server;

use std::path::PathBuf;

use self::phases::phases;
pub use self::plan::SearchTiersArgs;
use self::plan::{Sizes, PEER, TIERS};
use self::report::{plots, tables};
use self::server::strata_tier;
use super::common::runtime;
use super::kv_step::size_arg;
use super::run::Run;
use crate::LabError;

/// Runs the experiment.
pub fn run(args: &SearchTiersArgs) -> Result<PathBuf, LabError> {
    let common = &args.common;
    let sizes = Sizes::new(common.quick);
    let rounds = common.rounds();
    let configs = TIERS.len() + usize::from(args.peer_url.is_some());
    let planned = sizes.per_tier() * (configs * rounds) as u32;
    let mut run = Run::start(
        "search-tiers",
        "000",
        common,
        planned,
        common.server_binary.as_deref(),
    )?;
    run.param("docs", sizes.docs);
    run.param("query_iterations", sizes.query_iterations);
    run.param("mixed_secs_per_target", sizes.mixed_secs);
    run.param("ssd_cache", size_arg(sizes.cache));
    run.param(
        "index",
        "2 shards, refresh 1s, request durability, 4 bulk clients of 1,000 documents",
    );
    let rt = runtime()?;
    for round in 0..rounds {
        for (label, tier) in TIERS {
            rt.block_on(strata_tier(&mut run, common, &sizes, round, (label, tier)))?;
            run.progress.done(sizes.per_tier());
        }
        if let Some(url) = &args.peer_url {
            rt.block_on(phases(&mut run, &sizes, round, PEER, url))?;
            run.progress.done(sizes.per_tier());
        }
    }
    if args.peer_url.is_none() {
        run.skip(PEER, "no --peer-url given (an Elasticsearch-compatible server such as OpenSearch 2.19, see /work/shared/peers.md)");
    }
    tables(&mut run, args.peer_url.is_some());
    plots(&mut run);
    run.finish(
        "The seed ran Elasticsearch on Rally's eventdata track with the index in DRAM with NVMe \
         (a page cache of a fraction of the index), on Optane in App Direct mode, and with \
         Optane as large memory. Here Strata's search tiers take those places: `ssd` with a \
         small block cache for the seed's DRAM configuration, `pmem` for PMEM-AD, `dram` (all \
         in memory) for PMEM-MM.",
    )
}
