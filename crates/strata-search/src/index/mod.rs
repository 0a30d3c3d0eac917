//! `SearchIndex`: one Elasticsearch index = settings, mapping, a translog
//! and `number_of_shards` [`Shard`]s, with documents routed by id.
//!
//! On disk under the index's directory: `index.json` (settings and mapping,
//! replaced atomically and durably through the device layer at creation
//! and at every change), `translog/` (the command log) and `shards/<n>/`
//! (tantivy files).
//!
//! - `handle`: the `SearchIndex` struct itself, the state the methods
//!   here and in the modules below share.
//! - `counters`: operation counters and latency histograms.
//! - `disk_usage`: bytes per field and structure (`_disk_usage`).
//! - `documents`: index, create, get, delete, update.
//! - `inspect`: a query translated, a score explained, the shards'
//!   searchers (`_validate`, `_explain`, `_cat`).
//! - `recovery`: opening an index, replaying its translog.
//! - `stats`: counters for `_stats` and `_cat`.
//! - `translog_slot`: the translog, open only while the index is written.
//! - `tests`: unit tests of the idle close and the translog's mode.
//!
//! An index nobody writes to holds no tantivy writer and no open
//! translog: both are opened by the first write, and closed again (after
//! a flush) once the index has seen no write for the storage's
//! `idle_after`, as Elasticsearch flushes inactive shards.

mod counters;
mod disk_usage;
mod documents;
mod handle;
mod inspect;
mod recovery;
pub mod stats;
mod translog_slot;

#[cfg(test)]
mod tests;

use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

pub use disk_usage::FieldDiskUsage;
pub use documents::{DocWriteResult, WriteResult};
pub use handle::SearchIndex;
pub(crate) use handle::METADATA;

use crate::analysis::TextTokens;
use crate::durable_json;
use crate::error::{Result, SearchError};
use crate::index_limits::IndexLimits;
use crate::mapping::Mappings;
use crate::settings::{IndexSettings, TranslogDurability};
use crate::shard::Shard;
use crate::store::StoreTier;

/// Translog bytes after which the background task flushes an index.
pub const FLUSH_THRESHOLD_BYTES: u64 = 256 << 20;

/// The tokens (byte offsets and term) the `text` fields of `index` make
/// of `text`, as `_analyze` by a field shows them; without an index,
/// Elasticsearch's `standard` analyzer's.
pub fn analyze_text(index: Option<&SearchIndex>, text: &str) -> Vec<(usize, usize, String)> {
    let split = index.map_or(TextTokens::Standard, |i| i.settings.read().text_tokens);
    split.tokens(text)
}

impl SearchIndex {
    /// The index name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `index.hidden`.
    pub(crate) fn is_hidden(&self) -> bool {
        self.settings.read().hidden
    }

    /// A copy of the settings.
    pub fn settings(&self) -> IndexSettings {
        self.settings.read().clone()
    }

    /// The slow log settings, without copying the rest of the settings
    /// (read for every search and document).
    pub(crate) fn settings_slowlog(&self) -> crate::slowlog::SlowLogSettings {
        self.settings.read().slowlog
    }

    /// `number_of_replicas`, without copying the settings (every bulk
    /// item's reply names it).
    pub fn number_of_replicas(&self) -> u32 {
        self.settings.read().number_of_replicas
    }

    /// The index's limits (`index.max_terms_count`, ...).
    pub(crate) fn limits(&self) -> IndexLimits {
        self.settings.read().limits.clone()
    }

    /// `index.max_slices_per_scroll`: the most slices a sliced scroll may
    /// have (a point in time is not bound by it).
    pub fn max_slices_per_scroll(&self) -> u64 {
        self.settings.read().limits.max_slices_per_scroll()
    }

    /// The mapping as it is now (shared: an update replaces it whole, so
    /// a search keeps the one it started with without copying it).
    pub fn mappings(&self) -> Arc<Mappings> {
        Arc::clone(&self.mappings.read())
    }

    /// Where the index's files are placed (`index.store.tier`).
    pub fn tier(&self) -> StoreTier {
        self.settings.read().tier()
    }

    /// Translog records replayed when the index was opened (none for what
    /// a `pmem` refresh had made durable).
    pub fn replayed_at_open(&self) -> u64 {
        self.replayed
    }

    /// The shards.
    pub(crate) fn shards(&self) -> &[Shard] {
        &self.shards
    }

    /// Applies a `PUT _settings` body. A new `translog.durability` or
    /// `translog.sync_interval` takes effect on the translog at once
    /// (switching syncs what was appended before, see
    /// [`CommandLog::set_durability`]).
    pub fn update_settings(&self, body: &Value) -> Result<()> {
        let mut settings = self.settings.write();
        let mut next = settings.clone();
        next.apply(body, false)?;
        self.translog
            .set_durability(recovery::log_durability(&next))?;
        *settings = next;
        drop(settings);
        self.save_metadata()
    }

