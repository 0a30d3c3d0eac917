//! # strata-snapshot: checkpoint files
//!
//! A snapshot is a dump of plain key-value records ([`SnapshotItem`]) taken
//! from some log position: the snapshot plus every log record with an LSN at
//! or above its `start_lsn` reproduces the keyspace. This crate only stores
//! and verifies such dumps; it knows nothing of the keyspace, the log or the
//! checkpoint policy, which the key-value layer ties together.
//!
//! ## Life of a snapshot
//! - [`SnapshotWriter::create`] writes to `<name>.tmp`, [`SnapshotWriter::add`]
//!   appends records in checksummed blocks (optionally paced to a byte rate
//!   by a token bucket, [`WriterOptions::rate`]), and
//!   [`SnapshotWriter::finish`] writes the trailer, syncs the file, renames it
//!   to its final name and syncs the directory. Only then is the snapshot
//!   complete: a crash at any earlier point leaves at most a stray `.tmp`
//!   file, which readers ignore. Any failed write or sync fails the writer
//!   for good ([`SnapshotError::WriterFailed`]); it never reports success
//!   for bytes that may be lost.
//! - [`newest_complete`] picks the snapshot to recover from: the newest one
//!   whose header and trailer verify. A damaged newest snapshot is an error
//!   naming the file and offset unless the operator asks for
//!   [`Fallback::OlderGood`].
//! - [`SnapshotReader::for_each`] streams the records back, verifying every
//!   block as it goes and the trailer at the end.
//! - [`remove_older_than`] deletes the snapshots a newer complete one made
//!   unnecessary, and stray temporary files.
//!
//! ## On disk (format version 1)
//! Files are named `snapshot-<start_lsn as 20 digits>.snap` ([`snapshot_name`])
//! so that names sort by LSN. Integers are little-endian; every CRC is
//! CRC32C. A file is a header, zero or more blocks, and a trailer:
//!
//! ```text
//! header  (32 bytes)  magic "STRATASN" | version u32 = 1 | start_lsn u64
//!                     | created_ms u64 (unix ms) | crc u32 of the 28 bytes before
//! block   (12 + len)  len u32 (1 ..= 1 MiB) | ends u32 | crc u32 | payload (len bytes)
//! trailer (25 bytes)  magic "STRATAEND" | records u64 | body_crc u32
//!                     | crc u32 of the 21 bytes before
//! ```
//!
//! - The block payloads, concatenated, are the record stream. A writer cuts
//!   it into payloads of a bounded size (64 KiB by default), so a record may
//!   span blocks; `ends` counts the records whose last byte is in the block.
//!   A block's crc covers its `len`, its `ends` and its payload. Bounded
//!   blocks let a reader verify as it goes and a writer pace its I/O.
//! - A record is `tag u8 | key_len | value_len | flags | cas | [expires_at]
//!   | key | value`, the five integers as unsigned LEB128 varints. Tag bit 0
//!   says whether `expires_at` is present; other tag bits must be zero.
//! - The trailer's `body_crc` is the CRC32C of the concatenated block crcs
//!   (each as 4 little-endian bytes), `records` the total of the blocks'
//!   `ends`. A block length never exceeds 1 MiB, so the trailer's magic (whose
//!   first four bytes read as a length above 1 GiB) cannot pass for a block.
//! - A file is complete only when a valid trailer ends it exactly. A file that
//!   ends earlier is [`SnapshotError::Incomplete`]; bytes that are present but
//!   wrong are [`SnapshotError::Corrupt`], naming the file and offset.
//!
//! ## Layout
//! - `item`: [`SnapshotItem`] and the record codec; `varint`: LEB128.
//! - `format`: header, block header and trailer codecs, the constants.
//! - `name`: file names. `info`: [`SnapshotInfo`].
//! - `writer`: [`SnapshotWriter`], with [`WriterOptions`] in `options`;
//!   `throttle`: the token bucket; `clock`: [`Clock`], so tests pace without
//!   sleeping.
//! - `reader`: [`SnapshotReader`]; `chunks`: large reads;
//!   `stream`: reassembling records that span blocks.
//! - `catalog`: choosing and removing snapshots, [`Fallback`].
//! - `error`: [`SnapshotError`].
//!
//! This crate depends on `strata-device` only.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
#![forbid(unsafe_code)]

mod catalog;
mod chunks;
mod clock;
mod error;
mod format;
mod info;
mod item;
mod name;
mod options;
mod reader;
mod stream;
mod throttle;
mod varint;
mod writer;

pub use catalog::{check_complete, newest_complete, remove_older_than, snapshots, Fallback};
pub use clock::{Clock, SystemClock};
pub use error::SnapshotError;
pub use format::{
    BLOCK_HEADER_LEN, DEFAULT_BLOCK_SIZE, FORMAT_VERSION, HEADER_LEN, MAX_BLOCK_LEN, TRAILER_LEN,
};
pub use info::SnapshotInfo;
pub use item::{SnapshotItem, MAX_KEY_LEN, MAX_VALUE_LEN};
pub use name::{parse_snapshot_name, snapshot_name};
pub use options::WriterOptions;
pub use reader::SnapshotReader;
pub use writer::SnapshotWriter;
