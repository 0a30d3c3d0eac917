//! Document operations of an index: index (auto or given id), create,
//! get, delete and partial update, with optimistic concurrency control.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::handle::SearchIndex;
use crate::breaker::estimate;
use crate::error::{Result, SearchError};
use crate::mapping::document::{parse_document, ParsedDoc};
use crate::shard::document::{build_block, NestedCleanup};
use crate::shard::{Precondition, Shard, StoredDoc, WriteOutcome};
use crate::slowlog::event;

/// What a write did, as Elasticsearch names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteResult {
    /// A new document.
    Created,
    /// An existing document replaced or changed.
    Updated,
    /// A document removed.
    Deleted,
    /// A delete of a missing document.
    NotFound,
    /// An update that changed nothing.
    Noop,
}

impl WriteResult {
    /// The `result` string.
    pub fn as_str(self) -> &'static str {
        match self {
            WriteResult::Created => "created",
            WriteResult::Updated => "updated",
            WriteResult::Deleted => "deleted",
            WriteResult::NotFound => "not_found",
            WriteResult::Noop => "noop",
        }
    }
}

/// The outcome of a document write.
#[derive(Debug, Clone)]
pub struct DocWriteResult {
    /// Document id.
    pub id: String,
    /// Resulting version.
    pub version: u64,
    /// Sequence number of the write.
    pub seq_no: u64,
    /// What happened.
    pub result: WriteResult,
    /// Translog LSN to await before acknowledging (0: nothing written).
    pub lsn: u64,
}

static AUTO_ID: AtomicU64 = AtomicU64::new(0);

/// A new unique id: 20 URL-safe characters from time, a counter and the process id.
fn auto_id() -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let n = AUTO_ID.fetch_add(1, Ordering::Relaxed);
    let mixed = xxhash_rust::xxh3::xxh3_64(&[nanos.to_le_bytes(), n.to_le_bytes()].concat())
        ^ u64::from(std::process::id());
    let mut out = String::with_capacity(20);
    for v in [nanos, mixed, n] {
        let mut x = v;
        for _ in 0..7 {
            out.push(ALPHABET[(x & 63) as usize] as char);
            x >>= 6;
        }
    }
    out.truncate(20);
    out
}

impl SearchIndex {
    /// The shard a document id routes to.
    pub(crate) fn shard_for(&self, id: &str) -> &Shard {
        let n = self.shards.len() as u64;
        let h = xxhash_rust::xxh3::xxh3_64(id.as_bytes());
        &self.shards[(h % n) as usize]
    }

    /// Indexes `source` (JSON bytes) under `id` (generated when `None`).
    pub fn index_document(
        &self,
        id: Option<&str>,
        source: &[u8],
        precondition: Precondition,
    ) -> Result<DocWriteResult> {
        let started = Instant::now();
        if let Some(id) = id {
            validate_id(id)?;
        }
        let value: Value = serde_json::from_slice(source).map_err(|e| {
            SearchError::DocumentParsing(format!(
                "failed to parse, document is not valid JSON: {e}"
            ))
        })?;
        self.note_write();
        let parsed = self.parse(value)?;
        let auto = id.is_none();
        let id = id.map_or_else(auto_id, str::to_string);
        let shard = self.shard_for(&id);
        let cleanup = NestedCleanup::for_mapping(&self.mappings.read());
        let doc = build_block(shard.fields(), &id, source, parsed.values, parsed.nested)?;
        let outcome = shard.index(
            &id,
            (Arc::new(source.to_vec()), doc),
            precondition,
            auto,
            cleanup,
            |op| self.log(op),
        )?;
        if is_large(source) {
            // tantivy holds the document and its indexing arena until its
            // segment is written: a commit now waits for that, so the
            // memory comes back before the reply instead of after it (as
            // Elasticsearch refreshes a shard whose indexing buffer is full).
            shard.refresh(|| self.covered_lsn(), false)?;
        }
        self.counters.note_index();
        self.note_indexed(&id, source, started.elapsed());
        let result = if outcome.found_before {
            WriteResult::Updated
        } else {
            WriteResult::Created
        };
        Ok(written(id, outcome, result))
    }

    /// Counts an indexed document's time and logs it if slow.
    fn note_indexed(&self, id: &str, source: &[u8], took: Duration) {
        self.counters.index_latency.record(took);
        let slowlog = self.settings_slowlog();
        if let Some(level) = slowlog.index.level_for(took) {
            let uuid = self.settings.read().uuid.clone();
            let shown = event::shown_source(source, slowlog.source_chars, slowlog.reformat);
            event::index(
                level,
                &event::IndexEvent {
                    index: self.name(),
                    uuid: &uuid,
                    id,
                    took,
                    source: &shown,
                },
            );
        }
    }

    /// Deletes `id`.
    pub fn delete_document(&self, id: &str, precondition: Precondition) -> Result<DocWriteResult> {
        validate_id(id)?;
        self.note_write();
        let shard = self.shard_for(id);
        let cleanup = NestedCleanup::for_mapping(&self.mappings.read());
        let outcome = shard.delete(id, precondition, cleanup, |op| self.log(op))?;
        self.counters.note_delete();
        let result = if outcome.found_before {
            WriteResult::Deleted
        } else {
            WriteResult::NotFound
        };
        Ok(written(id.to_string(), outcome, result))
    }

