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
mod hook;
mod replay;

pub use change::{decode, BadChange, Change, Changes, KV_RECORD_KIND};
pub(crate) use hook::append;
pub use hook::{take_written_lsn, Journal, Refusal, APPEND_FAILED};
pub use replay::Restored;
