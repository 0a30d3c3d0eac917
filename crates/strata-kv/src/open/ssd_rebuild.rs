//! Opening a keyspace whose records are on the SSD (`index = dram`,
//! `data = ssd`): the store reads its block headers, then one scan over
//! every entry, in append order, rebuilds the DRAM index and stubs:
//! - a record points its key at itself (a later entry of a key wins);
//! - a tombstone removes its key, and is kept (marked live) if it is the
//!   key's last entry, so the older versions stay shadowed;
//! - a flush marker forgets everything before it, and is kept.
//!
//! Then exactly the entries the keyspace keeps are marked live; blocks with
//! none are freed by [`strata_ssd::Recovery::finish`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use strata_ssd::{BlockDevice, BlockLoc, SsdConfig, SsdStore};

use crate::arena::decode;
use crate::chunk::Namespace;
use crate::clock::Clock;
use crate::config::{segment_size_for, KeyspaceConfig};
use crate::keyspace::Keyspace;
use crate::shard::ssd::FoundRecord;
use crate::shard::ShardInner;
use crate::tier::ssd::{KIND_CHUNK_TOMBSTONE, KIND_FLUSH, KIND_PUT, KIND_TOMBSTONE};
use crate::tier::{DataTier, Placement, RestartReport, SsdRebuild, SsdSettings, SsdTier, ValueRef};

/// Per shard: the last tombstone of each key (in its namespace, see
/// [`crate::chunk`]) whose last entry it is.
type ShardTombstones = Vec<HashMap<(Namespace, Box<[u8]>), BlockLoc>>;

/// What the scan keeps besides the shards.
struct Scan {
    shards: Vec<ShardInner>,
    tombstones: ShardTombstones,
    marker: Option<BlockLoc>,
    max_cas: u64,
    failure: Option<String>,
    segment_size: usize,
}

impl Scan {
    fn fresh(count: usize, segment_size: usize) -> (Vec<ShardInner>, ShardTombstones) {
        (
            (0..count).map(|_| ShardInner::new(segment_size)).collect(),
            (0..count).map(|_| HashMap::new()).collect(),
        )
    }

    fn visit(&mut self, loc: BlockLoc, kind: u8, payload: &[u8], hash: &dyn Fn(&[u8], u64) -> u64) {
        if self.failure.is_some() {
            return;
        }
        let mask = self.shards.len() - 1;
        match kind {
            KIND_PUT => {
                let Some(header) = decode(payload).filter(|h| h.record_len() == payload.len())
                else {
                    self.failure = Some(format!("the SSD entry at {loc} is not a record"));
                    return;
                };
                let key = &payload[header.header_len..header.header_len + header.key_len];
                let h = hash(key, header.flags);
                let i = h as usize & mask;
                let ns = Namespace::of(header.flags);
                self.tombstones[i].remove(&(ns, Box::from(key)));
                self.max_cas = self.max_cas.max(header.cas);
                let found = FoundRecord {
                    key,
                    cas: header.cas,
                    flags: header.flags,
                    expires_at: header.expires_at,
                    vref: ValueRef {
                        loc,
                        len: payload.len() as u32,
                    },
                };
                if let Err(e) = self.shards[i].restore_stub(h, hash, &found) {
                    self.failure = Some(format!("rebuilding the index: {e}"));
                }
            }
            KIND_TOMBSTONE | KIND_CHUNK_TOMBSTONE => {
                let (ns, flags) = match kind {
                    KIND_TOMBSTONE => (Namespace::User, 0),
                    _ => (Namespace::Chunk, crate::chunk::CHUNK),
                };
                let h = hash(payload, flags);
                let i = h as usize & mask;
                self.shards[i].forget_key(ns, h, payload);
                self.tombstones[i].insert((ns, payload.into()), loc);
            }
            KIND_FLUSH => {
                (self.shards, self.tombstones) = Self::fresh(self.shards.len(), self.segment_size);
                self.marker = Some(loc);
            }
            other => {
                self.failure = Some(format!("the SSD entry at {loc} has unknown kind {other}"));
            }
        }
    }
}

/// Opens the SSD tier on `device` and rebuilds the keyspace from it.
pub(crate) fn rebuild(
    config: KeyspaceConfig,
    clock: Arc<dyn Clock>,
    device: Arc<dyn BlockDevice>,
    ssd_config: SsdConfig,
    settings: SsdSettings,
) -> Result<(Arc<Keyspace>, RestartReport), String> {
    let started = Instant::now();
    let describe = |e: strata_ssd::SsdError| format!("SSD tier: {e}");
    let ssd_config = SsdConfig {
        index_home: strata_ssd::IndexHome::Rebuilt,
        ..ssd_config
    };
    let mut recovery = SsdStore::open(device, ssd_config).map_err(describe)?;
    let count = config.shards.clamp(1, 4096).next_power_of_two();
    let seed: u64 = rand::random();
    let hash = move |key: &[u8], flags: u64| crate::chunk::record_hash(seed, key, flags);
    let segment_size = segment_size_for(config.memory_limit, count);
    let (shards, tombstones) = Scan::fresh(count, segment_size);
    let mut scan = Scan {
        shards,
        tombstones,
        marker: None,
        max_cas: 0,
        failure: None,
        segment_size,
    };
    recovery
        .scan(|loc, kind, payload| scan.visit(loc, kind, payload, &hash))
        .map_err(describe)?;
    if let Some(failure) = scan.failure {
        return Err(format!("SSD tier: {failure}"));
    }
    let mut items = 0u64;
    for shard in &scan.shards {
        items += shard.user_len() as u64;
        recovery
            .set_live_many(shard.live_entries())
            .map_err(describe)?;
    }
    let kept: u64 = scan.tombstones.iter().map(|t| t.len() as u64).sum();
    for ((_, key), loc) in scan.tombstones.iter().flatten() {
        recovery.set_live(*loc, key.len()).map_err(describe)?;
    }
    if let Some(marker) = scan.marker {
        recovery
            .set_live(marker, crate::tier::ssd::FLUSH_PAYLOAD_LEN)
            .map_err(describe)?;
    }
    let entries = recovery.stats().entries;
    let store = recovery.finish().map_err(describe)?;
    let tier = Arc::new(SsdTier::new(
        store,
        settings,
        strata_ssd::IndexHome::Rebuilt,
        scan.marker,
    ));
    for ((_, key), loc) in scan.tombstones.iter().flatten() {
        tier.keep_tombstone(*loc, key.len());
    }
    let ks = Keyspace::assemble(&config, clock, seed, scan.shards, None, Some(tier.clone()));
    ks.ctx.raise_cas_above(scan.max_cas);
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
