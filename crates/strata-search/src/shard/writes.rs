//! Writes to a shard: index, delete and recovery replay. Each runs under
//! the shard's lock: version check, translog append, then the operation
//! goes to the tantivy writer, or, while a commit runs, to the held
//! queue that the commit hands to the writer when it ends
//! ([`refresh`](super::refresh)).

use std::sync::Arc;

use parking_lot::MutexGuard;
use tantivy::Term;

use super::document::{DocBlock, NestedCleanup};
use super::writer_op::WriterOp;
use super::{
    check, document, DocVersion, LiveDoc, Precondition, Shard, WriteOutcome, WriteState,
    HELD_OPERATIONS,
};
use crate::error::Result;
use crate::translog::Operation;

impl Shard {
    /// The shard's write state, once the held queue has room: while a
    /// commit runs and [`HELD_OPERATIONS`] are held, writers wait for it
    /// (the shard's back pressure on indexing).
    fn write_state(&self) -> MutexGuard<'_, WriteState> {
        let mut state = self.write.lock();
        while state.committing && state.held.len() >= HELD_OPERATIONS {
            self.commit_ended.wait(&mut state);
        }
        state
    }

    /// Hands `op` to the writer, or holds it while a commit runs. Called
    /// under the shard's lock, so operations reach the writer in sequence
    /// order; the writer's own lock is free whenever no commit runs.
    fn submit(&self, state: &mut WriteState, op: WriterOp) -> Result<()> {
        if state.committing {
            state.held.push(op);
            Ok(())
        } else {
            op.apply(&*self.writer.lock()?, self.writer.in_flight())
        }
    }

    /// Indexes `added` (the source and its documents) under `id` if
    /// `precondition` holds. `log` appends the operation to the translog
    /// and returns its LSN; it runs under the shard lock, before the writer
    /// sees the document. The documents are built without version and
    /// sequence number ([`document::build_document`], outside the lock);
    /// they are stamped here, once chosen.
    pub(crate) fn index(
        &self,
        id: &str,
        added: (Arc<Vec<u8>>, DocBlock),
        precondition: Precondition,
        auto_id: bool,
        cleanup: NestedCleanup,
        log: impl FnOnce(&Operation) -> Result<u64>,
    ) -> Result<WriteOutcome> {
        self.write(id, Some(added), precondition, auto_id, cleanup, log)
    }

    /// Deletes `id` if `precondition` holds; `found_before` says whether it existed.
    pub(crate) fn delete(
        &self,
        id: &str,
        precondition: Precondition,
        cleanup: NestedCleanup,
        log: impl FnOnce(&Operation) -> Result<u64>,
    ) -> Result<WriteOutcome> {
        self.write(id, None, precondition, false, cleanup, log)
    }

    /// The `_nested_parent` term that removes `id`'s nested documents,
    /// when `cleanup` asks for it.
    fn nested_of(&self, id: &str, cleanup: NestedCleanup) -> Option<Term> {
        match (cleanup, self.fields.nested) {
            (NestedCleanup::ByParent, Some(marks)) => Some(Term::from_field_text(marks.parent, id)),
            _ => None,
        }
    }

    /// An index (`added`: the source and its document) or a delete
    /// (`None`) of `id`. A generated id (`auto_id`) is new: no version
    /// lookup, no delete of an earlier document.
    fn write(
        &self,
        id: &str,
        added: Option<(Arc<Vec<u8>>, DocBlock)>,
        precondition: Precondition,
        auto_id: bool,
        cleanup: NestedCleanup,
        log: impl FnOnce(&Operation) -> Result<u64>,
    ) -> Result<WriteOutcome> {
        let mut state = self.write_state();
        let current = if auto_id {
            None
        } else {
            self.current_version(&state, id)?
        };
        check(id, current.as_ref(), precondition)?;
        let version = precondition.next_version(current.as_ref().map(|c| c.version));
        let seq_no = state.next_seq_no;
        let op = Operation {
            shard: self.number,
            seq_no,
            version,
            id: id.to_string(),
            source: added.as_ref().map(|(source, _)| source.to_vec()),
        };
        let lsn = log(&op)?;
        let (source, add) = match added {
            Some((source, mut doc)) => {
                document::stamp(&mut doc.root, &self.fields, version, seq_no);
                (Some(source), Some(doc))
            }
            None => (None, None),
        };
        let delete = (!auto_id).then(|| Term::from_field_text(self.fields.id, id));
        let delete_nested = if auto_id {
            None
        } else {
            self.nested_of(id, cleanup)
        };
        let op = WriterOp {
            delete,
            delete_nested,
            add,
        };
        self.submit(&mut state, op)?;
        state.next_seq_no += 1;
        state.dirty = true;
        state.live.insert(
            id.to_string(),
            LiveDoc {
                version: DocVersion { version, seq_no },
                source,
            },
        );
        Ok(WriteOutcome {
            version,
            seq_no,
            found_before: current.is_some(),
            lsn,
        })
    }

    /// Re-applies a translog operation during recovery (no checks, no
    /// logging); `doc` as for [`index`](Self::index), stamped here.
    pub(crate) fn replay(
        &self,
        op: &Operation,
        doc: Option<DocBlock>,
        cleanup: NestedCleanup,
    ) -> Result<()> {
        let mut state = self.write_state();
        let add = doc.map(|mut doc| {
            document::stamp(&mut doc.root, &self.fields, op.version, op.seq_no);
            doc
        });
        let delete = Some(Term::from_field_text(self.fields.id, &op.id));
        let delete_nested = self.nested_of(&op.id, cleanup);
        let op_for_writer = WriterOp {
            delete,
            delete_nested,
            add,
        };
        self.submit(&mut state, op_for_writer)?;
        state.next_seq_no = state.next_seq_no.max(op.seq_no + 1);
        state.dirty = true;
        state.live.insert(
            op.id.clone(),
            LiveDoc {
                version: DocVersion {
                    version: op.version,
                    seq_no: op.seq_no,
                },
                source: op.source.clone().map(Arc::new),
            },
        );
        Ok(())
    }
}
