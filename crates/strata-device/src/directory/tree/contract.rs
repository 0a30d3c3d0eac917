//! [`DirectoryTree`]: the contract of directories by path.

use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::Directory;

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
