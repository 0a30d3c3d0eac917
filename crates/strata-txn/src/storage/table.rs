//! [`Table`]: one table's primary hash index and ordered indexes.
//!
//! The primary index maps a `u64` key to the one record of that key. A
//! record stays in it while absent (deleted, never committed, or a miss
//! remembered for validation) until the collector unlinks it, so that a
//! transaction that saw a key absent conflicts with one that inserts it.

use std::sync::Arc;

use scc::HashIndex;

use crate::schema::TableSchema;
use crate::storage::hasher::BuildKeyHasher;
use crate::storage::{OrderedIndex, RecPtr};

/// One table.
pub(crate) struct Table {
    pub id: u32,
    pub schema: Arc<TableSchema>,
    pub primary: HashIndex<u64, RecPtr, BuildKeyHasher>,
    pub ordered: Vec<OrderedIndex>,
    /// Row width in words.
    pub width: u32,
    /// Columns no update may change (they are in an ordered index).
    pub indexed_mask: u64,
}

impl Table {
    pub fn new(id: u32, schema: Arc<TableSchema>, capacity: usize) -> Table {
        let ordered = schema
            .indexes
            .iter()
            .map(|index| OrderedIndex::new(id, index.clone()))
            .collect();
        Table {
            id,
            width: (schema.row_bytes / 8) as u32,
            indexed_mask: schema.indexed_mask(),
            schema,
            primary: HashIndex::with_capacity_and_hasher(capacity, BuildKeyHasher),
            ordered,
        }
    }

    /// The record of `key`, present or absent, if the index has one.
    #[inline]
    pub fn lookup(&self, key: u64) -> Option<RecPtr> {
        self.primary.peek_with(&key, |_, rec| *rec)
    }

    /// Publishes `rec` for its key unless a record is there already, which
    /// is returned instead.
    pub fn publish(&self, rec: RecPtr) -> Result<(), RecPtr> {
        let key = rec.head().key;
        loop {
            match self.primary.insert(key, rec) {
                Ok(()) => return Ok(()),
                Err(_) => {
                    if let Some(existing) = self.lookup(key) {
                        return Err(existing);
                    }
                    // Removed in between: try again.
                }
            }
        }
    }

    /// Removes the index entry of `rec` (only if it still maps to it).
    pub fn unlink(&self, rec: RecPtr) -> bool {
        self.primary.remove_if(&rec.head().key, |r| *r == rec)
    }

    /// Every record, present or absent, for checkpoints and checks.
    pub fn for_each(&self, mut f: impl FnMut(RecPtr)) {
        let guard = scc::ebr::Guard::new();
        for (_, rec) in self.primary.iter(&guard) {
            f(*rec);
        }
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        // The database is gone: no transaction can hold a record.
        let mut all = Vec::new();
        self.for_each(|rec| all.push(rec));
        // An iteration may visit an entry twice (never here, where nothing
        // runs concurrently, but it costs nothing to be sure).
        all.sort_unstable_by_key(|r| r.addr());
        all.dedup();
        for rec in all {
            rec.free();
        }
    }
}
