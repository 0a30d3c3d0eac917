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
//! The `pmem` files are written, synced, listed and read through the
//! node's device tree ([`PmemFiles`]), like every other file of search.

use std::io;
use std::path::Path;

use tantivy::directory::RamDirectory;
use tantivy::Directory;

use super::files::SearchFiles;
use super::pmem_files::PmemFiles;

/// The fresh files of one shard.
#[derive(Clone, Debug)]
pub enum FreshFiles {
    /// In DRAM, lost at a restart (the translog replays them).
    Dram(RamDirectory),
    /// Files in a persistent-memory directory, durable at each refresh.
    Pmem(PmemFiles),
}

impl FreshFiles {
    /// Fresh files in DRAM.
    pub fn dram() -> FreshFiles {
        FreshFiles::Dram(RamDirectory::create())
    }

    /// Fresh files in the persistent-memory directory `path` of `files`
    /// (created if missing); files a previous run left there are kept.
    pub fn pmem(files: &SearchFiles, path: &Path) -> tantivy::Result<FreshFiles> {
        Ok(FreshFiles::Pmem(PmemFiles::open(files, path)?))
    }

    /// The files as a tantivy directory.
    pub fn dir(&self) -> &dyn Directory {
        match self {
            FreshFiles::Dram(ram) => ram,
            FreshFiles::Pmem(pmem) => pmem,
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        match self {
            FreshFiles::Dram(ram) => ram.total_mem_usage() as u64,
            FreshFiles::Pmem(pmem) => pmem.bytes(),
        }
    }

    /// Makes the directory's entries durable (`pmem`); nothing in DRAM.
    pub fn sync(&self) -> io::Result<()> {
        match self {
            FreshFiles::Dram(_) => Ok(()),
            FreshFiles::Pmem(pmem) => pmem.sync_directory(),
        }
    }
}
