//! The commit protocol every algorithm shares, and the abort path.
//!
//! Commit: (1) the algorithm locks the write set; (2) the global epoch is
//! read (the serialization point); (3) the algorithm validates; (4) the
//! TID is chosen above every TID the transaction saw and the worker's
//! last, in that epoch or later; (5) the write set is appended to the
//! worker's log stream (before anything is visible, so a transaction that
//! depends on this one commits after its record is in a stream); (6) the
//! writes are installed, each record's TID word last; (7) locks are
//! released.

use std::sync::atomic::{fence, Ordering};

use crate::cc::ConcurrencyControl;
use crate::error::{AbortCause, TxnError};
use crate::log::record::{encode_txn, KIND_TXN};
use crate::log::streams::{stream_name, MAX_TXN_RECORD};
use crate::storage::RecPtr;
use crate::tid::{epoch_of, next_tid, tid_of};
use crate::txn::access::WriteKind;
use crate::txn::transaction::Transaction;

/// What a committed transaction got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commit {
    /// Its TID (0 for a read-only transaction, which needs none).
    pub tid: u64,
    /// Its epoch: it is durable once the database's durable epoch
    /// reaches this (at once for read-only transactions and without a log).
    pub epoch: u64,
}

impl<C: ConcurrencyControl> Transaction<'_, C> {
    /// Commits. On a conflict the attempt is rolled back and
    /// [`TxnError::Conflict`] returned (retry it); if the log has failed
    /// the commit is refused with [`TxnError::NotDurable`], and while its
    /// device is full with [`TxnError::LogFull`].
    pub fn commit(mut self) -> Result<Commit, TxnError> {
        self.finished = true;
        match self.try_commit() {
            Ok(commit) => Ok(commit),
            Err(err) => {
                self.finish_abort(err.conflict());
                Err(err)
            }
        }
    }

    fn try_commit(&mut self) -> Result<Commit, TxnError> {
        let st = &mut *self.st;
        if st.set.writes.is_empty() {
            C::validate(&st.set.accesses)?;
            C::release(&mut st.set.accesses, true);
            self.shared.epochs.exit(st.slot);
            st.stats.commits += 1;
            // What it read is durable once the newest version it saw is.
            let seen = st.set.accesses.iter().map(|a| tid_of(a.observed)).max();
            let epoch = seen.map_or(0, epoch_of);
            return Ok(Commit { tid: 0, epoch });
        }
        C::lock_writes(&mut st.set.accesses, &mut st.order)?;
        fence(Ordering::SeqCst);
        let epoch = self.shared.epochs.global();
        C::validate(&st.set.accesses)?;
        let highest = st
            .set
            .accesses
            .iter()
            .map(|a| tid_of(a.observed))
            .max()
            .unwrap_or(0)
            .max(st.last_tid);
        let tid = next_tid(highest, epoch);
        if let Some(log) = &self.shared.log {
            if let Some(refusal) = log.refusal(st.slot) {
                return Err(refusal);
            }
            encode_txn(&mut st.log_buf, &self.shared.tables, &st.set, tid);
            if st.log_buf.len() > MAX_TXN_RECORD {
                return Err(TxnError::TooLarge {
                    len: st.log_buf.len(),
                    max: MAX_TXN_RECORD,
                });
            }
            let stream = &log.streams[st.slot];
            if let Err(e) = stream.append(KIND_TXN, &st.log_buf) {
                let message = format!("log stream {}: {e}", stream_name(st.slot));
                log.fail(message.clone());
                return Err(TxnError::NotDurable(message.into()));
            }
        }
        st.last_tid = tid;
        self.install(tid);
        let st = &mut *self.st;
        C::release(&mut st.set.accesses, true);
        self.shared.epochs.exit(st.slot);
        st.stats.commits += 1;
        st.after_commit(self.shared);
        Ok(Commit {
            tid,
            epoch: epoch_of(tid),
        })
    }

    /// Writes every buffered write into its record; a record's TID word is
    /// stored after its row.
    fn install(&mut self, tid: u64) {
        let shared = self.shared;
        let st = &mut *self.st;
        let epoch = shared.epochs.global();
        for w in 0..st.set.writes.len() {
            let write = &st.set.writes[w];
            let rec = st.set.accesses[write.access as usize].rec;
            let data = &st.set.arena[write.data.clone()];
            match write.kind {
                WriteKind::Bump => rec
                    .tid()
                    .store(C::installed_word(tid, false), Ordering::Release),
                WriteKind::Insert => {
                    rec.write_row(data);
                    rec.tid()
                        .store(C::installed_word(tid, false), Ordering::Release);
                }
                WriteKind::Update => {
                    let row = st.set.writes[w].mask;
                    let t = &shared.tables[rec.head().table as usize];
                    if let Some((first, last)) = dirty_words(t, row) {
                        rec.write_words(data, first, last);
                    }
                    rec.tid()
                        .store(C::installed_word(tid, false), Ordering::Release);
                }
                WriteKind::Delete => {
                    let t = &shared.tables[rec.head().table as usize];
                    for index in &t.ordered {
                        index.entry_key(&t.schema, data, rec.head().key, &mut st.key);
                        index.remove(&st.key, rec);
                    }
                    rec.tid()
                        .store(C::installed_word(tid, true), Ordering::Release);
                    st.candidates.note(rec, epoch);
                }
            }
        }
    }

    /// Rolls the attempt back, counting it under `cause`.
    pub(crate) fn abort(&mut self, cause: AbortCause) {
        self.finished = true;
        self.finish_abort(Some(cause));
    }

    /// Undoes the attempt; counts it under `cause` if there is one (a
    /// commit refused by a failed log has none).
    fn finish_abort(&mut self, cause: Option<AbortCause>) {
        let shared = self.shared;
        let st = &mut *self.st;
        let epoch = shared.epochs.global();
        // In-flight index entries of inserts go; their records stay absent
        // (and become collection candidates) once unlocked.
        for write in &st.set.writes {
            if write.kind == WriteKind::Bump {
                continue;
            }
            let rec = st.set.accesses[write.access as usize].rec;
            if write.indexed {
                let t = &shared.tables[rec.head().table as usize];
                let data = &st.set.arena[write.data.clone()];
                for index in &t.ordered {
                    index.entry_key(&t.schema, data, rec.head().key, &mut st.key);
                    index.remove(&st.key, rec);
                }
            }
        }
        C::release(&mut st.set.accesses, false);
        for write in &st.set.writes {
            if matches!(write.kind, WriteKind::Insert) {
                let rec: RecPtr = st.set.accesses[write.access as usize].rec;
                st.candidates.note(rec, epoch);
            }
        }
        shared.epochs.exit(st.slot);
        if let Some(cause) = cause {
            st.stats.aborts[cause as usize] += 1;
        }
    }
}

fn dirty_words(t: &crate::storage::Table, mask: u64) -> Option<(usize, usize)> {
    if mask == 0 {
        return None;
    }
    let first_col = mask.trailing_zeros() as usize;
    let last_col = 63 - mask.leading_zeros() as usize;
    let first = t.schema.columns[first_col].offset / 8;
    let c = &t.schema.columns[last_col];
    let last = (c.offset + c.ty.size() - 1) / 8;
    Some((first, last))
}
