//! # strata-device: where bytes meet storage
//!
//! Every durable structure of Strata (the command log, snapshots, later the
//! SSD tier) does its I/O through the two small traits here, so that crash
//! and fault tests can swap the real filesystem for a device that forgets
//! what was not synced, tears writes, fails after N operations or runs out of
//! space.
//!
//! ## Layout
//! One aligned-I/O core, two thin adapters over it:
//! - `core`: one of each thing: [`AlignedBuf`] (4096-aligned memory),
//!   [`AlignedFile`] (`O_DIRECT`, or buffered as [`IoMode`] says), the memory
//!   image with power-cut and torn-write simulation, and the fault switches
//!   ([`Faults`]: fail after N, tear, full disk) with the one write path
//!   that applies them.
//! - `directory` (file level, for the log, the snapshots, the transaction
//!   log, search's files): [`Device`] and [`Directory`], a flat namespace
//!   of growable files with create, open, atomic rename and replace,
//!   remove, list and a durability barrier for the names themselves.
//!   [`FsDirectory`] ([`SyncMode`] picks `fdatasync` or
//!   `O_DIRECT | O_DSYNC` files), [`MemDirectory`] (with
//!   [`MemDirectory::crash`] and [`MemDirectory::crash_torn`]),
//!   [`FaultyDirectory`]; and [`DirectoryTree`], directories by path for an
//!   engine that keeps files in several (search): [`FsTree`], [`MemTree`]
//!   (one power cut for all of them), [`FaultyTree`] (one set of faults).
//! - `block` (for the SSD tier): [`BlockDevice`], fixed-size aligned
//!   unbuffered I/O: [`BlockFile`], [`MemBlockDevice`] (power cuts),
//!   [`FaultyBlockDevice`]; [`BlockDevice::read_batch`] reads many
//!   [`ReadReq`]s at once (through io_uring on a [`BlockFile`] where the
//!   kernel allows, [`uring_available`]), and [`uring_reader`] gives a
//!   thread a ring it keeps full ([`UringReader`]).
//! - [`le`]: the little-endian fields of the formats written through it.
//!
//! Modules import only downward: `core` imports nothing of the crate, the
//! adapters import `core`, and this file and each folder's `mod.rs` only
//! declare and re-export (`scripts/import-graph` finds no cycle).
//!
//! This crate never depends on any other Strata crate.

#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used))]
// Only `core/uring/` (io_uring's shared memory) and `core/mapping.rs`
// (mapping write-once files) are allowed it (UNSAFE.md).
#![deny(unsafe_code)]

mod block;
mod core;
mod directory;
pub mod le;

pub use block::{check_block_io, uring_reader, BlockDevice, BlockFile};
pub use block::{FaultyBlockDevice, MemBlockDevice};
pub use core::{uring_available, CompletionBell, ReadCheck, ReadTarget, RingWaker, UringReader};
pub use core::{AlignedBuf, AlignedFile, Faults, IoMode, Mapping, ReadReq, BLOCK_ALIGN};
pub use directory::{Device, Directory, DirectoryTree, REPLACING};
pub use directory::{FaultyDirectory, FaultyTree, FsDirectory, FsTree, MemDirectory, MemTree};
pub use directory::{ParseSyncModeError, SyncMode};
