//! One shard: a tantivy index on a [`TieredDirectory`], its writer, a
//! reader reloaded at each refresh, and the live version map.
//!
//! Invariants (all under the shard's write lock):
//! - an operation is appended to the translog and then handed to the
//!   writer, or held while a commit runs and handed over when it ends; so
//!   every operation of this shard with an LSN up to the translog's last
//!   LSN is in the writer or held. A commit covers what was in the writer
//!   when it started and records the LSN read then as its payload: replay
//!   after a restart starts above it.
//! - the live map holds every document changed and not yet visible to the
//!   reader (its version, sequence number and source, or a tombstone), so
//!   reads and version checks are real-time; the reader answers for the
//!   rest. After a commit, once the reader is reloaded, the entries it
//!   covers (sequence numbers below its `next_seq_no`) are dropped.
//! - lock order: the commit lock, then the write state, then the writer.
//!
//! - `document`: building the tantivy document (its values through the
//!   borrowed view of `value_view`, a leaf).
//! - `writes`: index, delete and replay.
//! - `writer_op`: one operation for the tantivy writer (a leaf).
//! - `in_flight`: the bound on documents queued for indexing (a leaf).
//! - `refresh`: commits, flush, forced merges.
//! - `sources`: stored sources shaped and read back, the store readers.
//! - `writer_slot`: the tantivy writer, created on the first write and
//!   closed when the index goes idle.
//! - [`priority`]: the nice value tantivy's indexing and merge threads run at.
//! - [`merge_yield`]: merges pause while searches collect segments.

pub mod document;
mod in_flight;
pub mod merge_yield;
pub mod priority;
mod refresh;
mod sources;
mod value_view;
mod writer_op;
mod writer_slot;
mod writes;

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use tantivy::schema::IndexRecordOption;
use tantivy::{DocAddress, DocSet, Index, IndexReader, Searcher, Term, TERMINATED};

use crate::error::{Result, SearchError};
use crate::store::source_shapes::SourceShapes;
use crate::store::stored_doc::StoreReaders;
use crate::store::{open_index, version_of, SchemaFields, ShardStorage, TieredDirectory};
use priority::IndexingPriority;
use writer_op::WriterOp;
use writer_slot::WriterSlot;

/// The primary term of every shard (a single node never changes primaries).
pub const PRIMARY_TERM: u64 = 1;

/// Operations held at most while a commit runs (a few tenths of a second
/// of bulk indexing); writers then wait for the commit to end.
const HELD_OPERATIONS: usize = 4096;

/// A document's current version.
#[derive(Debug, Clone)]
pub struct DocVersion {
    /// Version, from 1.
    pub version: u64,
    /// Shard-local sequence number of its last change.
    pub seq_no: u64,
}

/// A document as stored.
#[derive(Debug, Clone)]
pub struct StoredDoc {
    /// Version and sequence number.
    pub version: DocVersion,
    /// The `_source` bytes (JSON).
    pub source: Arc<Vec<u8>>,
}

/// What an indexing request requires of the current document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precondition {
    /// Nothing.
    None,
    /// It must not exist (`op_type=create`).
    Absent,
    /// Its last change has this sequence number and primary term.
    SeqNo {
        /// Expected `_seq_no`.
        seq_no: u64,
        /// Expected `_primary_term`.
        primary_term: u64,
    },
    /// External versioning (`version_type=external|external_gte`): the
    /// write takes this version, which must be above the current one (or
    /// equal, with `gte`).
    External {
        /// The version given.
        version: u64,
        /// `external_gte`.
        gte: bool,
    },
}

impl Precondition {
    /// The version a write under this precondition gives the document
    /// whose current version is `current`.
    pub(crate) fn next_version(self, current: Option<u64>) -> u64 {
        match self {
            Precondition::External { version, .. } => version,
            _ => current.map_or(1, |c| c + 1),
        }
    }
}

/// The result of a write.
#[derive(Debug, Clone)]
pub(crate) struct WriteOutcome {
    /// New version.
    pub version: u64,
    /// Sequence number of the write.
    pub seq_no: u64,
    /// The document did not exist before (index) / existed (delete).
    pub found_before: bool,
    /// The translog LSN of the write (await it for `request` durability).
    pub lsn: u64,
}

struct LiveDoc {
    version: DocVersion,
    /// `None`: deleted since the last refresh.
    source: Option<Arc<Vec<u8>>>,
}

