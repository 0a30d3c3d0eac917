//! [`SearchFiles`]: the directories search writes its files in (the node's
//! JSON files, each index's `index.json` and translog, each shard's
//! persisted segment files through `disk` and the block reads of them,
//! the `pmem` tier's fresh files through `pmem_files`), opened through the
//! device layer's [`DirectoryTree`], so that a test's power-cut or fault
//! tree reaches every one of them; so do creating those directories (the
//! node's root, each shard's, the pmem ones), listing the roots for
//! indices and orphans and measuring an index's size.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use strata_device::{Directory, DirectoryTree, FsTree, SyncMode};

use crate::error::{Result, SearchError};

/// The tree search opens its directories in. Clones share it.
#[derive(Clone)]
pub struct SearchFiles(Arc<dyn DirectoryTree>);

impl SearchFiles {
    /// Search's files in `tree` (a `MemTree` or `FaultyTree` in tests).
    pub fn new(tree: Arc<dyn DirectoryTree>) -> SearchFiles {
        SearchFiles(tree)
    }

    /// The directory at `path`, created if missing.
    pub(crate) fn dir(&self, path: &Path) -> Result<Arc<dyn Directory>> {
        self.0
            .open_dir(path)
            .map_err(|e| SearchError::io(format!("open {}", path.display()), e))
    }

    /// Replaces the file `path` with `value` atomically and durably, in
    /// its directory of this tree.
    pub fn save_json(&self, path: &Path, value: &serde_json::Value) -> Result<()> {
        let (dir, name) = self.split(path)?;
        crate::durable_json::save_in(&*dir, name, value, path)
    }

    /// The JSON in the file `path` of this tree; `None` when absent, an
    /// error when damaged.
    pub fn load_json(&self, path: &Path) -> Result<Option<serde_json::Value>> {
        let (dir, name) = self.split(path)?;
        crate::durable_json::load_in(&*dir, name, path)
    }

    fn split<'a>(&self, path: &'a Path) -> Result<(Arc<dyn Directory>, &'a str)> {
        let name = path.file_name().and_then(|n| n.to_str());
        match (path.parent(), name) {
            (Some(parent), Some(name)) => Ok((self.dir(parent)?, name)),
            _ => Err(SearchError::illegal(format!(
                "{} is not a file path",
                path.display()
            ))),
        }
    }

    /// The names of the directories directly in `path`, sorted; none if
    /// `path` is absent (it is not created).
    pub(crate) fn subdirs(&self, path: &Path) -> Result<Vec<String>> {
        self.0
            .list_dirs(path)
            .map_err(|e| SearchError::io(format!("list {}", path.display()), e))
    }

    /// Whether the directory `path` has the file `name` (`false` when the
    /// directory is absent; it is not created).
    pub(crate) fn has_file(&self, path: &Path, name: &str) -> std::io::Result<bool> {
        match self.0.list_files(path) {
            Ok(files) => Ok(files.iter().any(|(file, _)| file == name)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Bytes of every file at or below `path`; 0 if absent. A directory
    /// that cannot be listed (removed meanwhile) counts 0, the rest still
    /// counts.
    pub(crate) fn bytes_below(&self, path: &Path) -> u64 {
        let files = self.0.list_files(path).unwrap_or_default();
        let dirs = self.0.list_dirs(path).unwrap_or_default();
        let below = dirs.iter().map(|d| self.bytes_below(&path.join(d)));
        files
            .iter()
            .map(|(_, len)| *len)
            .chain(below)
            .fold(0, u64::saturating_add)
    }

    /// Removes the directory at `path` and everything below it.
    pub(crate) fn remove_dir(&self, path: &Path) -> Result<()> {
        self.0
            .remove_dir(path)
            .map_err(|e| SearchError::io(format!("remove {}", path.display()), e))
    }
}

impl Default for SearchFiles {
    /// The real filesystem, files made durable with `fdatasync`.
    fn default() -> SearchFiles {
        SearchFiles(Arc::new(FsTree::new(SyncMode::Fdatasync)))
    }
}

impl fmt::Debug for SearchFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SearchFiles")
    }
}
