//! `INFO tiers` / memcached `stats` fields of the SSD tier.

use std::borrow::Cow;

use super::SsdTier;
use crate::fetch::ReadPath;

impl SsdTier {
    /// `INFO tiers` / `stats` fields of the SSD tier: capacity and use,
    /// device and cache traffic, defragmentation, and what the start found.
    /// `items` are the keyspace's items (all of them are here). The
    /// device's space per user holding blocks comes last
    /// (`tier_ssd_user_<user>_blocks`, `_bytes_used`, `_bytes_live`).
    pub fn info(&self, items: u64) -> Vec<(Cow<'static, str>, String)> {
        let s = self.store().stats();
        let rebuild = self.rebuild_report();
        let pairs: [(&'static str, u64); 34] = [
            ("tier_ssd_direct_io", u64::from(s.direct)),
            ("tier_ssd_space_reserved", u64::from(s.space_reserved)),
            ("tier_ssd_capacity", s.capacity),
            ("tier_ssd_block_size", s.block_size),
            ("tier_ssd_blocks_total", s.blocks_total),
            ("tier_ssd_blocks_free", s.blocks_free),
            ("tier_ssd_blocks_sealed", s.blocks_sealed),
            ("tier_ssd_blocks_reserved", s.blocks_reserved),
            ("tier_ssd_bytes_used", s.bytes_used),
            ("tier_ssd_bytes_live", s.bytes_live),
            ("tier_ssd_items", items),
            ("tier_ssd_tombstones", self.tombstones()),
            ("tier_ssd_appends", s.appends),
            ("tier_ssd_device_reads", s.device_reads),
            ("tier_ssd_device_read_bytes", s.device_read_bytes),
            ("tier_ssd_buffer_reads", s.buffer_reads),
            ("tier_ssd_thread_ring_reads", s.thread_ring_reads),
            ("tier_ssd_block_writes", s.block_writes),
            ("tier_ssd_bytes_written", s.bytes_written),
            ("tier_ssd_syncs", s.syncs),
            ("tier_ssd_cache_budget", s.cache.budget),
            ("tier_ssd_cache_bytes", s.cache.bytes),
            ("tier_ssd_cache_items", s.cache.entries),
            ("tier_ssd_cache_hits", s.cache.hits),
            ("tier_ssd_cache_misses", s.cache.misses),
            ("tier_ssd_cache_evictions", s.cache.evictions),
            ("tier_ssd_defrag_blocks_freed", s.defrag.blocks_freed),
            ("tier_ssd_defrag_entries_moved", s.defrag.entries_moved),
            ("tier_ssd_defrag_bytes_moved", s.defrag.bytes_moved),
            ("tier_ssd_rebuild_ms", rebuild.duration.as_millis() as u64),
            ("tier_ssd_rebuild_entries", rebuild.entries),
            ("tier_ssd_rebuild_items", rebuild.items),
            ("tier_ssd_rebuild_torn_blocks", s.rebuild.torn_blocks),
            ("tier_ssd_rebuild_bytes_dropped", s.rebuild.bytes_dropped),
        ];
        let mut info: Vec<(Cow<'static, str>, String)> = (pairs.iter())
            .map(|&(k, v)| (k.into(), v.to_string()))
            .collect();
        info.push((
            "tier_ssd_flush_interval_ms".into(),
            self.settings().flush_interval.as_millis().to_string(),
        ));
        info.push((
            "tier_ssd_defrag_threshold_pct".into(),
            self.settings().defrag_threshold_pct.to_string(),
        ));
        let path = match self.settings().read_path {
            ReadPath::Deferred => "deferred",
            ReadPath::Inline => "inline",
        };
        info.push(("tier_ssd_read_path".into(), path.into()));
        // How the start found the keys: by scanning the device, or in the
        // persistent index (which reads only the block headers).
        let start = match self.index_home() {
            strata_ssd::IndexHome::Rebuilt => "rebuilt",
            strata_ssd::IndexHome::Persistent => "adopted",
        };
        info.push(("tier_ssd_start".into(), start.into()));
        info.push((
            "tier_ssd_start_keys_lost".into(),
            rebuild.keys_lost.to_string(),
        ));
        info.push((
            "tier_ssd_start_keys_restored".into(),
            rebuild.keys_restored.to_string(),
        ));
        info.push((
            "tier_ssd_fallbacks_kept".into(),
            self.fallbacks_kept().to_string(),
        ));
        for space in &s.users {
            let user = space.user.name();
            for (what, value) in [
                ("blocks", space.blocks),
                ("bytes_used", space.bytes_used),
                ("bytes_live", space.bytes_live),
            ] {
                info.push((
                    format!("tier_ssd_user_{user}_{what}").into(),
                    value.to_string(),
                ));
            }
        }
        info
    }
}
