//! Opening a keyspace placed (partly) in the persistent arena: the
//! directory, then every shard restored in parallel (`tier::restore_shard`).

use std::sync::Arc;
use std::time::Instant;

use strata_pmem::PersistentArena;

use super::{Keyspace, KeyspaceConfig};
use crate::arena::MAX_SEGMENT_SIZE;
use crate::clock::Clock;
use crate::shard::ShardInner;
use crate::tier::{restore_shard, DataTier, IndexTier, Placement, PmemTier, RestartReport};

/// The bytes before a persistent segment's first record.
const SEGMENT_HEADER: usize = 64;

impl Keyspace {
    /// The placement served.
    pub fn placement(&self) -> Placement {
        if self.ctx.ssd.is_some() {
            let index = match self.tier() {
                Some(_) => IndexTier::Pmem,
                None => IndexTier::Dram,
            };
            return Placement {
                index,
                data: DataTier::Ssd,
            };
        }
        self.tier().map(|t| t.placement()).unwrap_or_default()
    }

    /// Per-tier figures for `INFO` / `stats`, as `(field, value)`: the
    /// placement, bytes and items per tier, the persistent arena's mode
    /// (saying plainly when it is emulated), and what the start found.
    pub fn tier_info(&self) -> Vec<(&'static str, String)> {
        let stats = self.stats();
        let placement = self.placement();
        let data_bytes = stats.used_memory.saturating_sub(stats.index_bytes);
        // With data = ssd the arena (records' bytes here) holds the stubs,
        // which sit with the index.
        let stubs_with_index = placement.data == DataTier::Ssd;
        let in_tier = |index: bool, data: bool| {
            let arena = if stubs_with_index { index } else { data };
            (if index { stats.index_bytes } else { 0 }) + (if arena { data_bytes } else { 0 })
        };
        let mut info = vec![
            ("tier_index", placement.index.to_string()),
            ("tier_data", placement.data.to_string()),
            (
                "tier_dram_bytes_used",
                in_tier(
                    placement.index == IndexTier::Dram,
                    placement.data == DataTier::Dram,
                )
                .to_string(),
            ),
            (
                "tier_dram_items",
                if placement.data == DataTier::Dram {
                    stats.items
                } else {
                    0
                }
                .to_string(),
            ),
        ];
        if let Some(ssd) = &self.ctx.ssd {
            // DRAM holds the record cache, and the index and stubs unless
            // they are in persistent memory.
            let cache = ssd.stats().cache.bytes;
            let dram = in_tier(placement.index == IndexTier::Dram, false) + cache;
            info[2].1 = dram.to_string();
            info.extend(ssd.info(stats.items));
        }
        let Some(tier) = self.tier() else {
            return info;
        };
        let arena = tier.arena().stats();
        info.extend([
            ("tier_pmem_file", arena.file.clone()),
            ("tier_pmem_mode", mode_name(arena.persist_mode)),
            ("tier_pmem_emulated", u8::from(arena.emulated).to_string()),
            (
                "tier_pmem_emulation_reason",
                arena.emulation_reason.clone().unwrap_or_default(),
            ),
            ("tier_pmem_capacity", arena.capacity_bytes.to_string()),
            ("tier_pmem_bytes_allocated", arena.used_bytes.to_string()),
            (
                "tier_pmem_bytes_used",
                in_tier(
                    placement.index == IndexTier::Pmem,
                    placement.data == DataTier::Pmem,
                )
                .to_string(),
            ),
            (
                "tier_pmem_items",
                if placement.data == DataTier::Pmem {
                    stats.items
                } else {
                    0
                }
                .to_string(),
            ),
            ("tier_pmem_generation", arena.generation.to_string()),
            (
                "tier_pmem_clean_shutdown",
                u8::from(arena.was_clean).to_string(),
            ),
        ]);
        if let Some(report) = tier.restart_report() {
            info.extend([
                ("tier_restart_index", report.index.to_string()),
                ("tier_restart_ms", report.duration.as_millis().to_string()),
                ("tier_restart_items", report.items.to_string()),
                (
                    "tier_restart_records_checked",
                    report.records_checked.to_string(),
                ),
                (
                    "tier_restart_duplicates_dropped",
                    report.duplicates_dropped.to_string(),
                ),
            ]);
        }
        info
    }

    /// Opens a keyspace whose records live on the SSD `device` (`data =
    /// ssd`). With `index = dram` the index and stubs are rebuilt by
    /// scanning the write blocks; with `index = pmem` they live in `pmem`
    /// and are adopted as found (`tier/ssd_adopt.rs`).
    pub fn open_ssd(
        config: KeyspaceConfig,
        clock: Arc<dyn Clock>,
        index: IndexTier,
        pmem: Option<Arc<PersistentArena>>,
        device: Arc<dyn strata_ssd::BlockDevice>,
        ssd_config: strata_ssd::SsdConfig,
        settings: crate::tier::SsdSettings,
    ) -> Result<(Arc<Keyspace>, RestartReport), String> {
        match (index, pmem) {
            (IndexTier::Dram, _) => {
                crate::tier::rebuild(config, clock, device, ssd_config, settings)
            }
            (IndexTier::Pmem, Some(arena)) => {
                crate::tier::adopt(config, clock, arena, device, ssd_config, settings)
            }
            (IndexTier::Pmem, None) => {
                Err("index = pmem needs a persistent arena (pmem_path)".into())
            }
        }
    }

    /// The SSD tier the keyspace's records live in, if any.
    pub fn ssd(&self) -> Option<&Arc<crate::tier::SsdTier>> {
        self.ctx.ssd.as_ref()
    }

    /// Makes every record written to the SSD tier so far durable (a clean
    /// shutdown); no-op without it.
    pub fn sync_ssd(&self) {
        if let Some(ssd) = &self.ctx.ssd {
            ssd.sync();
        }
    }

    /// The persistent arena the keyspace is placed in, if any.
    pub fn tier(&self) -> Option<&Arc<PmemTier>> {
        self.ctx.tier.as_ref()
    }

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
                report.items += r.index.len() as u64;
                report.records_checked += r.records_checked;
                report.duplicates_dropped += r.duplicates_dropped;
                report.segments += r.arena.segment_count() as u64;
                max_cas = max_cas.max(r.max_cas);
                let mut inner = ShardInner::with_parts(r.index, r.arena, r.with_expiry);
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

/// The persist mode as one word: `dax-clwb`, `emulated-msync`, `simulated`.
fn mode_name(mode: strata_pmem::PersistMode) -> String {
    match mode {
        strata_pmem::PersistMode::Dax { flush } => format!("dax-{}", flush.name()),
        strata_pmem::PersistMode::Emulated => "emulated-msync".into(),
        _ => "simulated".into(),
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
) -> Result<Vec<crate::tier::RestoredShard>, String> {
    let seed = tier.seed();
    let hash = move |key: &[u8]| xxhash_rust::xxh3::xxh3_64_with_seed(key, seed);
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
