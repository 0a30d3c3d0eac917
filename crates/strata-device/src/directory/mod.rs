//! The file-level adapter over the aligned-I/O core: [`Device`] and
//! [`Directory`] (`contract`), a flat namespace of growable files for the
//! command log, the snapshots, the transaction log and search's files.
//!
//! - `fs`: [`FsDirectory`], one directory on disk; its files are written
//!   through the page cache with `fdatasync` or with `O_DIRECT | O_DSYNC`
//!   through the core's aligned file, as [`SyncMode`] says.
//! - `mem`: [`MemDirectory`], each file one core memory image, with power
//!   cuts ([`MemDirectory::crash`]) and torn ones
//!   ([`MemDirectory::crash_torn`]).
//! - `faulty`: [`FaultyDirectory`], the core's fault switches on any
//!   directory.
//! - `tree`: [`DirectoryTree`], directories by path ([`FsTree`],
//!   [`MemTree`], [`FaultyTree`]) for an engine with several (search).
//! - `name`: the one check of a device name.
//!
//! Nothing here is defined in this file: every module imports only
//! downward (the contract and the core), never this facade.

mod contract;
mod faulty;
mod fs;
mod mem;
mod name;
mod tree;

pub use contract::{Device, Directory, REPLACING};
pub use faulty::FaultyDirectory;
pub use fs::{FsDirectory, ParseSyncModeError, SyncMode};
pub use mem::MemDirectory;
pub use tree::{DirectoryTree, FaultyTree, FsTree, MemTree};
