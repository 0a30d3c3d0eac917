//! What a keyspace's placement looks like from outside: the placement
//! served, the tiers it uses, and the per-tier figures for `INFO`.

use std::borrow::Cow;
use std::sync::Arc;

use super::core::Keyspace;
use crate::tier::{DataTier, IndexTier, Placement, PmemTier, SsdTier};

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
    pub fn tier_info(&self) -> Vec<(Cow<'static, str>, String)> {
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
        let mut info: Vec<(Cow<'static, str>, String)> = named([
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
        ])
        .collect();
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
        info.extend(named([
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
        ]));
        if let Some(report) = tier.restart_report() {
            info.extend(named([
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
                (
                    "tier_restart_chunks_counted",
                    u8::from(report.chunks_counted).to_string(),
                ),
            ]));
        }
        info
    }

    /// The SSD tier the keyspace's records live in, if any.
    pub fn ssd(&self) -> Option<&Arc<SsdTier>> {
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
}

/// The persist mode as one word: `dax-clwb`, `emulated-msync`, `simulated`.
fn mode_name(mode: strata_pmem::PersistMode) -> String {
    match mode {
        strata_pmem::PersistMode::Dax { flush } => format!("dax-{}", flush.name()),
        strata_pmem::PersistMode::Emulated => "emulated-msync".into(),
        _ => "simulated".into(),
    }
}

/// `(field, value)` pairs with fixed field names, as `tier_info` returns
/// them.
fn named<const N: usize>(
    pairs: [(&'static str, String); N],
) -> impl Iterator<Item = (Cow<'static, str>, String)> {
    pairs
        .into_iter()
        .map(|(field, value)| (field.into(), value))
}
