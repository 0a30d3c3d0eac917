//! The journal hook: every change to the keyspace, as a redo record, in the
//! order the changes were applied.
//!
//! The engine does no I/O. A [`Journal`] attached with
//! [`Keyspace::attach_journal`](crate::Keyspace::attach_journal) receives one
//! encoded record ([`change`] format) per write-lock hold that changed
//! something: a shard collects its changes while locked and hands them over
//! just before the lock is released, so for any key the journal's order is
//! the apply order. A multi-shard operation (`MSET`, `RENAME`, `FLUSHALL`,
//! a `MULTI`/`EXEC` batch) becomes one record, so it survives a crash whole
//! or not at all. Deletes, expirations (when an expired item is reclaimed)
//! and evictions are logged as deletes, so nothing removed comes back after
//! a restart.
//!
//! Before a change is applied, [`Journal::check`] must pass: once the
//! journal has failed, writes are refused with [`KvError::NotDurable`];
//! while it cannot write (a full disk), with [`KvError::JournalStalled`]
//! until it can again. Reads go on either way. A change that passed the
//! check is always appended: a stalled journal keeps its record and writes
//! it once it can, so a change is either refused before it is applied or
//! becomes durable.
//!
//! Waiting for durability is the caller's business: the LSN of the last
//! record appended on the current thread is kept in a thread-local and
//! collected with [`take_written_lsn`] after each command. That is exact
//! because a command runs synchronously on one thread from its first change
//! to the append of its record.
//!
//! [`KvError::NotDurable`]: crate::KvError::NotDurable
//! [`KvError::JournalStalled`]: crate::KvError::JournalStalled

pub mod change;
mod replay;

use std::cell::Cell;

pub use change::{decode, BadChange, Change, Changes, KV_RECORD_KIND};
pub use replay::Restored;

/// Why a journal takes no new change; the text is shown to clients whose
/// writes are refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// It failed for good: nothing appended from now on becomes durable.
    Failed(String),
    /// It cannot write now (no space left): what was appended is kept and
    /// retried; new changes wait until it can write again.
    Stalled(String),
}

/// Where the keyspace's change records go (the command log).
pub trait Journal: Send + Sync + 'static {
    /// `Ok` while a new change may be applied: its record can become
    /// durable soon. Otherwise why not.
    fn check(&self) -> Result<(), Refusal>;

    /// Whether appended records can still become durable (true while the
    /// journal is only stalled): changes the keyspace makes on its own
    /// (expiry, eviction) are recorded then.
    fn accepts(&self) -> bool {
        self.check().is_ok()
    }

    /// Appends one record and returns its LSN, or the failure's cause.
    /// Called with shard locks held: it must not call back into the keyspace.
    fn append(&self, body: &[u8]) -> Result<u64, String>;
}

/// What [`take_written_lsn`] returns when an append on this thread failed:
/// the write was applied in memory but can never become durable.
pub const APPEND_FAILED: u64 = u64::MAX;

thread_local! {
    /// Highest LSN appended by this thread since the last take (0: none).
    static WRITTEN: Cell<u64> = const { Cell::new(0) };
}

/// The highest LSN appended on this thread since the previous call (or
/// [`APPEND_FAILED`]), and resets it; 0 when nothing was appended. A front
/// end in `sync` mode waits for this LSN to be durable before replying.
pub fn take_written_lsn() -> u64 {
    WRITTEN.with(|w| w.replace(0))
}

/// Appends `body` (if not empty) and records the LSN for this thread.
pub(crate) fn append(journal: &dyn Journal, body: &mut Vec<u8>) {
    if body.is_empty() {
        return;
    }
    let lsn = match journal.append(body) {
        Ok(lsn) => lsn,
        Err(cause) => {
            tracing::error!(%cause, "a change could not be written to the journal");
            APPEND_FAILED
        }
    };
    WRITTEN.with(|w| w.set(w.get().max(lsn)));
    body.clear();
    if body.capacity() > 64 * 1024 {
        body.shrink_to(4096);
    }
}
