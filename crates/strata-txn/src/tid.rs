//! The TID word every record carries: the version (a transaction id) of its
//! current value and three flag bits.
//!
//! Layout (from the high bits): epoch (32 bits) | sequence (29 bits) |
//! `UNLINKED` | `ABSENT` | `LOCK`. A TID's epoch is the global epoch read at
//! the committing transaction's serialization point, so comparing TIDs
//! compares epochs first: a transaction that depends on another never gets
//! a smaller epoch, which is what makes per-epoch durability (and recovery
//! of a prefix of epochs) consistent. Both concurrency controls generate
//! TIDs the same way ([`next_tid`]); only Silo uses the `LOCK` bit.

/// Silo's write lock (held from its commit's first phase to the install).
pub(crate) const LOCK: u64 = 1;
/// No row: never inserted, deleted, or an insert not yet committed.
pub(crate) const ABSENT: u64 = 2;
/// Taken out of the primary index by the collector; locked for ever, so
/// any transaction that saw it fails validation or locking and retries.
pub(crate) const UNLINKED: u64 = 4;
/// The flag bits.
pub(crate) const FLAGS: u64 = LOCK | ABSENT | UNLINKED;
/// One step of the sequence.
const STEP: u64 = 8;
const EPOCH_SHIFT: u32 = 32;

/// The TID part of a word (flags cleared).
#[inline]
pub(crate) fn tid_of(word: u64) -> u64 {
    word & !FLAGS
}

/// The epoch a TID was committed in.
#[inline]
pub fn epoch_of(tid: u64) -> u64 {
    tid >> EPOCH_SHIFT
}

/// The smallest TID of `epoch`.
#[inline]
pub(crate) fn epoch_base(epoch: u64) -> u64 {
    epoch << EPOCH_SHIFT
}

/// The commit TID of a transaction in `epoch` that saw (read, wrote or
/// generated before) TIDs up to `highest`: larger than all of them and in
/// `epoch` or later.
#[inline]
pub(crate) fn next_tid(highest: u64, epoch: u64) -> u64 {
    let next = tid_of(highest) + STEP;
    next.max(epoch_base(epoch) + STEP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tids_order_by_epoch_then_sequence() {
        let a = next_tid(0, 3);
        assert_eq!(epoch_of(a), 3);
        let b = next_tid(a, 3);
        assert!(b > a && epoch_of(b) == 3);
        let c = next_tid(b, 4);
        assert!(c > b && epoch_of(c) == 4);
        // A TID seen from a later epoch keeps the order even if the global
        // epoch read is older.
        let d = next_tid(c | LOCK | ABSENT, 3);
        assert!(d > c);
        assert_eq!(tid_of(d | FLAGS), d);
    }
}
