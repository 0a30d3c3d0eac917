//! Opening the keyspace in its configured placement: the persistent-memory
//! file when the placement uses it, the restore, and the start-up report.

use std::sync::Arc;

use strata_kv::{DataTier, Keyspace, KeyspaceConfig, SystemClock};
use strata_pmem::PersistentArena;

use crate::config::tiers::PMEM_CHUNK_SIZE;
use crate::config::ServerConfig;
use crate::error::ServerError;

/// Kind tag of Strata's keyspace arenas (refuses files made for anything else).
const KEYSPACE_ARENA_KIND: u64 = u64::from_le_bytes(*b"STRATAks");

/// The keyspace `config` asks for, restored from the persistent-memory
/// file when its placement keeps anything there. Blocking (maps and scans).
pub fn open_keyspace(config: &ServerConfig) -> Result<Arc<Keyspace>, ServerError> {
    let placement = config.placement();
    let mut keyspace_config = KeyspaceConfig {
        memory_limit: config.memory_limit.bytes(),
        eviction: config.eviction.policy(),
        max_item_size: usize::try_from(config.max_item_size.bytes()).unwrap_or(usize::MAX),
        shards: config.shards,
    };
    let pmem = if placement.uses_pmem() {
        let path = config.pmem_file();
        let size = config.pmem_size.bytes() / 4096 * 4096;
        let arena = PersistentArena::open_or_create(
            &path,
            size,
            PMEM_CHUNK_SIZE,
            KEYSPACE_ARENA_KIND,
            config.pmem_policy(),
        )
        .map_err(|e| ServerError::Tier(format!("{}: {e}", path.display())))?;
        if placement.data == DataTier::Pmem {
            // The records must fit in the file: keep an eighth for the
            // index tables and for compaction to move records into.
            let room = arena.capacity_bytes() / 8 * 7;
            if keyspace_config.memory_limit > room {
                tracing::info!(
                    memory_limit = keyspace_config.memory_limit,
                    bounded_to = room,
                    "memory_limit bounded by the persistent-memory file"
                );
                keyspace_config.memory_limit = room;
            }
        }
        Some(Arc::new(arena))
    } else {
        None
    };
    let (keyspace, report) =
        Keyspace::open_placed(keyspace_config, Arc::new(SystemClock), placement, pmem)
            .map_err(ServerError::Tier)?;
    if placement.uses_pmem() {
        tracing::info!(
            placement = %placement,
            restarted = report.restarted,
            index = report.index,
            items = report.items,
            records_checked = report.records_checked,
            duplicates_dropped = report.duplicates_dropped,
            segments = report.segments,
            ms = report.duration.as_millis() as u64,
            "keyspace restored from persistent memory"
        );
    }
    Ok(keyspace)
}
