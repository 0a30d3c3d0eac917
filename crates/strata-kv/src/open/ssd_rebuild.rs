//! Opening a keyspace whose records are on the SSD (`index = dram`,
//! `data = ssd`): the store reads its block headers, then one scan over
//! every entry, in append order, rebuilds the DRAM index and stubs:
//! - a record points its key at itself (a later entry of a key wins);
//! - a tombstone removes its key, and is kept (marked live) if it is the
//!   key's last entry, so the older versions stay shadowed;
//! - a flush marker forgets everything before it, and is kept.
//!
//! The scan is split among workers, one per core (`ssd_rebuild_part.rs`):
//! each owns a set of shards and sees exactly its keys' entries in append
//! order, so the keyspace comes out as one thread would build it. Each
//! index is sized ahead from the entry count the block headers announce,
//! and each worker counts the live bytes of the records it keeps as it
//! goes. Then the kept tombstones and the marker are marked live too;
//! blocks with nothing live are freed by [`strata_ssd::Recovery::finish`].

use std::sync::Arc;
use std::time::Instant;

use strata_ssd::{BlockDevice, SsdConfig, SsdStore};

use super::ssd_rebuild_part::{Layout, Part};
use crate::clock::Clock;
use crate::config::{segment_size_for, KeyspaceConfig};
use crate::keyspace::Keyspace;
use crate::shard::ShardInner;
use crate::tier::{DataTier, Placement, RestartReport, SsdRebuild, SsdSettings, SsdTier};

/// Opens the SSD tier on `device` and rebuilds the keyspace from it, one
/// worker per core.
pub(crate) fn rebuild(
    config: KeyspaceConfig,
    clock: Arc<dyn Clock>,
    device: Arc<dyn BlockDevice>,
    ssd_config: SsdConfig,
    settings: SsdSettings,
) -> Result<(Arc<Keyspace>, RestartReport), String> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    rebuild_with(config, clock, device, ssd_config, settings, workers)
}

/// [`rebuild`] with `workers` workers (at most one per shard).
pub(crate) fn rebuild_with(
    config: KeyspaceConfig,
    clock: Arc<dyn Clock>,
    device: Arc<dyn BlockDevice>,
    ssd_config: SsdConfig,
    settings: SsdSettings,
    workers: usize,
) -> Result<(Arc<Keyspace>, RestartReport), String> {
    let started = Instant::now();
    let describe = |e: strata_ssd::SsdError| format!("SSD tier: {e}");
    let ssd_config = SsdConfig {
        index_home: strata_ssd::IndexHome::Rebuilt,
        ..ssd_config
    };
    let mut recovery = SsdStore::open(device, ssd_config).map_err(describe)?;
    let count = config.shards.clamp(1, 4096).next_power_of_two();
    // Every entry a distinct key, as after a load; a few more per shard for
    // the spread of the hash. Tables left mostly empty shrink at the end.
    let per_shard = usize::try_from(recovery.entries_announced() / count as u64).unwrap_or(0);
    let layout = Layout {
        shards: count,
        workers: workers.clamp(1, count),
        segment_size: segment_size_for(config.memory_limit, count),
        reserve: per_shard + per_shard / 32 + 16,
        seed: rand::random(),
    };
    let mut parts: Vec<Part> = (0..layout.workers).map(|w| Part::new(layout, w)).collect();
    recovery
        .scan_split(
            &mut parts,
            |kind, payload| layout.route(kind, payload),
            |part, tally, entry| part.visit(tally, entry),
            |part, tag| part.prefetch(tag),
        )
        .map_err(describe)?;
    if let Some(failure) = parts.iter_mut().find_map(|p| p.failure.take()) {
        return Err(format!("SSD tier: {failure}"));
    }
    // Every part saw every marker.
    let marker = parts[0].marker;
    let max_cas = parts.iter().map(|p| p.max_cas).max().unwrap_or(0);
    let tombstones: Vec<_> = parts
        .iter_mut()
        .flat_map(|p| std::mem::take(&mut p.tombstones))
        .flatten()
        .map(|(key, loc)| (loc, key.len() - 1))
        .collect();
    // Shard i is part i % W's (i / W)th.
    let mut owned: Vec<_> = parts.into_iter().map(|p| p.shards.into_iter()).collect();
    let hasher = |key: &[u8], flags: u64| crate::chunk::record_hash(layout.seed, key, flags);
    let mut shards: Vec<ShardInner> = Vec::with_capacity(count);
    for i in 0..count {
        let mut shard = owned[i % layout.workers]
            .next()
            .ok_or("SSD tier: a rebuild worker lost a shard")?;
        shard.fit_index(&hasher);
        shards.push(shard);
    }
    let items: u64 = shards.iter().map(|s| s.user_len() as u64).sum();
    let kept = tombstones.len() as u64;
    for &(loc, len) in &tombstones {
        recovery.set_live(loc, len).map_err(describe)?;
    }
    if let Some(marker) = marker {
        recovery
            .set_live(marker, crate::tier::ssd::FLUSH_PAYLOAD_LEN)
            .map_err(describe)?;
    }
    let entries = recovery.stats().entries;
    // The other users' entries too, or finishing frees them.
    settings.other_users.mark_all(&recovery).map_err(describe)?;
    let store = recovery.finish().map_err(describe)?;
    let tier = Arc::new(SsdTier::new(
        store,
        settings,
        strata_ssd::IndexHome::Rebuilt,
        marker,
    ));
    for &(loc, len) in &tombstones {
        tier.keep_tombstone(loc, len);
    }
    let ks = Keyspace::assemble(
        &config,
        clock,
        layout.seed,
        shards,
        None,
        Some(tier.clone()),
    );
    ks.ctx.raise_cas_above(max_cas);
    ks.set_room_hook(Keyspace::make_room_on_ssd);
    let duration = started.elapsed();
    tier.set_rebuild_report(SsdRebuild {
        entries,
        items,
        tombstones: kept,
        duration,
        keys_lost: 0,
        keys_restored: 0,
    });
    let report = RestartReport {
        placement: Placement {
            data: DataTier::Ssd,
            ..Placement::default()
        },
        restarted: entries > 0,
        index: if entries > 0 { "rebuilt" } else { "new" },
        items,
        records_checked: entries,
        chunks_counted: entries > 0,
        duration,
        ..RestartReport::default()
    };
    tracing::info!(
        items,
        entries,
        tombstones = kept,
        ?duration,
        "keyspace rebuilt from the SSD tier"
    );
    Ok((ks, report))
}
