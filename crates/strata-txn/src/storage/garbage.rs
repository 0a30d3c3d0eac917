//! Reclaiming absent records: deleted rows, aborted inserts and
//! remembered misses.
//!
//! A worker notes every record it leaves absent as a *candidate* (at most
//! once: the record's `IN_GARBAGE` flag). Every so often it examines
//! candidates noted at least one epoch ago: a candidate still absent and
//! unlocked is *unlinked*: its NO_WAIT lock is taken and its TID word
//! gets `LOCK | UNLINKED`, both for ever, so any transaction that saw it
//! fails locking or validation and retries (then finds the key missing
//! from the index); then it leaves the primary index and is *retired*. A
//! retired record is freed once every active transaction began after the
//! epoch it was retired in ([`Epochs::safe`]). Candidates that were
//! revived are forgotten (a later delete notes them again).

use std::sync::atomic::Ordering;

use parking_lot::Mutex;

use crate::cc::no_wait::EXCLUSIVE;
use crate::epoch::Epochs;
use crate::storage::record::IN_GARBAGE;
use crate::storage::{RecPtr, Table};
use crate::tid::{ABSENT, LOCK, UNLINKED};

/// Records retired by every worker, waiting for their grace period.
#[derive(Default)]
pub(crate) struct Retired {
    records: Mutex<Vec<(u64, RecPtr)>>,
}

impl Retired {
    /// Frees the records whose grace period is over.
    pub fn free_safe(&self, epochs: &Epochs) -> usize {
        let safe = epochs.safe();
        let mut records = self.records.lock();
        let before = records.len();
        records.retain(|&(epoch, rec)| {
            if epoch < safe {
                rec.free();
                false
            } else {
                true
            }
        });
        before - records.len()
    }

    fn push(&self, batch: &mut Vec<(u64, RecPtr)>) {
        self.records.lock().append(batch);
    }
}

impl Drop for Retired {
    fn drop(&mut self) {
        for (_, rec) in self.records.get_mut().drain(..) {
            rec.free();
        }
    }
}

/// One worker's candidates.
#[derive(Default)]
pub(crate) struct Candidates {
    noted: Vec<(u64, RecPtr)>,
    batch: Vec<(u64, RecPtr)>,
}

impl Candidates {
    /// Notes `rec` (absent now) unless it is noted already.
    pub fn note(&mut self, rec: RecPtr, epoch: u64) {
        if rec.head().flags.fetch_or(IN_GARBAGE, Ordering::AcqRel) & IN_GARBAGE == 0 {
            self.noted.push((epoch, rec));
        }
    }

    /// Number of candidates waiting.
    pub fn len(&self) -> usize {
        self.noted.len()
    }

    /// Unlinks the candidates noted before the current epoch that are
    /// still absent, retires them, and frees what is safe.
    pub fn collect(&mut self, tables: &[Table], epochs: &Epochs, retired: &Retired) {
        let now = epochs.global();
        let mut kept = Vec::new();
        for (epoch, rec) in self.noted.drain(..) {
            if epoch >= now {
                kept.push((epoch, rec));
                continue;
            }
            if unlink(rec) {
                tables[rec.head().table as usize].unlink(rec);
                self.batch.push((now, rec));
            } else {
                rec.head().flags.fetch_and(!IN_GARBAGE, Ordering::AcqRel);
            }
        }
        self.noted = kept;
        retired.push(&mut self.batch);
        retired.free_safe(epochs);
    }
}

/// Takes `rec` for ever if it is absent and nobody holds it.
fn unlink(rec: RecPtr) -> bool {
    let head = rec.head();
    if head
        .lock
        .compare_exchange(0, EXCLUSIVE, Ordering::AcqRel, Ordering::Relaxed)
        .is_err()
    {
        return false;
    }
    let word = head.tid.load(Ordering::Acquire);
    let idle_absent = word & (ABSENT | LOCK | UNLINKED) == ABSENT;
    if idle_absent
        && head
            .tid
            .compare_exchange(
                word,
                word | LOCK | UNLINKED,
                Ordering::AcqRel,
                Ordering::Relaxed,
            )
            .is_ok()
    {
        return true;
    }
    head.lock.store(0, Ordering::Release);
    false
}
