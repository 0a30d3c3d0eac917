//! Concurrency control as a policy type: [`ConcurrencyControl`], one file
//! per algorithm.
//!
//! - [`ConcurrencyControl`] (`policy.rs`): the trait both implement.
//! - [`NoWait`] (`no_wait.rs`): two-phase locking with a lock word per
//!   record; a conflicting request aborts at once.
//! - [`Silo`] (`silo.rs`): optimistic; TID words with a lock bit, the
//!   write set locked in address order at commit, the read set validated.
//!
//! The transaction layer (`txn/`) owns everything the algorithms share:
//! the access set, buffered writes, TID generation from the epoch read at
//! the serialization point, logging, installation of writes and index
//! maintenance. An algorithm decides only how a record is read, when
//! locks are taken, how a commit is checked, and what is released. A third
//! algorithm (TicToc, MVCC) is a new file implementing this trait.

pub(crate) mod no_wait;
mod policy;
pub(crate) mod silo;

pub use no_wait::NoWait;
pub use policy::ConcurrencyControl;
pub use silo::Silo;
