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
/// `list_dirs` and `list_files` only look: neither creates `path`, and an
/// absent `path` lists empty.
pub trait DirectoryTree: Send + Sync {
    /// The directory at `path`, created if missing.
    fn open_dir(&self, path: &Path) -> io::Result<Arc<dyn Directory>>;

    /// Removes the directory at `path` and everything below it; `Ok` if it
    /// is already absent.
    fn remove_dir(&self, path: &Path) -> io::Result<()>;

    /// The names of the directories directly in `path`, sorted; empty if
    /// `path` is absent. Names that are not UTF-8 are skipped.
    fn list_dirs(&self, path: &Path) -> io::Result<Vec<String>>;

    /// The files directly in `path` with their lengths in bytes, sorted by
    /// name; empty if `path` is absent. Files removed while the listing
    /// runs are skipped.
    fn list_files(&self, path: &Path) -> io::Result<Vec<(String, u64)>>;
}
