//! [`Transaction`]: reads, writes, inserts, deletes and scans of one
//! attempt, buffered until [`Transaction::commit`].
//!
//! - `transaction`: [`Transaction`] itself: reads, writes, inserts,
//!   deletes.
//! - `access`: the access set and write buffer.
//! - `scan`: ordered-index scans with phantom protection.
//! - `commit`: the commit protocol shared by every algorithm (lock,
//!   epoch, validate, TID, log, install, release) and the abort path.
//!
//! Reads of a record the transaction wrote see its own write. Writes are
//! installed only at commit (deferred update), so an abort has nothing to
//! undo but locks and in-flight index entries.

pub(crate) mod access;
mod commit;
mod scan;
mod transaction;

pub use commit::Commit;
pub use scan::ScanOrder;
pub use transaction::Transaction;
