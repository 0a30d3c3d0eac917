//! [`WriterOp`]: one write as the tantivy writer takes it (deletes by
//! term, then a block of documents), applied at once or held while a
//! commit runs.
//!
//! A leaf of `shard`: the shard's held queue (`mod.rs`), the writes that
//! make operations (`writes`) and the commit that hands the held ones to
//! the writer (`refresh`) all use it, and it names none of them.

use tantivy::indexer::UserOperation;
use tantivy::Term;

use super::document::DocBlock;
use super::in_flight::{InFlight, QueuedDoc};
use crate::error::Result;

/// One operation for the tantivy writer: delete the documents with the
/// `_id` term `delete` (if any) and the nested documents with the
/// `_nested_parent` term `delete_nested` (if any), then add `add` (if
/// any). An index with a given id is both, an index with a generated id
/// only the add, a delete only the delete.
pub(super) struct WriterOp {
    pub(super) delete: Option<Term>,
    pub(super) delete_nested: Option<Term>,
    pub(super) add: Option<DocBlock>,
}

impl WriterOp {
    /// Applies the operation to `writer`. A block with nested documents
    /// goes in one `run`: its documents get consecutive ids in one
    /// segment (tantivy's guarantee for a group), after the deletes. Each
    /// document waits for its place under `in_flight`.
    pub(super) fn apply(
        self,
        writer: &tantivy::IndexWriter<QueuedDoc>,
        in_flight: &InFlight,
    ) -> Result<()> {
        let plain =
            self.delete_nested.is_none() && self.add.as_ref().is_none_or(|b| b.nested.is_empty());
        if plain {
            if let Some(term) = self.delete {
                writer.delete_term(term);
            }
            if let Some(block) = self.add {
                writer.add_document(in_flight.queue(block.root))?;
            }
            return Ok(());
        }
        let mut ops = Vec::new();
        ops.extend(self.delete.map(UserOperation::Delete));
        ops.extend(self.delete_nested.map(UserOperation::Delete));
        if let Some(block) = self.add {
            let queued = block.nested.into_iter().map(|d| in_flight.queue(d));
            ops.extend(queued.map(UserOperation::Add));
            ops.push(UserOperation::Add(in_flight.queue(block.root)));
        }
        writer.run(ops)?;
        Ok(())
    }
}
