//! # strata-txn: an in-memory OLTP engine
//!
//! Multi-record transactions over typed tables in main memory, built for
//! the experiment of section 4 of the seed document: which concurrency
//! control wins once the log device stops being the bottleneck.
//!
//! - Tables of typed rows ([`TableSchema`], [`Row`]) with a primary hash
//!   index on a `u64` key and ordered secondary indexes scanned within a
//!   partition ([`Transaction::scan`]); inserts and deletes are real (the
//!   collector frees deleted records after an epoch grace period).
//! - Concurrency control is a type parameter ([`ConcurrencyControl`]):
//!   [`NoWait`] (two-phase locking, abort on conflict) and [`Silo`]
//!   (optimistic, TID validation, epochs).
//! - [`Worker::run`] retries conflicts with a randomized back-off and
//!   counts every aborted attempt by cause ([`WorkerStats`]).
//!
//! ## Example
//!
//! ```
//! use strata_txn::{ColumnType, Database, Options, Silo, TableSchema, TxnError};
//!
//! let accounts = TableSchema::builder("accounts")
//!     .column("id", ColumnType::I64)
//!     .column("owner", ColumnType::Str { max_len: 32 })
//!     .column("balance", ColumnType::I64)
//!     .index("by_owner", &["owner"], 0)
//!     .build()?;
//! let db = Database::<Silo>::open(Options::default(), vec![accounts])?;
//! let table = db.table("accounts")?;
//! let (id, owner, balance) = (0, 1, 2);
//! let mut row = db.new_row(table)?;
//! let mut worker = db.worker()?;
//! worker.run(|txn| {
//!     for (key, name) in [(1, "ada"), (2, "bob")] {
//!         row.clear();
//!         row.set_i64(id, key)?;
//!         row.set_str(owner, name)?;
//!         row.set_i64(balance, 100)?;
//!         txn.insert(table, key as u64, &row)?;
//!     }
//!     Ok(())
//! })?;
//! // Move 30 from account 1 to account 2, atomically.
//! worker.run(|txn| {
//!     for (key, delta) in [(1u64, -30), (2, 30)] {
//!         if !txn.read(table, key, &mut row)? {
//!             return Err(TxnError::UserAbort);
//!         }
//!         let now = row.get_i64(balance)?;
//!         row.set_i64(balance, now + delta)?;
//!         txn.update(table, key, &row)?;
//!     }
//!     Ok(())
//! })?;
//! let mut txn = worker.begin();
//! assert!(txn.read(table, 2, &mut row)?);
//! assert_eq!(row.get_i64(balance)?, 130);
//! # Ok::<(), TxnError>(())
//! ```
//!
//! ## Layout
//! - `schema`: column types, table and index definitions, key encoding.
//! - `row`: [`Row`], the typed row buffer.
//! - `storage`: records, tables, ordered indexes, garbage collection.
//! - `epoch`: the global and local epochs.
//! - `tid`: the TID word.
//! - `cc`: the concurrency controls, one file each.
//! - `txn`: [`Transaction`]: access set, scans, the commit protocol.
//! - `worker`: [`Worker`], retries and back-off, [`WorkerStats`].
//! - `shared`: table and index ids, and what workers and the database
//!   share (tables, epochs, retired records, the log).
//! - `database`: [`Database`].
//! - `options`: [`Options`].
//! - `log`: per-worker log streams on a chosen [`LogDevice`], group
//!   commit per epoch; `checkpoint`: fuzzy checkpoints in parallel parts;
//!   `recovery`: the newest checkpoint plus the streams, in parallel.
//! - `error`: [`TxnError`], [`AbortCause`].
//!
//! This crate uses only the lower layers (`strata-device`, `strata-log`,
//! `strata-pmem`); it knows nothing of protocols or servers.

#![deny(unsafe_code)]

pub mod cc;
mod checkpoint;
mod database;
mod epoch;
mod error;
pub mod log;
mod options;
mod recovery;
mod row;
pub mod schema;
mod shared;
mod storage;
mod tid;
mod txn;
mod worker;

pub use cc::{ConcurrencyControl, NoWait, Silo};
pub use checkpoint::CheckpointReport;
pub use database::Database;
pub use error::{AbortCause, TxnError};
pub use log::{LogDevice, LogStats};
pub use options::Options;
pub use recovery::RecoveryReport;
pub use row::Row;
pub use schema::{ColumnType, KeyValue, TableSchema};
pub use shared::{IndexId, TableId};
pub use tid::epoch_of;
pub use txn::access::{Access, Held};
pub use txn::{Commit, ScanOrder, Transaction};
pub use worker::{Backoff, Worker, WorkerStats};
