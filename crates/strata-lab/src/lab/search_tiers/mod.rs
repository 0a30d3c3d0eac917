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
//! docs/s were 30-90% of its). A peer Elasticsearch-compatible server runs
//! beside them: the one `--peer-url` names, or an OpenSearch node the lab
//! starts per round when it is installed (`peer`); without either it is
//! skipped with the reason.
//!
//! # Layout
//! - `plan`: the options, tiers, targets, the seed's Table 4 and the sizes.
//! - `server`: one Strata tier's server, started per round and waited on
//!   until search has recovered.
//! - `peer`: the peer server: a URL, or an OpenSearch node per round.
//! - `phases`: the eventdata phases against one server, recorded as measurements.
//! - `report`: Table 4 with its best row and ratios, and the plots.

mod peer;
mod phases;
mod plan;
mod report;
mod server;

use std::path::PathBuf;

use self::peer::PeerSource;
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
    let peer = PeerSource::choose(args);
    let configs = TIERS.len() + usize::from(peer.is_ok());
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
        if let Ok(source) = &peer {
            if round == 0 {
                run.note(format!("{PEER}: {}", source.describe()));
            }
            run.progress
                .step(PEER, &format!("round {}: starting", round + 1));
            let outcome = rt.block_on(async {
                let (url, node) = source.start(&run.data_dir).await?;
                let outcome = phases(&mut run, &sizes, round, PEER, &url).await;
                drop(node);
                outcome
            });
            // A peer that fails to start or to serve is recorded, not fatal:
            // Strata's tiers were measured and the report is still written.
            if let Err(e) = outcome {
                run.skip(PEER, &format!("round {}: {e}", round + 1));
            }
            run.progress.done(sizes.per_tier());
        }
    }
    if let Err(why) = &peer {
        run.skip(PEER, why);
    }
    tables(&mut run, peer.is_ok());
    plots(&mut run);
    run.finish(
        "The seed ran Elasticsearch on Rally's eventdata track with the index in DRAM with NVMe \
         (a page cache of a fraction of the index), on Optane in App Direct mode, and with \
         Optane as large memory. Here Strata's search tiers take those places: `ssd` with a \
         small block cache for the seed's DRAM configuration, `pmem` for PMEM-AD, `dram` (all \
         in memory) for PMEM-MM.",
    )
}
