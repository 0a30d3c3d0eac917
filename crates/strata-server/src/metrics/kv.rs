//! The key-value side at scrape time: per front end its commands (calls,
//! failures, refusals, latency histograms) and connections; the
//! keyspace's [`KeyspaceStats`](strata_kv::KeyspaceStats); memory by
//! tier (the figures `INFO tiers` reports); the SSD tier and its DRAM
//! record cache; the Redis slow log's length.

use std::fmt::Result;
use std::sync::Arc;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::DescriptorEncoder;
use prometheus_client::registry::Unit;
use strata_kv::Keyspace;
use strata_metrics::CommandTable;
use strata_service::Clients;

use super::encode::{counter, counters, gauge, gauges, histograms, Labels};

/// What a KV front end counts, whatever its protocol.
pub(crate) trait FrontEndCounters: Send + Sync + 'static {
    /// Per-command statistics.
    fn commands(&self) -> &CommandTable;
    /// Its connection registry.
    fn clients(&self) -> &Clients;
}

impl FrontEndCounters for strata_resp::protocol::Shared {
    fn commands(&self) -> &CommandTable {
        &self.commands
    }
    fn clients(&self) -> &Clients {
        &self.clients
    }
}

impl FrontEndCounters for strata_memcache::protocol::Shared {
    fn commands(&self) -> &CommandTable {
        &self.commands
    }
    fn clients(&self) -> &Clients {
        &self.clients
    }
}

/// Reads the keyspace and the KV front ends.
pub(crate) struct KvCollector {
    pub keyspace: Arc<Keyspace>,
    /// `(protocol, counters)`, one per front end (RESP's two ports share one).
    pub front_ends: Vec<(&'static str, Arc<dyn FrontEndCounters>)>,
    /// The RESP front end, for its slow log.
    pub resp: Option<Arc<strata_resp::protocol::Shared>>,
}

impl std::fmt::Debug for KvCollector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KvCollector").finish_non_exhaustive()
    }
}

impl Collector for KvCollector {
    fn encode(&self, mut enc: DescriptorEncoder) -> Result {
        self.commands(&mut enc)?;
        self.connections(&mut enc)?;
        self.keyspace(&mut enc)?;
        self.tiers(&mut enc)?;
        if let Some(resp) = &self.resp {
            gauge(
                &mut enc,
                "redis_slowlog_entries",
                "Entries in the Redis slow log (SLOWLOG LEN).",
                None,
                resp.slowlog.len() as i64,
            )?;
        }
        Ok(())
    }
}

impl KvCollector {
    fn commands(&self, enc: &mut DescriptorEncoder) -> Result {
        let used: Vec<_> = self
            .front_ends
            .iter()
            .map(|(protocol, fe)| (*protocol, fe.commands().used()))
            .collect();
        let rows = |pick: fn(&strata_metrics::CommandSnapshot) -> u64| {
            used.iter().flat_map(move |(protocol, commands)| {
                commands.iter().map(move |(name, s)| {
                    let labels: Labels = vec![("protocol", protocol), ("command", name)];
                    (labels, pick(s))
                })
            })
        };
        counters(
            enc,
            "commands",
            "Commands run, by protocol and command (failed ones included).",
            None,
            rows(|s| s.calls),
        )?;
        counters(
            enc,
            "commands_failed",
            "Commands that ran and answered an error.",
            None,
            rows(|s| s.failed),
        )?;
        counters(
            enc,
            "commands_rejected",
            "Commands refused before running (arity, authentication, permissions, size).",
            None,
            rows(|s| s.rejected),
        )?;
        histograms(
            enc,
            "command_duration",
            "Time commands took to run, by protocol and command (no network or queueing time).",
            used.iter().flat_map(|(protocol, commands)| {
                commands
                    .iter()
                    .filter(|(_, s)| s.calls > 0)
                    .map(move |(name, s)| {
                        let labels: Labels = vec![("protocol", protocol), ("command", name)];
                        (labels, s.latency.clone())
                    })
            }),
        )
    }

    fn connections(&self, enc: &mut DescriptorEncoder) -> Result {
        let by = |f: fn(&Clients) -> u64| {
            self.front_ends
                .iter()
                .map(move |(protocol, fe)| (vec![("protocol", *protocol)], f(fe.clients())))
        };
        gauges(
            enc,
            "connections",
            "Connections open now.",
            None,
            by(|c| c.current() as u64).map(|(l, v)| (l, v as i64)),
        )?;
        counters(
            enc,
            "connections_accepted",
            "Connections accepted since start.",
            None,
            by(Clients::total),
        )?;
        counters(
            enc,
            "connections_rejected",
            "Connections refused at max_connections.",
            None,
            by(Clients::rejected),
        )?;
        counters(
            enc,
            "network_received",
            "Bytes read from clients.",
            Some(Unit::Bytes),
            by(Clients::bytes_read),
        )?;
        counters(
            enc,
            "network_sent",
            "Bytes written to clients.",
            Some(Unit::Bytes),
            by(Clients::bytes_written),
        )
    }

