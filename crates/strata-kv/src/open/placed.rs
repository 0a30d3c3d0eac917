//! Opening a keyspace placed (partly) in the persistent arena: the
//! directory, then every shard restored in parallel (`restart.rs`).

use std::sync::Arc;
use std::time::Instant;

use strata_pmem::PersistentArena;

use super::restart::{restore_shard, RestoredShard};
use crate::arena::MAX_SEGMENT_SIZE;
use crate::clock::Clock;
use crate::config::KeyspaceConfig;
use crate::keyspace::Keyspace;
use crate::shard::ShardInner;
use crate::tier::{DataTier, Placement, PmemTier, RestartReport};

/// The bytes before a persistent segment's first record.
const SEGMENT_HEADER: usize = 64;

impl Keyspace {
    /// Opens a keyspace with `placement`. `dram`/`dram` is [`Keyspace::new`];
    /// any placement using persistent memory needs `pmem`, whose keyspace
    /// (if any) is restored: served as found with the index in the arena,
    /// rebuilt from the records with the index in DRAM. The error names
    /// what is wrong (a missing arena, damage, a placement that differs
    /// from the one the arena was made with, an unavailable tier).
    pub fn open_placed(
        config: KeyspaceConfig,
        clock: Arc<dyn Clock>,
        placement: Placement,
        pmem: Option<Arc<PersistentArena>>,
    ) -> Result<(Arc<Keyspace>, RestartReport), String> {
        let started = Instant::now();
        if placement.data == DataTier::Ssd {
            return Err("data = ssd is opened with Keyspace::open_ssd".into());
        }
        if !placement.uses_pmem() {
            let report = RestartReport {
                placement,
                index: "new",
                ..RestartReport::default()
            };
            return Ok((Keyspace::new(config, clock), report));
        }
        let arena =
            pmem.ok_or_else(|| format!("{placement} needs a persistent arena (pmem_path)"))?;
        let tier = open_tier(arena, placement, &config)?;
        let restored = restore_all(&tier, placement)?;
        let mut report = RestartReport {
            placement,
            restarted: tier.restarted(),
            ..RestartReport::default()
        };
        let mut max_cas = 0;
        let inners: Vec<ShardInner> = restored
            .into_iter()
            .map(|r| {
                report.records_checked += r.records_checked;
                report.duplicates_dropped += r.duplicates_dropped;
                report.segments += r.arena.segment_count() as u64;
                report.chunks_counted |= r.chunks_counted;
                max_cas = max_cas.max(r.max_cas);
                let mut inner = ShardInner::with_parts(r.index, r.arena, r.with_expiry, r.chunks);
                report.items += inner.user_len() as u64;
                inner.pending_recount = r.needs_recount;
                inner
            })
            .collect();
        report.index = match (tier.restarted(), placement.instant_restart()) {
            (false, _) => "new",
            (true, true) => "adopted",
            (true, false) if placement.data_persists() => "rebuilt",
            (true, false) => "new",
        };
        let lease = tier.lease();
        let ks = Keyspace::assemble(&config, clock, tier.seed(), inners, Some(tier), None);
        ks.ctx.raise_cas_above(lease.max(max_cas));
        report.duration = started.elapsed();
        if let Some(tier) = ks.tier() {
            tier.set_restart_report(report.clone());
        }
        Ok((ks, report))
    }
}

/// Opens (or makes) the keyspace directory in `arena` for `placement`.
/// Records (`data = pmem`) or stubs (`data = ssd`) live in segments of one
/// chunk run, so the chunk must fit a segment.
pub(crate) fn open_tier(
    arena: Arc<PersistentArena>,
    placement: Placement,
    config: &KeyspaceConfig,
) -> Result<Arc<PmemTier>, String> {
    let chunk = arena.chunk_size() as usize;
    if placement.data != DataTier::Dram && chunk > MAX_SEGMENT_SIZE {
        return Err(format!(
            "data = {} keeps segments in the arena: it needs a chunk size of at most \
             {MAX_SEGMENT_SIZE} bytes, not {chunk}",
            placement.data
        ));
    }
    let shards = config.shards.clamp(1, 4096).next_power_of_two();
    let tier = PmemTier::open(arena, placement, shards, chunk - SEGMENT_HEADER)?;
    Ok(Arc::new(tier))
}

/// Restores every shard, spread over the machine's cores.
pub(crate) fn restore_all(
    tier: &Arc<PmemTier>,
    placement: Placement,
) -> Result<Vec<RestoredShard>, String> {
    let seed = tier.seed();
    let hash = move |key: &[u8], flags: u64| crate::chunk::record_hash(seed, key, flags);
    let mut shards: Vec<usize> = (0..tier.shards()).collect();
    on_cores(&mut shards, |&mut shard| {
        restore_shard(tier, placement, shard, &hash)
    })
}

/// `f` over every item, the items split into one contiguous run per core
/// (restarts: shards are alike in size); the results in item order, or
/// the first error.
pub(crate) fn on_cores<T: Send, R: Send>(
    items: &mut [T],
    f: impl Fn(&mut T) -> Result<R, String> + Sync,
) -> Result<Vec<R>, String> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, items.len().max(1));
    let per_thread = items.len().div_ceil(threads).max(1);
    let f = &f;
    let runs: Vec<Result<Vec<R>, String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks_mut(per_thread)
            .map(|run| scope.spawn(move || run.iter_mut().map(f).collect()))
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err("a restore thread panicked".into()))
            })
            .collect()
    });
    let mut all = Vec::with_capacity(items.len());
    for run in runs {
        all.extend(run?);
    }
    Ok(all)
}