struct WriteState {
    live: HashMap<String, LiveDoc>,
    next_seq_no: u64,
    /// Writes made since the last commit started.
    dirty: bool,
    /// A commit runs: writes are held instead of handed to the writer.
    committing: bool,
    /// The writes made while the commit runs, in order.
    held: Vec<WriterOp>,
}

/// One shard of an index.
pub(crate) struct Shard {
    /// Shard number within its index.
    pub(crate) number: u32,
    index: Index,
    fields: SchemaFields,
    dir: TieredDirectory,
    reader: IndexReader,
    write: Mutex<WriteState>,
    /// Signalled when a commit ends (writers waiting for room in `held`).
    commit_ended: Condvar,
    /// The tantivy writer (created on the first write): used under the
    /// write state's lock except by a commit, which holds only the slot's
    /// lock (and `committer`).
    writer: WriterSlot,
    /// Taken for the whole of a refresh or a forced merge: one at a time.
    committer: Mutex<()>,
    /// What commits run at (they start tantivy's indexing worker).
    priority: IndexingPriority,
    /// The shapes its stored sources name (saved before each commit).
    shapes: SourceShapes,
    /// The newest searcher generation's store readers (`sources`).
    stores: Mutex<Option<Arc<StoreReaders>>>,
}

/// The commit payload: how far the translog and the sequence numbers go.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CommitPoint {
    /// Every operation of this shard with an LSN up to this is committed.
    pub lsn: u64,
    /// The next sequence number to hand out.
    pub next_seq_no: u64,
}

impl CommitPoint {
    fn parse(payload: Option<&str>) -> CommitPoint {
        let v: serde_json::Value = payload
            .and_then(|p| serde_json::from_str(p).ok())
            .unwrap_or_default();
        CommitPoint {
            lsn: v["lsn"].as_u64().unwrap_or(0),
            next_seq_no: v["next_seq_no"].as_u64().unwrap_or(0),
        }
    }
}

impl Shard {
    /// Opens (or creates) the shard in `path`, placed as `storage` says;
    /// returns it and its durable commit point (for `pmem`, the newest
    /// refresh's).
    pub(crate) fn open(
        path: &Path,
        number: u32,
        storage: &ShardStorage,
    ) -> Result<(Shard, CommitPoint)> {
        storage.files.dir(path)?; // created if missing
        let dir = TieredDirectory::open(path, storage)?;
        let index = open_index(&dir, storage)?;
        let fields = SchemaFields::from_schema(index.schema())?;
        let point = CommitPoint::parse(index.load_metas()?.payload.as_deref());
        // No writer until the first write (replay included). Creating it
        // collects the files no commit references: a crash can leave
        // files of a commit that never became durable in persistent
        // memory (`pmem`: a deletes file of the next opstamp, a merged
        // segment), which replaying the translog would write again.
        let writer = WriterSlot::new(index.clone(), storage.priority);
        let reader = crate::codec::open_reader(&index)?;
        let shapes = SourceShapes::load(&dir).map_err(|e| {
            SearchError::io(format!("read the source shapes in {}", path.display()), e)
        })?;
        let shard = Shard {
            number,
            index,
            fields,
            dir,
            reader,
            write: Mutex::new(WriteState {
                live: HashMap::new(),
                next_seq_no: point.next_seq_no,
                dirty: false,
                committing: false,
                held: Vec::new(),
            }),
            commit_ended: Condvar::new(),
            writer,
            committer: Mutex::new(()),
            priority: storage.priority,
            shapes,
            stores: Mutex::new(None),
        };
        Ok((shard, point))
    }

    /// The schema's field handles.
    pub(crate) fn fields(&self) -> &SchemaFields {
        &self.fields
    }

    /// The tantivy index (for tokenizers and schema).
    pub(crate) fn tantivy_index(&self) -> &Index {
        &self.index
    }

    /// A searcher over the last refresh.
    pub(crate) fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    /// The shard's directory (its fresh, store and resident bytes).
    pub(crate) fn directory(&self) -> &TieredDirectory {
        &self.dir
    }

    /// Bytes of flushed segment files held whole in DRAM (`dram` tier).
    pub(crate) fn resident_bytes(&self) -> u64 {
        self.dir.resident_bytes()
    }

    /// Whether the shard holds a tantivy writer now.
    pub(crate) fn has_writer(&self) -> bool {
        self.writer.is_open()
    }

    /// Closes the writer (in the background, its merges finishing first)
    /// if everything given to it is committed and no commit runs; returns
    /// whether it did. The next write creates a new one.
    pub(crate) fn close_writer_if_clean(&self) -> Result<bool> {
        let Some(_one_commit) = self.committer.try_lock() else {
            return Ok(false);
        };
        let state = self.write.lock();
        if state.dirty || state.committing || !state.held.is_empty() || !self.writer.is_open() {
            return Ok(false);
        }
        self.writer.close_in_background()?;
        Ok(true)
    }

