//! [`DirectoryTree`]: directories by path, for an engine that keeps its
//! files in several directories (search: the node's own files, one
//! directory per index, each index's translog). Everything it writes goes
//! through the [`Directory`] the tree hands out, so a test that gives the
//! engine a [`MemTree`] or a [`FaultyTree`] reaches every one of its files
//! with one power cut or one set of faults.

mod faulty;
mod mem;

pub use faulty::FaultyTree;
pub use mem::MemTree;

use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::{Directory, FsDirectory, SyncMode};

/// Directories by path.
///
/// Contract: `open_dir` creates a missing directory (and its parents); the
/// directories themselves are assumed durable once created (a tree's power
/// cut loses files and names inside them, not the directories).
/// `remove_dir` removes a directory and everything below it, on disk
/// included (where the engine's other files, tantivy's, live too).
pub trait DirectoryTree: Send + Sync {
    /// The directory at `path`, created if missing.
    fn open_dir(&self, path: &Path) -> io::Result<Arc<dyn Directory>>;

    /// Removes the directory at `path` and everything below it; `Ok` if it
    /// is already absent.
    fn remove_dir(&self, path: &Path) -> io::Result<()>;
}

/// The real filesystem: [`FsDirectory`]s with one [`SyncMode`].
#[derive(Debug, Clone, Copy, Default)]
pub struct FsTree {
    mode: SyncMode,
}

impl FsTree {
    /// Directories whose files are made durable as `mode` says.
    pub fn new(mode: SyncMode) -> FsTree {
        FsTree { mode }
    }
}

impl DirectoryTree for FsTree {
    fn open_dir(&self, path: &Path) -> io::Result<Arc<dyn Directory>> {
        Ok(Arc::new(FsDirectory::open(path, self.mode)?))
    }

    fn remove_dir(&self, path: &Path) -> io::Result<()> {
        match std::fs::remove_dir_all(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }
}