    /// Appends `op` to the translog, under the shard lock before the
    /// writer sees it. Refused while the translog cannot write (a full
    /// disk): the operation is then never applied, and writes resume once
    /// the translog writes again.
    fn log(&self, op: &crate::translog::Operation) -> Result<u64> {
        if self.translog.write_stalled().is_some() {
            return Err(SearchError::DiskFull {
                index: self.name().to_string(),
            });
        }
        Ok(self.translog.append(op.kind(), &op.encode())?)
    }

    /// The current document `id` (real-time).
    pub fn get_document(&self, id: &str) -> Result<Option<StoredDoc>> {
        self.counters.note_get();
        self.shard_for(id).get(id)
    }

    /// Merges `partial` into document `id` (`doc`), or indexes `upsert`
    /// (or `partial` itself with `doc_as_upsert`) when it is missing. With
    /// `detect_noop`, a merge that changes nothing writes nothing (`noop`).
    pub fn update_document(
        &self,
        id: &str,
        partial: &Value,
        upsert: Option<&Value>,
        doc_as_upsert: bool,
        detect_noop: bool,
        precondition: Precondition,
    ) -> Result<DocWriteResult> {
        validate_id(id)?;
        if !partial.is_object() {
            return Err(SearchError::parsing("[update] doc must be an object"));
        }
        for _attempt in 0..8 {
            let Some(current) = self.get_document(id)? else {
                let fresh = match (upsert, doc_as_upsert) {
                    (Some(u), _) => u,
                    (None, true) => partial,
                    (None, false) => {
                        return Err(SearchError::DocumentMissing { id: id.to_string() })
                    }
                };
                let bytes =
                    serde_json::to_vec(fresh).map_err(|e| SearchError::illegal(e.to_string()))?;
                let pre = match precondition {
                    Precondition::None => Precondition::Absent,
                    other => other,
                };
                match self.index_document(Some(id), &bytes, pre) {
                    Err(SearchError::VersionConflict { .. })
                        if precondition == Precondition::None =>
                    {
                        continue
                    }
                    other => return other,
                }
            };
            if let Precondition::SeqNo { .. } = precondition {
                // Checked again atomically by the write below.
            }
            let mut merged: Value = serde_json::from_slice(&current.source)
                .map_err(|e| SearchError::illegal(format!("stored source: {e}")))?;
            let before = merged.clone();
            merge_into(&mut merged, partial);
            if detect_noop && merged == before {
                return Ok(DocWriteResult {
                    id: id.to_string(),
                    version: current.version.version,
                    seq_no: current.version.seq_no,
                    result: WriteResult::Noop,
                    lsn: 0,
                });
            }
            let bytes =
                serde_json::to_vec(&merged).map_err(|e| SearchError::illegal(e.to_string()))?;
            let pre = match precondition {
                Precondition::None => Precondition::SeqNo {
                    seq_no: current.version.seq_no,
                    primary_term: crate::shard::PRIMARY_TERM,
                },
                other => other,
            };
            match self.index_document(Some(id), &bytes, pre) {
                Err(SearchError::VersionConflict { .. }) if precondition == Precondition::None => {
                    continue
                }
                other => return other,
            }
        }
        Err(SearchError::VersionConflict {
            id: id.to_string(),
            detail: "too many concurrent updates".into(),
        })
    }

    /// Parses a source under the mapping, adding dynamic fields to it
    /// within the mapping limits (a document that would pass one is a
    /// `document_parsing_exception`, as in Elasticsearch 8).
    fn parse(&self, value: Value) -> Result<ParsedDoc> {
        let parsed = parse_document(&self.mappings.read(), value)?;
        self.limits().check_nested_objects(parsed.nested.len())?;
        if !parsed.new_fields.is_empty() {
            // Read before the mapping's lock: never both at once.
            let limits = self.limits();
            {
                let mut mappings = self.mappings.write();
                let mut next = mappings.clone();
                for (path, leaf) in &parsed.new_fields {
                    next.add_leaf(path, leaf.clone())?;
                }
                let added = next.shape().fields.saturating_sub(mappings.shape().fields);
                limits
                    .check_mapping(&next, added as usize)
                    .map_err(|e| SearchError::DocumentParsing(format!("failed to parse: {e}")))?;
                *mappings = next;
            }
            self.save_metadata()?;
        }
        Ok(parsed)
    }
}

/// A document whose indexing takes at least this much memory is
/// committed before its write returns.
const LARGE_INDEXING_BYTES: u64 = 64 << 20;

/// Whether indexing `source` takes [`LARGE_INDEXING_BYTES`] (the scan
/// only for sources of a megabyte or more).
fn is_large(source: &[u8]) -> bool {
    source.len() >= 1 << 20 && estimate::indexing(source) >= LARGE_INDEXING_BYTES
}

fn written(id: String, o: WriteOutcome, result: WriteResult) -> DocWriteResult {
    DocWriteResult {
        id,
        version: o.version,
        seq_no: o.seq_no,
        result,
        lsn: o.lsn,
    }
}

fn validate_id(id: &str) -> Result<()> {
    if id.is_empty() {
        return Err(SearchError::illegal(
            "if _id is specified it must not be empty",
        ));
    }
    if id.len() > 512 {
        return Err(SearchError::illegal(format!(
            "id [{id}] is too long, must be no longer than 512 bytes but was: {}",
            id.len()
        )));
    }
    Ok(())
}

/// Elasticsearch's partial-document merge: objects merge recursively,
/// everything else is replaced.
pub fn merge_into(target: &mut Value, partial: &Value) {
    match (target, partial) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                match t.get_mut(k) {
                    Some(existing) if existing.is_object() && v.is_object() => {
                        merge_into(existing, v)
                    }
                    _ => {
                        t.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}
