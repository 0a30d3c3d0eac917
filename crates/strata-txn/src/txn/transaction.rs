//! [`Transaction`]: one attempt's reads, writes, inserts and deletes,
//! buffered in the worker's access set until commit (`commit.rs`); scans
//! are in `scan.rs`.

use std::marker::PhantomData;

use crate::cc::ConcurrencyControl;
use crate::error::{AbortCause, TxnError};
use crate::row::{ReadOrigin, Row};
use crate::shared::{IndexId, Shared, TableId};
use crate::storage::{RecPtr, Table};
use crate::tid::ABSENT;
use crate::txn::access::{Held, WriteKind};
use crate::worker::WorkerState;

/// One attempt of a transaction, begun with
/// [`Worker::begin`](crate::Worker::begin). Dropping it without
/// committing rolls it back.
pub struct Transaction<'w, C: ConcurrencyControl> {
    pub(crate) shared: &'w Shared,
    pub(crate) st: &'w mut WorkerState,
    pub(crate) finished: bool,
    pub(crate) _cc: PhantomData<C>,
}

impl<C: ConcurrencyControl> Transaction<'_, C> {
    fn check_row(&self, table: &Table, row: &Row) -> Result<(), TxnError> {
        if row.table != table.id || row.bytes.len() != table.schema.row_bytes {
            return Err(TxnError::RowMismatch {
                table: table.schema.name.clone(),
                reason: format!("the row buffer belongs to table {:?}", row.schema.name),
            });
        }
        Ok(())
    }

    /// The record of `key`: the indexed one, or a new absent one published
    /// so that the miss can be validated (and collected later).
    fn record(&mut self, table: &Table, key: u64) -> RecPtr {
        if let Some(rec) = table.lookup(key) {
            return rec;
        }
        let fresh = RecPtr::alloc(table.id, key, table.width, ABSENT, 0);
        match table.publish(fresh) {
            Ok(()) => {
                self.st.candidates.note(fresh, self.shared.epochs.global());
                fresh
            }
            Err(existing) => {
                fresh.free();
                existing
            }
        }
    }

    /// Names the read of access `a` in this transaction.
    fn origin(&self, a: u32) -> ReadOrigin {
        ReadOrigin {
            worker: self.st.id,
            serial: self.st.serial,
            access: a,
        }
    }

    /// Reads row `key` of `table` into `row`; `false` if there is none.
    pub fn read(&mut self, table: TableId, key: u64, row: &mut Row) -> Result<bool, TxnError> {
        let shared = self.shared;
        let t = shared.table(table)?;
        self.check_row(t, row)?;
        let rec = self.record(t, key);
        let a = self.st.set.get_or_add(rec);
        row.dirty = 0;
        row.origin = ReadOrigin::default();
        if let Some(w) = self.st.set.accesses[a as usize].write {
            let write = &self.st.set.writes[w as usize];
            if write.kind == WriteKind::Delete {
                return Ok(false);
            }
            row.bytes
                .copy_from_slice(&self.st.set.arena[write.data.clone()]);
            return Ok(true);
        }
        let word = C::read(&mut self.st.set.accesses[a as usize], Some(&mut row.bytes))?;
        let present = word & ABSENT == 0;
        if present {
            row.origin = self.origin(a);
        }
        Ok(present)
    }

    /// Writes the columns of `row` set since it was read (its dirty mask)
    /// into row `key`, which must exist. Indexed columns may not change.
    pub fn update(&mut self, table: TableId, key: u64, row: &Row) -> Result<(), TxnError> {
        let shared = self.shared;
        let t = shared.table(table)?;
        self.check_row(t, row)?;
        let mask = row.dirty;
        if mask & t.indexed_mask != 0 {
            let col = (mask & t.indexed_mask).trailing_zeros() as usize;
            return Err(TxnError::IndexedColumnChanged {
                table: t.schema.name.clone(),
                column: t.schema.columns[col].name.clone(),
            });
        }
        let rec = self.record(t, key);
        let a = self.st.set.get_or_add(rec);
        if let Some(w) = self.st.set.accesses[a as usize].write {
            let write = &mut self.st.set.writes[w as usize];
            if write.kind == WriteKind::Delete {
                return Err(not_found(t, key));
            }
            write.mask |= mask;
            let range = write.data.clone();
            patch(&mut self.st.set.arena[range], row, mask);
            return Ok(());
        }
        if row.origin == self.origin(a) {
            // The row holds this record as this transaction read it (under
            // its lock, or checked by validation) plus the changed columns:
            // it is the row after the write, with no second read.
            C::intend_write(&mut self.st.set.accesses[a as usize])?;
            let data = self.st.set.stash(&row.bytes);
            self.st.set.add_write(a, WriteKind::Update, data, mask);
            return Ok(());
        }
        let mut current = std::mem::take(&mut self.st.scratch);
        current.resize(t.schema.row_bytes, 0);
        let result = self.buffer_update(t, key, a, row, mask, &mut current);
        self.st.scratch = current;
        result
    }

    fn buffer_update(
        &mut self,
        t: &Table,
        key: u64,
        a: u32,
        row: &Row,
        mask: u64,
        current: &mut [u8],
    ) -> Result<(), TxnError> {
        let access = &mut self.st.set.accesses[a as usize];
        let word = C::read(access, Some(current))?;
        if word & ABSENT != 0 {
            return Err(not_found(t, key));
        }
        C::intend_write(access)?;
        patch(current, row, mask);
        let data = self.st.set.stash(current);
        self.st.set.add_write(a, WriteKind::Update, data, mask);
        Ok(())
    }

    /// Inserts `row` as row `key`; [`TxnError::DuplicateKey`] if it exists.
    pub fn insert(&mut self, table: TableId, key: u64, row: &Row) -> Result<(), TxnError> {
        let shared = self.shared;
        let t = shared.table(table)?;
        self.check_row(t, row)?;
        let all = all_columns(t);
        let a = match t.lookup(key) {
            Some(rec) => self.claim_absent(t, key, rec, row, all)?,
            None => {
                let (tid, lock) = C::new_record_words();
                let fresh = RecPtr::alloc(t.id, key, t.width, tid, lock);
                fresh.write_row(&row.bytes);
                match t.publish(fresh) {
                    Ok(()) => {
                        let a = self.st.set.add(fresh, Held::Exclusive);
                        let access = &mut self.st.set.accesses[a as usize];
                        access.read = true;
                        access.observed = ABSENT;
                        let data = self.st.set.stash(&row.bytes);
                        self.st.set.add_write(a, WriteKind::Insert, data, all);
                        a
                    }
                    Err(existing) => {
                        fresh.free();
                        self.claim_absent(t, key, existing, row, all)?
                    }
                }
            }
        };
        let w = self.st.set.accesses[a as usize].write.expect("buffered");
        if self.st.set.writes[w as usize].kind == WriteKind::Insert {
            self.add_entries(t, a, w)?;
        }
        Ok(())
    }

    /// Insert over an existing record: it must be absent (or deleted by
    /// this transaction, which turns the pair into an update).
    fn claim_absent(
        &mut self,
        t: &Table,
        key: u64,
        rec: RecPtr,
        row: &Row,
        all: u64,
    ) -> Result<u32, TxnError> {
        let a = self.st.set.get_or_add(rec);
        if let Some(w) = self.st.set.accesses[a as usize].write {
            let write = &mut self.st.set.writes[w as usize];
            if write.kind != WriteKind::Delete {
                return Err(duplicate(t, key));
            }
            let old = &self.st.set.arena[write.data.clone()];
            if indexed_differs(t, old, &row.bytes) {
                return Err(TxnError::IndexedColumnChanged {
                    table: t.schema.name.clone(),
                    column: "(an indexed column, in a delete followed by an insert)".into(),
                });
            }
            write.kind = WriteKind::Update;
            write.mask = all;
            let range = write.data.clone();
            self.st.set.arena[range].copy_from_slice(&row.bytes);
            return Ok(a);
        }
        let access = &mut self.st.set.accesses[a as usize];
        let word = C::read(access, None)?;
        if word & ABSENT == 0 {
            return Err(duplicate(t, key));
        }
        C::claim_insert(access)?;
        let data = self.st.set.stash(&row.bytes);
        self.st.set.add_write(a, WriteKind::Insert, data, all);
        Ok(a)
    }

    /// Adds an insert's ordered-index entries and writes their partitions.
    fn add_entries(&mut self, t: &Table, a: u32, w: u32) -> Result<(), TxnError> {
        let rec = self.st.set.accesses[a as usize].rec;
        self.st.set.writes[w as usize].indexed = true;
        for index in &t.ordered {
            let data = self.st.set.writes[w as usize].data.clone();
            let mut key = std::mem::take(&mut self.st.key);
            let prefix = index.entry_key(
                &t.schema,
                &self.st.set.arena[data],
                rec.head().key,
                &mut key,
            );
            index.add(&key, rec);
            let word = index.partition(&key[..prefix]);
            self.st.key = key;
            self.bump(word)?;
        }
        Ok(())
    }

    /// Joins a partition word to the write set.
    fn bump(&mut self, word: RecPtr) -> Result<(), TxnError> {
        let a = self.st.set.get_or_add(word);
        if self.st.set.accesses[a as usize].write.is_some() {
            return Ok(());
        }
        C::intend_write(&mut self.st.set.accesses[a as usize])?;
        self.st.set.add_write(a, WriteKind::Bump, 0..0, 0);
        Ok(())
    }

    /// Deletes row `key`, which must exist.
    pub fn delete(&mut self, table: TableId, key: u64) -> Result<(), TxnError> {
        let shared = self.shared;
        let t = shared.table(table)?;
        let rec = self.record(t, key);
        let a = self.st.set.get_or_add(rec);
        if let Some(w) = self.st.set.accesses[a as usize].write {
            let write = &mut self.st.set.writes[w as usize];
            if write.kind == WriteKind::Delete {
                return Err(not_found(t, key));
            }
            write.kind = WriteKind::Delete;
            return self.bump_partitions(t, w);
        }
        let mut current = std::mem::take(&mut self.st.scratch);
        current.resize(t.schema.row_bytes, 0);
        let access = &mut self.st.set.accesses[a as usize];
        let read = C::read(access, Some(&mut current));
        let result = match read {
            Err(cause) => Err(TxnError::Conflict(cause)),
            Ok(word) if word & ABSENT != 0 => Err(not_found(t, key)),
            Ok(_) => match C::intend_write(access) {
                Err(cause) => Err(TxnError::Conflict(cause)),
                Ok(()) => {
                    let data = self.st.set.stash(&current);
                    Ok(self.st.set.add_write(a, WriteKind::Delete, data, 0))
                }
            },
        };
        self.st.scratch = current;
        let w = result?;
        self.bump_partitions(t, w)
    }

    /// Writes the partition word of each of a row's index entries.
    fn bump_partitions(&mut self, t: &Table, w: u32) -> Result<(), TxnError> {
        let rec_key = {
            let a = self.st.set.writes[w as usize].access;
            self.st.set.accesses[a as usize].rec.head().key
        };
        for index in &t.ordered {
            let data = self.st.set.writes[w as usize].data.clone();
            let mut key = std::mem::take(&mut self.st.key);
            let prefix = index.entry_key(&t.schema, &self.st.set.arena[data], rec_key, &mut key);
            let word = index.partition(&key[..prefix]);
            self.st.key = key;
            self.bump(word)?;
        }
        Ok(())
    }

    /// Checks that everything read so far is still current (always true
    /// under locking; Silo compares TID words). An optimistic transaction
    /// may see an inconsistent state before its commit fails validation:
    /// check before acting on a surprise (a missing row, an invariant
    /// broken) outside the database.
    pub fn check_reads(&self) -> Result<(), AbortCause> {
        C::validate(&self.st.set.accesses)
    }

    /// Rolls back: nothing is written.
    pub fn rollback(mut self) {
        self.abort(AbortCause::UserRollback);
    }

    /// The index id of `index` of `table` (shorthand for the database's).
    pub fn index(&self, table: TableId, index: &str) -> Result<IndexId, TxnError> {
        self.shared.index(table, index)
    }
}

impl<C: ConcurrencyControl> Drop for Transaction<'_, C> {
    fn drop(&mut self) {
        if !self.finished {
            self.abort(AbortCause::UserRollback);
        }
    }
}

fn patch(target: &mut [u8], row: &Row, mask: u64) {
    let mut bits = mask;
    while bits != 0 {
        let col = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let c = &row.schema.columns[col];
        let range = c.offset..c.offset + c.ty.size();
        target[range.clone()].copy_from_slice(&row.bytes[range]);
    }
}

fn all_columns(t: &Table) -> u64 {
    let n = t.schema.columns.len();
    if n == 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

fn indexed_differs(t: &Table, old: &[u8], new: &[u8]) -> bool {
    let mut bits = t.indexed_mask;
    while bits != 0 {
        let col = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        let c = &t.schema.columns[col];
        let range = c.offset..c.offset + c.ty.size();
        if old[range.clone()] != new[range] {
            return true;
        }
    }
    false
}

fn not_found(t: &Table, key: u64) -> TxnError {
    TxnError::NotFound {
        table: t.schema.name.clone(),
        key,
    }
}

fn duplicate(t: &Table, key: u64) -> TxnError {
    TxnError::DuplicateKey {
        table: t.schema.name.clone(),
        key,
    }
}
