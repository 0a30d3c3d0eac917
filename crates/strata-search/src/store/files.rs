//! [`SearchFiles`]: the directories search writes its own files in (the
//! node's JSON files, each index's `index.json` and translog), opened
//! through the device layer's [`DirectoryTree`], so that a test's power-cut
//! or fault tree reaches every one of them. Tantivy's segment files are not
//! among them yet: they go through tantivy's `MmapDirectory` (`tiered`).

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
    pub fn dir(&self, path: &Path) -> Result<Arc<dyn Directory>> {
        self.0
            .open_dir(path)
            .map_err(|e| SearchError::io(format!("open {}", path.display()), e))
    }

    /// Removes the directory at `path` and everything below it.
    pub fn remove_dir(&self, path: &Path) -> Result<()> {
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
