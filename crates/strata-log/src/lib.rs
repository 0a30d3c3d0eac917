//! # strata-log: the command log
//!
//! An append-only, segmented log of opaque redo records. Each record has an
//! LSN (1, 2, 3, ... with no gaps), a kind byte the caller chooses and a
//! body; a CRC32C makes a record's damage detectable. The key-value command
//! log, the search translog and the transaction log are all this log with
//! different kinds and bodies.
//!
//! ## How it works
//! - [`CommandLog::append`] copies the encoded record into an in-memory
//!   buffer under a short mutex (where the LSN is assigned) and never does
//!   I/O. A background flusher thread takes the whole buffer at once, writes
//!   it to the current segment and syncs:
//!   - [`Durability::Sync`]: after every batch. One sync covers every record
//!     appended before it (group commit); callers wait with
//!     [`CommandLog::wait_durable`] or the async [`CommandLog::durable`]
//!     before acknowledging.
//!   - [`Durability::Async`]: batches are written within 2-10 ms (a
//!     hundredth of `sync_interval`; at once when 256 KiB are buffered) and
//!     synced at least every `sync_interval`, on a thread of its own so
//!     that a slow sync never holds up the writes (a process crash loses
//!     at most the write delay). Under load the flusher wakes on a timer
//!     rather than being signalled by appends.
//! - A failed sync, or a write failed for any reason but a lack of space,
//!   poisons the log: waiters get [`LogError::Poisoned`], appends are
//!   refused, the durable LSN never moves again. The sync is never
//!   retried; on poisoning the current segment is cut back to its last
//!   synced length (best effort), so what was never acknowledged in `Sync`
//!   mode does not come back at the next open.
//! - A write refused for lack of space (`ENOSPC`, `EDQUOT`) stalls the log
//!   instead: the records are kept and the write retried until it
//!   succeeds; [`CommandLog::write_stalled`] says so meanwhile, for callers
//!   to refuse new changes (`stall`).
//! - Appends wait when `max_buffered` bytes are buffered (back pressure).
//! - [`CommandLog::open`] recovers first: a partial record or header at the
//!   end of the last segment (what a crash leaves) is cut off and reported;
//!   damage anywhere else is [`LogError::Corrupt`] naming the file and
//!   offset, unless the operator opens with
//!   [`RecoveryPolicy::TruncateToLastGood`].
//! - Checkpoints use [`CommandLog::rotate`] to cut the log at a segment
//!   boundary, [`CommandLog::bytes_since`] for their trigger and
//!   [`CommandLog::remove_segments_before`] once their snapshot is durable;
//!   recovery loads the snapshot and calls [`CommandLog::replay`]. A
//!   snapshot must never be ahead of the durable log: flush the log up to
//!   the snapshot's LSN before declaring the snapshot complete, or a crash
//!   could restart the LSNs below what the snapshot already covers.
//!
//! ## On disk
//! Files `log-<first LSN, 20 digits>.seg` in one [`Directory`]. A segment
//! starts with a 24-byte header (magic `STRATALG`, format version u32,
//! first LSN u64, CRC32C u32), followed by records
//! `crc32c u32 | body_len u32 | kind u8 | lsn u64 | body` (little-endian;
//! the CRC covers length, kind, LSN and body). A segment is synced before
//! the next is created, and a new segment's header and name are durable
//! before records go into it, so only the last segment can end torn.
//!
//! ## Layout
//! - [`config`]: settings, [`LogConfig`], [`Durability`], [`RecoveryPolicy`].
//! - `record`: the record codec. `segment`: file names and the header.
//! - `scan`: reading a segment's records in large chunks.
//! - `recovery`: open-time verification, the tail/middle distinction,
//!   [`RecoveryReport`].
//! - `replay`: records from an LSN on, for recovery after a snapshot.
//! - `log`: [`CommandLog`], the handle; `shared`: the state appenders,
//!   waiters and the flusher meet in; `flusher`: the writer thread.
//! - `positions`: coarse LSN-to-byte marks for [`CommandLog::bytes_since`].
//! - [`stats`]: the counters, [`LogStats`].
//!
//! This crate depends on `strata-device` only; it knows nothing of keys,
//! snapshots or protocols.
//!
//! [`Directory`]: strata_device::Directory

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
#![forbid(unsafe_code)]

pub mod config;
mod durable_wait;
mod error;
mod flusher;
mod group_commit;
mod log;
mod positions;
mod record;
mod recovery;
mod replay;
mod scan;
mod segment;
mod shared;
mod stall;
pub mod stats;
mod waiters;

pub use config::{Durability, LogConfig, RecoveryPolicy};
pub use error::describe_io;
pub use error::LogError;
pub use log::CommandLog;
pub use record::{MAX_BODY_LEN, RECORD_HEADER_LEN};
pub use recovery::{Damage, DamageKind, RecoveryReport};
pub use replay::ReplayReport;
pub use segment::FORMAT_VERSION;
pub use stats::LogStats;
