//! Opening the keyspace in its configured placement: the persistent-memory
//! file when the placement uses it, the restore, and the start-up report.

use std::sync::Arc;

use strata_cache::SharedCache;
use strata_kv::{CatchUpBudget, DataTier, Keyspace, KeyspaceConfig, SystemClock};
use strata_pmem::PersistentArena;
use strata_ssd::{IoMode, OtherUsers};

use crate::config::tiers::PMEM_CHUNK_SIZE;
use crate::config::{ServerConfig, SsdIo};
use crate::error::ServerError;

/// Kind tag of Strata's keyspace arenas (refuses files made for anything else).
const KEYSPACE_ARENA_KIND: u64 = u64::from_le_bytes(*b"STRATAks");

/// [`open_keyspace`] with search's user of the SSD store when the node
/// serves search and keeps its records there (`data = ssd`): its catalogs
/// are marked as the store opens, then it is handed the finished store,
/// and returned for the search node.
pub fn open_keyspace_sharing(
    config: &ServerConfig,
    shared_cache: Option<&SharedCache>,
) -> Result<(Arc<Keyspace>, Option<Arc<strata_search::NodeStore>>), ServerError> {
    let node_store = search_user(config);
    let other_users = node_store.iter().fold(OtherUsers::none(), |users, node| {
        users.with(Arc::clone(node) as Arc<dyn strata_ssd::MarkUser>)
    });
    let keyspace = open_keyspace(config, shared_cache, other_users)?;
    if let (Some(node), Some(tier)) = (&node_store, keyspace.ssd()) {
        node.attach(tier.store().clone())
            .map_err(|e| ServerError::Tier(e.to_string()))?;
    }
    Ok((keyspace, node_store))
}

/// Search's user of the SSD store, when the node serves search and keeps
/// its key-value records on the SSD tier (`data = ssd`): the flushed
/// segment files of `ssd` and `pmem` indices go there.
fn search_user(config: &ServerConfig) -> Option<Arc<strata_search::NodeStore>> {
    let on_ssd = config.placement().data == DataTier::Ssd;
    (config.http_enabled && on_ssd).then(|| {
        let files = strata_search::SearchFiles::default();
        Arc::new(strata_search::NodeStore::new(files, &config.search_root()))
    })
}

/// The keyspace `config` asks for, restored from the persistent-memory
/// file when its placement keeps anything there; on the SSD tier its
/// records are cached in `shared_cache` when given (`cache_size`), and
/// the store's `other_users` (search's segment files) mark their entries
/// before its opening finishes. Blocking (maps and scans).
pub fn open_keyspace(
    config: &ServerConfig,
    shared_cache: Option<&SharedCache>,
    other_users: OtherUsers,
) -> Result<Arc<Keyspace>, ServerError> {
    let placement = config.placement();
    let mut keyspace_config = KeyspaceConfig {
        memory_limit: config.memory_limit.bytes(),
        eviction: config.eviction.policy(),
        max_item_size: usize::try_from(config.max_item_size.bytes()).unwrap_or(usize::MAX),
        shards: config.shards,
        catch_up: CatchUpBudget::default(),
    };
    if placement.data == DataTier::Ssd {
        return open_on_ssd(config, keyspace_config, shared_cache, other_users);
    }
    let pmem = if placement.uses_pmem() {
        Some(open_arena(config, &mut keyspace_config)?)
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

/// Opens the persistent-memory file. When the arena holds records (or the
/// SSD tier's stubs), the memory limit is bounded by the file: an eighth
/// is kept for the index tables and for compaction to move records into.
fn open_arena(
    config: &ServerConfig,
    keyspace_config: &mut KeyspaceConfig,
) -> Result<Arc<PersistentArena>, ServerError> {
    let path = config.pmem_file();
    let size = config.pmem_size.bytes() / 4096 * 4096;
    let arena = PersistentArena::open_or_create(
        &path,
        size,
        PMEM_CHUNK_SIZE,
        KEYSPACE_ARENA_KIND,
        config.pmem_policy(),
    )
    // The arena's errors name the file.
    .map_err(|e| ServerError::Tier(e.to_string()))?;
    if config.placement().data != DataTier::Dram {
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
    Ok(Arc::new(arena))
}

/// Opens the SSD tier's device and the keyspace on it: rebuilt from its
/// blocks (index in DRAM) or adopted from persistent memory.
fn open_on_ssd(
    config: &ServerConfig,
    mut keyspace_config: KeyspaceConfig,
    shared_cache: Option<&SharedCache>,
    other_users: OtherUsers,
) -> Result<Arc<Keyspace>, ServerError> {
    let index = config.placement().index;
    let pmem = if config.placement().uses_pmem() {
        Some(open_arena(config, &mut keyspace_config)?)
    } else {
        None
    };
    let path = config.ssd_dir();
    let mode = match config.ssd_io {
        SsdIo::Direct => IoMode::Direct,
        SsdIo::Buffered => IoMode::Buffered,
    };
    // The store's errors name the path and what is wrong.
    let device = strata_ssd::open_ssd_path(&path, config.ssd_size.bytes(), mode)
        .map_err(|e| ServerError::Tier(format!("{}: {e}", path.display())))?;
    if !device.space_reserved() {
        tracing::warn!(
            path = %path.display(),
            "the filesystem cannot reserve the SSD tier's file (no fallocate): it stays sparse, \
             and if the filesystem fills up, a failed write stops the server"
        );
    }
    let (keyspace, report) = Keyspace::open_ssd(
        keyspace_config,
        Arc::new(SystemClock),
        index,
        pmem,
        device,
        strata_ssd::SsdConfig {
            shared_cache: shared_cache.cloned(),
            ..config.ssd_config()
        },
        strata_kv::SsdSettings {
            other_users,
            ..config.ssd_settings()
        },
    )
    .map_err(ServerError::Tier)?;
    tracing::info!(
        path = %path.display(),
        direct = matches!(mode, IoMode::Direct),
        placement = %report.placement,
        index = report.index,
        items = report.items,
        entries_checked = report.records_checked,
        ms = report.duration.as_millis() as u64,
        "keyspace opened on the SSD tier"
    );
    Ok(keyspace)
}
