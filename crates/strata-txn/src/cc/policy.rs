//! [`ConcurrencyControl`]: the trait every algorithm implements, and its
//! contract with the transaction layer.

use crate::error::AbortCause;
use crate::txn::access::Access;

/// A concurrency-control algorithm.
///
/// Contract with the transaction layer: every record a transaction
/// touches has one [`Access`]; `read` is called for each read (again for
/// a re-read), `intend_write` before a record joins the write set, then at
/// commit `lock_writes`, the epoch is read, `validate`, the writes are
/// installed (the install stores `installed_word` into each written
/// record's TID word) and finally `release(committed = true)`. An abort
/// at any point calls `release(committed = false)`, which must undo every
/// lock the access set records.
pub trait ConcurrencyControl: Send + Sync + 'static {
    /// The name used in reports (`no_wait`, `silo`).
    const NAME: &'static str;

    /// TID and lock words of a record this transaction creates for an
    /// insert: absent, and held by the creator.
    fn new_record_words() -> (u64, u64);

    /// Reads the record's TID word and, when `out` is given, its row,
    /// consistently with each other; notes what was seen in `access`
    /// (first read) or checks it did not change (a re-read). Returns the
    /// TID word (only the `ABSENT` flag kept).
    fn read(access: &mut Access, out: Option<&mut [u8]>) -> Result<u64, AbortCause>;

    /// The record is about to join the write set.
    fn intend_write(access: &mut Access) -> Result<(), AbortCause>;

    /// An insert claims an existing absent record (read before): it must
    /// hold it exclusively from now on, so that the index entries it adds
    /// are its own (an absent record nobody holds has none).
    fn claim_insert(access: &mut Access) -> Result<(), AbortCause>;

    /// Commit, first phase: lock what is to be written. `scratch` is free
    /// for the algorithm's use.
    fn lock_writes(accesses: &mut [Access], scratch: &mut Vec<u32>) -> Result<(), AbortCause>;

    /// Commit, second phase (after the epoch was read): check the reads.
    fn validate(accesses: &[Access]) -> Result<(), AbortCause>;

    /// The TID word a committed write installs.
    fn installed_word(tid: u64, absent: bool) -> u64;

    /// Releases every lock still held, after the install or on abort.
    fn release(accesses: &mut [Access], committed: bool);
}
