//! [`OrderedIndex`]: an ordered secondary index on `crossbeam-skiplist`,
//! and its partition words.
//!
//! An entry's key is the indexed columns' encoding followed by the primary
//! key (`schema::key`); its value is the record. Entries exist only for
//! present rows and for inserts in flight (whose records are absent and
//! locked, so scans skip them): an insert adds its entries while it runs
//! and removes them if it aborts; a committed delete removes them.
//!
//! Phantom protection: every partition (the value of the index's leading
//! `partition_columns` columns) hashes to one of [`PARTITION_WORDS`]
//! partition words, records without a row that the concurrency control
//! treats like any other. A scan reads its partition's word; an insert or
//! delete writes the word of the partition each of its entries lies in.
//! So under NO_WAIT a scan and an insert into the same partition exclude
//! each other, and under Silo the scan fails validation if an insert or
//! delete into its partition committed since it read the word. Distinct
//! partitions that share a word only cost false conflicts.

use crossbeam_skiplist::SkipMap;

use crate::schema::key::{put_f64, put_i32, put_i64, put_str};
use crate::schema::{ColumnType, IndexSchema, TableSchema};
use crate::storage::hasher::KeyHasher;
use crate::storage::RecPtr;
use crate::tid::ABSENT;
use std::hash::Hasher;

/// Partition words per index.
pub(crate) const PARTITION_WORDS: usize = 4096;

/// One ordered index of a table.
pub(crate) struct OrderedIndex {
    pub schema: IndexSchema,
    pub entries: SkipMap<Box<[u8]>, RecPtr>,
    partitions: Box<[RecPtr]>,
}

impl OrderedIndex {
    pub fn new(table: u32, schema: IndexSchema) -> OrderedIndex {
        let partitions = (0..PARTITION_WORDS)
            .map(|i| RecPtr::alloc(table, i as u64, 0, 0, 0))
            .collect();
        OrderedIndex {
            schema,
            entries: SkipMap::new(),
            partitions,
        }
    }

    /// Appends the entry key of a row (its bytes) to `out`, and returns
    /// how many bytes of it are the partition prefix.
    pub fn entry_key(&self, table: &TableSchema, row: &[u8], pk: u64, out: &mut Vec<u8>) -> usize {
        out.clear();
        let mut prefix = 0;
        for (i, &col) in self.schema.columns.iter().enumerate() {
            if i == self.schema.partition_columns {
                prefix = out.len();
            }
            let c = &table.columns[col];
            let at = c.offset;
            match c.ty {
                ColumnType::I32 => put_i32(out, i32::from_le_bytes(fixed(row, at))),
                ColumnType::I64 => put_i64(out, i64::from_le_bytes(fixed(row, at))),
                ColumnType::F64 => put_f64(out, f64::from_le_bytes(fixed(row, at))),
                ColumnType::Str { max_len } => {
                    let len = (u16::from_le_bytes(fixed(row, at)) as usize).min(max_len as usize);
                    put_str(out, &row[at + 2..at + 2 + len]);
                }
            }
        }
        if self.schema.partition_columns == self.schema.columns.len() {
            prefix = out.len();
        }
        out.extend_from_slice(&pk.to_be_bytes());
        prefix
    }

    /// The partition word of a partition prefix.
    pub fn partition(&self, prefix: &[u8]) -> RecPtr {
        let mut h = KeyHasher::default();
        h.write(prefix);
        h.write_u64(h.finish() ^ prefix.len() as u64);
        self.partitions[(h.finish() as usize) % PARTITION_WORDS]
    }

    /// Adds an entry (a no-op if it is there already).
    pub fn add(&self, key: &[u8], rec: RecPtr) {
        self.add_owned(key.into(), rec);
    }

    /// [`add`](Self::add) with the key already owned (recovery's rebuild).
    pub fn add_owned(&self, key: Box<[u8]>, rec: RecPtr) {
        self.entries.get_or_insert(key, rec);
    }

    /// Removes an entry if it points at `rec`.
    pub fn remove(&self, key: &[u8], rec: RecPtr) {
        if let Some(entry) = self.entries.get(key) {
            if *entry.value() == rec {
                entry.remove();
            }
        }
    }

    /// Records of entries in `[lo, hi)` in key order (or reverse), present
    /// or in flight, until `visit` returns false.
    pub fn range(
        &self,
        lo: &[u8],
        hi: Option<&[u8]>,
        reverse: bool,
        mut visit: impl FnMut(RecPtr) -> bool,
    ) {
        use std::ops::Bound;
        let upper = match hi {
            Some(hi) => Bound::Excluded(hi),
            None => Bound::Unbounded,
        };
        let range = self.entries.range::<[u8], _>((Bound::Included(lo), upper));
        if reverse {
            for entry in range.rev() {
                if !visit(*entry.value()) {
                    break;
                }
            }
        } else {
            for entry in range {
                if !visit(*entry.value()) {
                    break;
                }
            }
        }
    }

    /// Number of entries whose records are present (checks only).
    pub fn present_len(&self) -> usize {
        self.entries
            .iter()
            .filter(|e| e.value().tid().load(std::sync::atomic::Ordering::Acquire) & ABSENT == 0)
            .count()
    }
}

impl Drop for OrderedIndex {
    fn drop(&mut self) {
        for word in self.partitions.iter() {
            word.free();
        }
    }
}

fn fixed<const N: usize>(row: &[u8], at: usize) -> [u8; N] {
    row[at..at + N].try_into().expect("column inside the row")
}
