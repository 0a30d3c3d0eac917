//! Creating and opening an index: shards opened at their durable commits,
//! then the translog replayed from the oldest commit point, each operation
//! applied only to a shard whose commit does not cover it yet.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};
use serde_json::Value;
use strata_log::{CommandLog, Durability};

use super::handle::{FlushState, SearchIndex, METADATA};
use super::stats::IndexCounters;
use super::translog_slot::TranslogSlot;
use crate::analysis::TextTokens;
use crate::durable_json;
use crate::error::{Result, SearchError};
use crate::mapping::document::parse_document;
use crate::mapping::Mappings;
use crate::settings::{IndexSettings, TranslogDurability};
use crate::shard::document::{build_block, NestedCleanup};
use crate::shard::Shard;
use crate::store::{ReadCounters, SearchStorage};
use crate::translog::Operation;

impl SearchIndex {
    /// Creates a new index in `dir` (which must not hold one).
    pub(crate) fn create(
        dir: &Path,
        name: &str,
        settings: IndexSettings,
        mappings: Mappings,
        storage: &SearchStorage,
    ) -> Result<SearchIndex> {
        let body = serde_json::json!({
            "settings": settings.to_json(name),
            "mappings": mappings.to_json(),
        });
        let meta = storage.files.dir(dir)?;
        durable_json::save_in(&*meta, METADATA, &body, &dir.join(METADATA))?;
        SearchIndex::open(dir, name, storage)
    }

    /// Opens the index in `dir` with its files placed as its
    /// `index.store.tier` says on `storage`, replaying its translog above
    /// each shard's durable commit (for `pmem`, the newest refresh).
    pub(crate) fn open(dir: &Path, name: &str, storage: &SearchStorage) -> Result<SearchIndex> {
        let meta_dir = storage.files.dir(dir)?;
        let meta_path = dir.join(METADATA);
        let meta: Value =
            durable_json::load_in(&*meta_dir, METADATA, &meta_path)?.ok_or_else(|| {
                SearchError::io(
                    format!("read {}", meta_path.display()),
                    std::io::Error::from(std::io::ErrorKind::NotFound),
                )
            })?;
        let mut settings = IndexSettings::new(0, String::new());
        let stored = &meta["settings"]["index"];
        settings.creation_date = stored["creation_date"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        settings.uuid = stored["uuid"].as_str().unwrap_or_default().to_string();
        settings.text_tokens = TextTokens::of_created(stored["version"]["created"].as_str());
        let mut applied = stored.clone();
        if let Some(obj) = applied.as_object_mut() {
            for k in ["provided_name", "creation_date", "uuid", "version"] {
                obj.remove(k);
            }
        }
        settings.apply(&applied, true)?;
        let mappings = Mappings::parse(&meta["mappings"])?;
        storage.check(settings.tier())?;
        let reads = Arc::new(ReadCounters::new(storage.cache.owner_id()));
        let pmem_dir = storage.pmem_dir_of(&settings.uuid);

        let mut shards = Vec::new();
        let mut points = Vec::new();
        for n in 0..settings.number_of_shards {
            let mut placed = storage.for_shard(settings.tier(), pmem_dir.as_deref(), n, &reads);
            placed.codec = settings.codec;
            placed.text_tokens = settings.text_tokens;
            let (shard, point) = Shard::open(&dir.join("shards").join(n.to_string()), n, &placed)?;
            shards.push(shard);
            points.push(point);
        }
        let log_dir = storage.files.dir(&dir.join("translog"))?;
        let translog = TranslogSlot::open(log_dir, log_durability(&settings))?;
        let oldest = points.iter().map(|p| p.lsn).min().unwrap_or(0);
        let index = SearchIndex {
            name: name.to_string(),
            dir: dir.to_path_buf(),
            meta: meta_dir,
            files: storage.files.clone(),
            settings: RwLock::new(settings),
            mappings: RwLock::new(Arc::new(mappings)),
            shards,
            translog,
            flushing: Mutex::new(FlushState {
                durable_lsn: oldest,
                at: Instant::now(),
            }),
            last_refresh: Mutex::new(Instant::now() - Duration::from_secs(3600)),
            last_write: Mutex::new(Instant::now()),
            idle_after: storage.idle_after,
            counters: IndexCounters::default(),
            reads,
            replayed: 0,
            saving_metadata: Mutex::new(()),
        };
        let applied = std::cell::Cell::new(0u64);
        let replayed = CommandLog::replay(
            index.translog.dir(),
            oldest + 1,
            |lsn, kind, body| -> Result<()> {
                let op = Operation::decode(kind, body)?;
                let point = points.get(op.shard as usize).ok_or_else(|| {
                    SearchError::illegal(format!(
                        "translog names shard {} of {}",
                        op.shard,
                        points.len()
                    ))
                })?;
                if lsn <= point.lsn {
                    return Ok(());
                }
                applied.set(applied.get() + 1);
                index.replay_operation(&op)
            },
        )?;
        let mut index = index;
        index.replayed = applied.get();
        if replayed.records > 0 {
            tracing::info!(
                index = name,
                records = replayed.records,
                "translog replayed"
            );
            index.refresh()?;
        } else {
            // Nothing to replay: no thread or buffer until the first write.
            index.translog.close_now()?;
        }
        Ok(index)
    }

    fn replay_operation(&self, op: &Operation) -> Result<()> {
        let shard = &self.shards[op.shard as usize];
        let doc = match &op.source {
            None => None,
            Some(source) => {
                let value: Value = serde_json::from_slice(source)
                    .map_err(|e| SearchError::illegal(format!("translog source: {e}")))?;
                let parsed = {
                    let mappings = self.mappings.read();
                    parse_document(&mappings, value)?
                };
                if !parsed.new_fields.is_empty() {
                    let mut mappings = self.mappings.write();
                    let mappings = Arc::make_mut(&mut mappings);
                    for (path, leaf) in &parsed.new_fields {
                        mappings.add_leaf(path, leaf.clone())?;
                    }
                }
                Some(build_block(
                    shard.fields(),
                    shard.source_shapes(),
                    &op.id,
                    source,
                    parsed.values,
                    parsed.nested,
                )?)
            }
        };
        let cleanup = NestedCleanup::for_mapping(&self.mappings.read());
        shard.replay(op, doc, cleanup)
    }
}

/// The translog mode for an index's `translog.*` settings.
pub(super) fn log_durability(settings: &IndexSettings) -> Durability {
    match settings.durability {
        // A bulk request appends many records and waits once, for its last:
        // syncing only when waited for is group commit across requests
        // without syncs in the middle of one.
        TranslogDurability::Request => Durability::OnDemand,
        TranslogDurability::Async => Durability::Async {
            sync_interval: settings.sync_interval,
        },
    }
}