    /// The current document `id`, real-time (unrefreshed changes included).
    pub(crate) fn get(&self, id: &str) -> Result<Option<StoredDoc>> {
        {
            let state = self.write.lock();
            if let Some(live) = state.live.get(id) {
                return Ok(live.source.as_ref().map(|s| StoredDoc {
                    version: live.version.clone(),
                    source: Arc::clone(s),
                }));
            }
        }
        let searcher = self.reader.searcher();
        let Some(addr) = self.find(&searcher, id)? else {
            return Ok(None);
        };
        Ok(Some(self.load(&searcher, addr)?))
    }

    /// Loads the source and version of a document of `searcher`.
    pub(crate) fn load(&self, searcher: &Searcher, addr: DocAddress) -> Result<StoredDoc> {
        let doc = self
            .store_readers(searcher)
            .load(&self.fields, searcher, addr)?;
        let source = self.source_of(doc.stored_source())?.into_owned();
        let segment = searcher.segment_reader(addr.segment_ord);
        let (version, seq_no) = version_of(segment, addr.doc_id)?;
        Ok(StoredDoc {
            version: DocVersion { version, seq_no },
            source: Arc::new(source),
        })
    }

    fn current_version(&self, state: &WriteState, id: &str) -> Result<Option<DocVersion>> {
        if let Some(live) = state.live.get(id) {
            return Ok(live.source.as_ref().map(|_| live.version.clone()));
        }
        let searcher = self.reader.searcher();
        let Some(addr) = self.find(&searcher, id)? else {
            return Ok(None);
        };
        let segment = searcher.segment_reader(addr.segment_ord);
        let (version, seq_no) = version_of(segment, addr.doc_id)?;
        Ok(Some(DocVersion { version, seq_no }))
    }

    /// The live document with `_id` = `id` in `searcher`.
    pub(crate) fn find(&self, searcher: &Searcher, id: &str) -> Result<Option<DocAddress>> {
        let term = Term::from_field_text(self.fields.id, id);
        for (ord, segment) in searcher.segment_readers().iter().enumerate() {
            let inverted = segment.inverted_index(self.fields.id)?;
            let Some(mut postings) = inverted
                .read_postings(&term, IndexRecordOption::Basic)
                .map_err(|e| SearchError::io("read the _id postings", e))?
            else {
                continue;
            };
            let mut doc = postings.doc();
            while doc != TERMINATED {
                if !segment.is_deleted(doc) {
                    return Ok(Some(DocAddress::new(ord as u32, doc)));
                }
                doc = postings.advance();
            }
        }
        Ok(None)
    }
}

fn check(id: &str, current: Option<&DocVersion>, precondition: Precondition) -> Result<()> {
    match (precondition, current) {
        (Precondition::None, _) => Ok(()),
        (Precondition::Absent, None) => Ok(()),
        (Precondition::Absent, Some(c)) => Err(SearchError::VersionConflict {
            id: id.to_string(),
            detail: format!("document already exists (current version [{}])", c.version),
        }),
        (Precondition::SeqNo { seq_no, primary_term }, Some(c))
            if c.seq_no == seq_no && primary_term == PRIMARY_TERM =>
        {
            Ok(())
        }
        (Precondition::SeqNo { seq_no, primary_term }, Some(c)) => {
            Err(SearchError::VersionConflict {
                id: id.to_string(),
                detail: format!(
                    "required seqNo [{seq_no}], primary term [{primary_term}]. current document has seqNo [{}] and primary term [{PRIMARY_TERM}]",
                    c.seq_no
                ),
            })
        }
        (Precondition::External { .. }, None) => Ok(()),
        (Precondition::External { version, gte }, Some(c))
            if version > c.version || (gte && version == c.version) =>
        {
            Ok(())
        }
        (Precondition::External { version, gte }, Some(c)) => Err(SearchError::VersionConflict {
            id: id.to_string(),
            detail: format!(
                "current version [{}] is {} the one provided [{version}]",
                c.version,
                if gte { "higher than" } else { "higher or equal to" }
            ),
        }),
        (Precondition::SeqNo { seq_no, primary_term }, None) => {
            Err(SearchError::VersionConflict {
                id: id.to_string(),
                detail: format!(
                    "required seqNo [{seq_no}], primary term [{primary_term}] but no document was found"
                ),
            })
        }
    }
}
