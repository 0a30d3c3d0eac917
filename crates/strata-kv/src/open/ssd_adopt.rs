//! Opening a keyspace with its index in persistent memory and its records
//! on the SSD (`index = pmem`, `data = ssd`): the instant restart.
//!
//! The arena holds the index tables and the stubs (segments of claimed
//! chunk runs, as with `data = pmem`), so a restart adopts them as found
//! (`restart.rs`). The SSD is not scanned: its block headers say which
//! blocks hold entries and how far each reached the device (blocks written
//! since the last sync are read to cut torn tails). Then every stub marks
//! its entry live, shards in parallel; a stub whose entry lies past its
//! block's durable end (its record never reached the device) is repaired
//! to name its key's newest record that did, found from its prior
//! (`ssd_repair.rs`), or leaves the index if there is none. Blocks nothing
//! points at are freed.
//!
//! Deletes need no tombstones here: removing the index entry (one
//! persisted 8-byte store) is the durable delete, and a flush bumps the
//! arena's epoch. So the device is formatted for a persistent index
//! (`IndexHome::Persistent`) and cannot be opened with `index = dram`, and
//! the arena records the device's identity, refusing any other device.

use std::sync::Arc;
use std::time::Instant;

use strata_pmem::PersistentArena;
use strata_ssd::{BlockDevice, IndexHome, SsdConfig, SsdStore};

use super::placed::{on_cores, open_tier, restore_all};
use super::ssd_repair::{self, Lost};
use crate::clock::Clock;
use crate::config::KeyspaceConfig;
use crate::keyspace::Keyspace;
use crate::shard::ShardInner;
use crate::tier::{
    DataTier, IndexTier, Placement, RestartReport, SsdRebuild, SsdSettings, SsdTier,
};

/// Opens (or creates) the keyspace in `arena` over the SSD `device`.
pub(crate) fn adopt(
    config: KeyspaceConfig,
    clock: Arc<dyn Clock>,
    arena: Arc<PersistentArena>,
    device: Arc<dyn BlockDevice>,
    ssd_config: SsdConfig,
    settings: SsdSettings,
) -> Result<(Arc<Keyspace>, RestartReport), String> {
    let started = Instant::now();
    let placement = Placement {
        index: IndexTier::Pmem,
        data: DataTier::Ssd,
    };
    let describe = |e: strata_ssd::SsdError| format!("SSD tier: {e}");
    let ssd_config = SsdConfig {
        index_home: IndexHome::Persistent,
        ..ssd_config
    };
    let tier = open_tier(arena, placement, &config)?;
    let mut recovery = SsdStore::open(device, ssd_config).map_err(describe)?;
    tier.bind_ssd(recovery.device_id())?;
    recovery.adopt().map_err(describe)?;
    let headers_read = started.elapsed();
    let restored = restore_all(&tier, placement)?;
    let index_adopted = started.elapsed();
    let mut max_cas = 0;
    let mut inners: Vec<ShardInner> = restored
        .into_iter()
        .map(|r| {
            max_cas = max_cas.max(r.max_cas);
            let mut inner = ShardInner::with_parts(r.index, r.arena, r.with_expiry, r.chunks);
            inner.pending_recount = r.needs_recount;
            inner
        })
        .collect();
    let adopted = on_cores(&mut inners, |shard| shard.adopt_ssd_entries(&recovery))?;
    let stubs_checked = started.elapsed();
    let checked: u64 = adopted.iter().map(|a| a.checked).sum();
    let lost: Vec<Lost> = adopted
        .into_iter()
        .enumerate()
        .flat_map(|(shard, a)| a.lost.into_iter().map(move |l| (shard, l)))
        .collect();
    let choices = ssd_repair::choose(&recovery, &lost)?;
    let entries_read = recovery.stats().entries;
    // The other users' entries too, or finishing frees them.
    settings.other_users.mark_all(&recovery).map_err(describe)?;
    let store = recovery.finish().map_err(describe)?;
    let repaired = ssd_repair::apply(&store, &mut inners, &lost, &choices)?;
    let ssd = Arc::new(SsdTier::new(store, settings, IndexHome::Persistent, None));
    let items: u64 = inners.iter().map(|s| s.user_len() as u64).sum();
    let lease = tier.lease();
    let restarted = tier.restarted();
    let ks = Keyspace::assemble(
        &config,
        clock,
        tier.seed(),
        inners,
        Some(tier.clone()),
        Some(ssd.clone()),
    );
    ks.ctx.raise_cas_above(lease.max(max_cas));
    ks.set_room_hook(Keyspace::make_room_on_ssd);
    let duration = started.elapsed();
    let report = RestartReport {
        placement,
        restarted,
        index: if restarted { "adopted" } else { "new" },
        items,
        records_checked: checked,
        duplicates_dropped: 0,
        segments: 0,
        chunks_counted: restarted,
        duration,
    };
    tier.set_restart_report(report.clone());
    ssd.set_rebuild_report(SsdRebuild {
        entries: entries_read,
        items,
        tombstones: 0,
        duration,
        keys_lost: repaired.lost,
        keys_restored: repaired.restored,
    });
    if repaired.restored > 0 {
        tracing::warn!(
            keys = repaired.restored,
            "keys written within the flush window before the crash were restored to \
             their newest record that reached the SSD"
        );
    }
    if repaired.lost > 0 {
        tracing::warn!(
            keys = repaired.lost,
            "keys created within the flush window before the crash are absent: \
             none of their records had reached the SSD"
        );
    }
    tracing::info!(
        items,
        checked,
        ?duration,
        ?headers_read,
        ?index_adopted,
        ?stubs_checked,
        "keyspace adopted from persistent memory over the SSD tier"
    );
    Ok((ks, report))
}