    /// Drops this index's blocks from the node's block `cache`
    /// (`POST /<index>/_cache/clear`); other indices' blocks stay.
    pub fn clear_cache(&self, cache: &crate::store::BlockCache) {
        cache.clear_owner(self.reads.owner());
    }

    /// Why the translog failed for good, if it did: operations applied
    /// since may never become durable (the node must stop, as the KV
    /// store does when its log fails).
    pub(crate) fn translog_failure(&self) -> Option<String> {
        self.translog.failure().map(|e| e.to_string())
    }

    /// The translog's mode in force (follows `translog.*` settings); a
    /// probe for the unit tests.
    #[cfg(test)]
    pub(crate) fn translog_durability(&self) -> strata_log::Durability {
        self.translog.durability()
    }

    /// The mapping's `runtime` section, if any.
    pub(crate) fn runtime_section(&self) -> Option<Value> {
        self.mappings.read().runtime_section()
    }

    /// Whether the mapping has nested objects (searches are then narrowed
    /// to root documents).
    pub(crate) fn has_nested_mapping(&self) -> bool {
        self.mappings.read().has_nested()
    }

    /// Applies a `PUT _mapping` body, within the mapping limits.
    pub fn update_mappings(&self, body: &Value) -> Result<()> {
        // Read before the mapping's lock: never both at once.
        let limits = self.limits();
        {
            let mut mappings = self.mappings.write();
            let mut next = Mappings::clone(&mappings);
            next.merge_json(body)?;
            // Elasticsearch names no count for a mapping update.
            limits.check_mapping(&next, 0)?;
            check_runtime_section(&next)?;
            if next.has_nested() && self.shards[0].fields().nested.is_none() {
                return Err(SearchError::illegal(format!(
                    "index [{}] was created before nested fields were supported: reindex it to map [nested] fields",
                    self.name
                )));
            }
            *mappings = Arc::new(next);
        }
        self.save_metadata()
    }

    /// `GET /<index>` body for this index.
    pub fn describe(&self) -> Value {
        json!({
            "aliases": {},
            "mappings": self.mappings.read().to_json(),
            "settings": self.settings.read().to_json(&self.name),
        })
    }

    /// Makes every change so far searchable on all shards; shards with
    /// changes commit at the same time, each on its own thread.
    pub fn refresh(&self) -> Result<()> {
        let refresh = |shard: &Shard| shard.refresh(|| self.covered_lsn(), false);
        let pending: Vec<&Shard> = self.shards.iter().filter(|s| s.has_pending()).collect();
        let outcomes: Vec<Result<bool>> = match pending.as_slice() {
            [] => Vec::new(),
            [one] => vec![refresh(one)],
            shards => std::thread::scope(|scope| {
                let running: Vec<_> = shards
                    .iter()
                    .map(|shard| {
                        std::thread::Builder::new()
                            .name("strata-refresh".into())
                            .spawn_scoped(scope, move || refresh(shard))
                    })
                    .collect();
                running
                    .into_iter()
                    .map(|thread| match thread {
                        Ok(thread) => thread.join().unwrap_or_else(|_| {
                            Err(SearchError::illegal("a shard's refresh panicked"))
                        }),
                        Err(e) => Err(SearchError::io("start a refresh thread", e)),
                    })
                    .collect()
            }),
        };
        *self.last_refresh.lock() = Instant::now();
        let mut result = Ok(());
        for outcome in outcomes {
            match outcome {
                Ok(true) => self.counters.note_refresh(),
                Ok(false) => {}
                Err(e) => result = result.and(Err(e)),
            }
        }
        result
    }

    /// Elasticsearch's flush: every shard's newest commit made durable on
    /// disk, then the translog trimmed below what all shards cover.
    pub fn flush(&self) -> Result<()> {
        let mut state = self.flushing.lock();
        self.save_metadata()?;
        // Sync the translog first, so the commits cover all written so far.
        self.translog.flush()?;
        let started = Instant::now();
        let (mut covered, mut files, mut bytes) = (u64::MAX, 0, 0);
        for shard in &self.shards {
            let (point, persisted) = shard.flush(|| self.covered_lsn())?;
            covered = covered.min(point.lsn);
            files += persisted.files;
            bytes += persisted.bytes;
        }
        tracing::info!(index = %self.name, files, bytes, ms = started.elapsed().as_millis() as u64,
            "flushed: segments persisted to disk");
        *self.last_refresh.lock() = Instant::now();
        if covered != u64::MAX && covered > state.durable_lsn {
            self.translog.trim_before(covered + 1)?;
            state.durable_lsn = covered;
        }
        state.at = Instant::now();
        self.counters.note_flush();
        Ok(())
    }