    fn keyspace(&self, enc: &mut DescriptorEncoder) -> Result {
        let s = self.keyspace.stats();
        let g = |v: u64| v as i64;
        gauge(
            enc,
            "keyspace_items",
            "Items held (expired ones not yet reclaimed included).",
            None,
            g(s.items),
        )?;
        gauge(
            enc,
            "keyspace_items_with_expiry",
            "Items that carry an expiry.",
            None,
            g(s.items_with_expiry),
        )?;
        gauge(
            enc,
            "keyspace_used_memory",
            "Bytes counted against the memory limit (records and index).",
            Some(Unit::Bytes),
            g(s.used_memory),
        )?;
        gauge(
            enc,
            "keyspace_memory_limit",
            "The memory limit (maxmemory).",
            Some(Unit::Bytes),
            g(s.memory_limit),
        )?;
        gauge(
            enc,
            "keyspace_index",
            "Bytes of the hash index (part of used memory).",
            Some(Unit::Bytes),
            g(s.index_bytes),
        )?;
        counter(
            enc,
            "keyspace_hits",
            "Reads that found a live item.",
            None,
            s.hits,
        )?;
        counter(
            enc,
            "keyspace_misses",
            "Reads that found nothing.",
            None,
            s.misses,
        )?;
        counter(
            enc,
            "keyspace_writes",
            "Items stored (every successful write).",
            None,
            s.total_items,
        )?;
        counter(
            enc,
            "keyspace_evictions",
            "Items evicted to make room.",
            None,
            s.evictions,
        )?;
        counter(
            enc,
            "keyspace_expired",
            "Expired items reclaimed.",
            None,
            s.expired,
        )?;
        counter(
            enc,
            "keyspace_compactions",
            "Segments compacted.",
            None,
            s.compactions,
        )
    }

    fn tiers(&self, enc: &mut DescriptorEncoder) -> Result {
        // The same figures as `INFO tiers`, so both always agree.
        let info = self.keyspace.tier_info();
        let field = |name: &str| {
            info.iter()
                .find(|(f, _)| f == name)
                .and_then(|(_, v)| v.parse::<u64>().ok())
        };
        let ssd = self.keyspace.ssd().map(|t| t.stats());
        let mut used: Vec<(Labels, i64)> = Vec::new();
        let mut capacity: Vec<(Labels, i64)> = Vec::new();
        if let Some(dram) = field("tier_dram_bytes_used") {
            used.push((vec![("tier", "dram")], dram as i64));
        }
        if let Some(pmem) = field("tier_pmem_bytes_used") {
            used.push((vec![("tier", "pmem")], pmem as i64));
        }
        if let Some(cap) = field("tier_pmem_capacity") {
            capacity.push((vec![("tier", "pmem")], cap as i64));
        }
        if let Some(s) = &ssd {
            used.push((vec![("tier", "ssd")], s.bytes_used as i64));
            capacity.push((vec![("tier", "ssd")], s.capacity as i64));
        }
        gauges(enc, "tier_used", "Bytes of the keyspace's index and records in each memory tier (DRAM includes the SSD tier's record cache).", Some(Unit::Bytes), used)?;
        gauges(
            enc,
            "tier_capacity",
            "Capacity of the persistent-memory file and the SSD device.",
            Some(Unit::Bytes),
            capacity,
        )?;
        let Some(s) = ssd else {
            return Ok(());
        };
        gauge(
            enc,
            "ssd_live",
            "Bytes of live entries on the SSD tier.",
            Some(Unit::Bytes),
            s.bytes_live as i64,
        )?;
        // The device's space per user holding blocks, as `INFO tiers`.
        let users: Vec<(String, &strata_ssd::UserSpace)> =
            s.users.iter().map(|u| (u.user.name(), u)).collect();
        let per_user = |value: fn(&strata_ssd::UserSpace) -> u64| {
            (users.iter())
                .map(|(name, u)| (vec![("user", name.as_str())], value(u) as i64))
                .collect::<Vec<(Labels, i64)>>()
        };
        gauges(
            enc,
            "ssd_user_blocks",
            "SSD tier blocks holding each user's entries.",
            None,
            per_user(|u| u.blocks),
        )?;
        gauges(
            enc,
            "ssd_user_live",
            "Bytes of each user's live entries on the SSD tier.",
            Some(Unit::Bytes),
            per_user(|u| u.bytes_live),
        )?;
        counter(
            enc,
            "ssd_device_reads",
            "Reads served by the SSD device.",
            None,
            s.device_reads,
        )?;
        counter(
            enc,
            "ssd_thread_ring_reads",
            "SSD reads through the serving threads' own io_uring rings.",
            None,
            s.thread_ring_reads,
        )?;
        counter(
            enc,
            "ssd_read",
            "Bytes read from the SSD device.",
            Some(Unit::Bytes),
            s.device_read_bytes,
        )?;
        counter(
            enc,
            "ssd_written",
            "Bytes written to the SSD device.",
            Some(Unit::Bytes),
            s.bytes_written,
        )?;
        counter(enc, "ssd_syncs", "SSD device syncs.", None, s.syncs)?;
        counter(
            enc,
            "ssd_defrag_blocks_freed",
            "SSD write blocks freed by defragmentation or release.",
            None,
            s.defrag.blocks_freed,
        )?;
        counter(
            enc,
            "ssd_defrag_moved",
            "Bytes re-appended by defragmentation.",
            Some(Unit::Bytes),
            s.defrag.bytes_moved,
        )?;
        counter(
            enc,
            "record_cache_hits",
            "SSD tier reads answered by the DRAM record cache.",
            None,
            s.cache.hits,
        )?;
        counter(
            enc,
            "record_cache_misses",
            "SSD tier reads the record cache did not hold.",
            None,
            s.cache.misses,
        )?;
        counter(
            enc,
            "record_cache_evictions",
            "Records evicted from the record cache.",
            None,
            s.cache.evictions,
        )?;
        gauge(
            enc,
            "record_cache_size",
            "Bytes held by the record cache.",
            Some(Unit::Bytes),
            s.cache.bytes as i64,
        )?;
        gauge(
            enc,
            "record_cache_budget",
            "The record cache's byte budget (dram_cache_size; cache_size when shared).",
            Some(Unit::Bytes),
            s.cache.budget as i64,
        )
    }
}
