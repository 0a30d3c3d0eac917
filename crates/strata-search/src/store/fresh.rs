//! [`FreshFiles`]: where a shard's new files (segments written by a
//! refresh, `meta.json`, `.managed.json`) live until a flush copies them to
//! disk: a tantivy `RamDirectory` (`dram`, `ssd`), or a directory in
//! persistent memory (`pmem`), where every file is synced when written and
//! `meta.json` is replaced atomically and synced at each refresh, so the
//! newest refresh survives a restart.
//!
//! On emulated persistent memory (tmpfs) a sync costs no device I/O; on a
//! DAX filesystem it flushes CPU caches. Either way a refresh stays cheap.
//!
//! Not on the node's `DirectoryTree` yet: tantivy's `MmapDirectory` maps,
//! writes and syncs the `pmem` files on the real path itself, so creating
//! and measuring that directory stays on the real filesystem with them
//! (a tree's power cut or faults do not reach the `pmem` tier).

use std::io;
use std::path::{Path, PathBuf};

use tantivy::directory::{MmapDirectory, RamDirectory};
use tantivy::Directory;

/// The fresh files of one shard.
#[derive(Clone, Debug)]
pub enum FreshFiles {
    /// In DRAM, lost at a restart (the translog replays them).
    Dram(RamDirectory),
    /// Files in a persistent-memory directory, durable at each refresh.
    Pmem {
        /// The files (written, synced, read mapped).
        dir: MmapDirectory,
        /// The directory's path.
        path: PathBuf,
    },
}

impl FreshFiles {
    /// Fresh files in DRAM.
    pub fn dram() -> FreshFiles {
        FreshFiles::Dram(RamDirectory::create())
    }

    /// Fresh files in the persistent-memory directory `path` (created if
    /// missing); files a previous run left there are kept.
    pub fn pmem(path: &Path) -> tantivy::Result<FreshFiles> {
        std::fs::create_dir_all(path)?;
        Ok(FreshFiles::Pmem {
            dir: MmapDirectory::open(path)?,
            path: path.to_path_buf(),
        })
    }

    /// The files as a tantivy directory.
    pub fn dir(&self) -> &dyn Directory {
        match self {
            FreshFiles::Dram(ram) => ram,
            FreshFiles::Pmem { dir, .. } => dir,
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        match self {
            FreshFiles::Dram(ram) => ram.total_mem_usage() as u64,
            FreshFiles::Pmem { path, .. } => std::fs::read_dir(path)
                .map(|entries| {
                    entries
                        .filter_map(|e| e.ok()?.metadata().ok())
                        .filter(|m| m.is_file())
                        .map(|m| m.len())
                        .sum()
                })
                .unwrap_or(0),
        }
    }

    /// Makes the directory's entries durable (`pmem`); nothing in DRAM.
    pub fn sync(&self) -> io::Result<()> {
        match self {
            FreshFiles::Dram(_) => Ok(()),
            FreshFiles::Pmem { dir, .. } => dir.sync_directory(),
        }
    }
}