    /// The translog LSN a commit made now may claim to cover (read under
    /// the shard's lock, so every operation of the shard up to the
    /// translog's last LSN is in its writer). A commit that is durable
    /// before the translog is (`pmem` refreshes; a crash between a flush
    /// and its translog sync) claims only what the translog has made
    /// durable: after a restart the translog then never reuses an LSN the
    /// commit claims, and the operations between are replayed, which is
    /// idempotent (the last operation on an id wins).
    fn covered_lsn(&self) -> u64 {
        self.translog.last_lsn().min(self.translog.durable_lsn())
    }

    /// Merges each shard down to at most `max_segments` segments.
    pub fn force_merge(&self, max_segments: usize) -> Result<()> {
        for shard in &self.shards {
            shard.force_merge(max_segments)?;
        }
        Ok(())
    }

    /// Background work: refresh when `refresh_interval` has passed, flush
    /// when the translog has grown past [`FLUSH_THRESHOLD_BYTES`].
    pub(crate) fn tick(&self) -> Result<()> {
        let interval = self.settings.read().refresh_interval;
        if let Some(interval) = interval {
            if self.last_refresh.lock().elapsed() >= interval {
                self.refresh()?;
            }
        }
        let durable = self.flushing.lock().durable_lsn;
        if self.translog.bytes_since(durable) > FLUSH_THRESHOLD_BYTES {
            self.flush()?;
        }
        self.close_if_idle()?;
        Ok(())
    }

    /// Notes that a write starts (for [`close_if_idle`](Self::close_if_idle)).
    fn note_write(&self) {
        *self.last_write.lock() = Instant::now();
    }

    /// After `idle_after` without writes: flushes the index, then closes
    /// its shards' writers and its translog (the next write opens them
    /// again). Returns whether it closed anything. A write racing with it
    /// only reopens what it needs.
    pub(crate) fn close_if_idle(&self) -> Result<bool> {
        let idle = || self.last_write.lock().elapsed() >= self.idle_after;
        let holding = self.translog.is_open() || self.shards.iter().any(Shard::has_writer);
        if !holding || !idle() {
            return Ok(false);
        }
        self.flush()?;
        for shard in &self.shards {
            shard.close_writer_if_clean()?;
        }
        if idle() {
            self.translog.close_now()?;
        }
        tracing::debug!(index = %self.name, "idle: writers and translog closed");
        Ok(true)
    }

    /// Whether the index holds a writer or an open translog now; a probe
    /// for the unit tests.
    #[cfg(test)]
    pub(crate) fn is_open_for_writes(&self) -> bool {
        self.translog.is_open() || self.shards.iter().any(Shard::has_writer)
    }

    /// Waits until the translog record `lsn` is durable, if the index's
    /// durability is `request`; at once for `async`.
    pub fn durable(
        &self,
        lsn: u64,
    ) -> impl std::future::Future<Output = Result<(), strata_log::LogError>> + Send + 'static {
        let wait = match self.settings.read().durability {
            TranslogDurability::Request => self.translog.durable(lsn),
            TranslogDurability::Async => None,
        };
        async move {
            match wait {
                Some(w) => w.await,
                None => Ok(()),
            }
        }
    }

    /// Blocking form of [`durable`](Self::durable).
    pub fn wait_durable(&self, lsn: u64) -> Result<()> {
        if self.settings.read().durability == TranslogDurability::Request {
            self.translog.wait_durable(lsn)?;
        }
        Ok(())
    }

    /// Number of live documents as of the last refresh.
    pub fn doc_count(&self) -> u64 {
        self.shards.iter().map(|s| s.searcher().num_docs()).sum()
    }

    /// Stops the shards' writers and the translog (syncing it).
    pub(crate) fn close(self) -> Result<()> {
        for shard in self.shards {
            shard.close()?;
        }
        self.translog.close()?;
        Ok(())
    }

    fn save_metadata(&self) -> Result<()> {
        let _one_at_a_time = self.saving_metadata.lock();
        let body = json!({
            "settings": self.settings.read().to_json(&self.name),
            "mappings": self.mappings.read().to_json(),
        });
        durable_json::save_in(&*self.meta, METADATA, &body, &self.dir.join(METADATA))
    }
}

/// Checks a mapping's `runtime` section: each field's type and script.
pub(crate) fn check_runtime_section(mappings: &Mappings) -> Result<()> {
    if let Some(section) = mappings.runtime_section() {
        crate::script::fields::ScriptedFields::default().parse_runtime_mappings(&section)?;
    }
    Ok(())
}
