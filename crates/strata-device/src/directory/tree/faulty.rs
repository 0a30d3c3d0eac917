//! [`FaultyTree`]: every directory of a [`DirectoryTree`] wrapped in a
//! [`FaultyDirectory`] obeying one shared [`Faults`]. Opening (creating)
//! and listing directories are the tree's own operations, failed by
//! [`Faults::fail_tree_ops_after`]; removing passes through.

use std::io;
use std::path::Path;
use std::sync::Arc;

use super::DirectoryTree;
use crate::{Directory, Faults, FaultyDirectory};

/// A tree whose directories all fail, tear or fill up together.
#[derive(Clone)]
pub struct FaultyTree {
    inner: Arc<dyn DirectoryTree>,
    faults: Arc<Faults>,
}

impl FaultyTree {
    /// Wraps `inner`, with no faults switched on.
    pub fn new(inner: Arc<dyn DirectoryTree>) -> FaultyTree {
        FaultyTree {
            inner,
            faults: Arc::new(Faults::new()),
        }
    }

    /// The switches and counters every directory shares.
    pub fn faults(&self) -> &Arc<Faults> {
        &self.faults
    }
}

impl DirectoryTree for FaultyTree {
    /// A tree operation: fails, creating nothing, while they are failing.
    fn open_dir(&self, path: &Path) -> io::Result<Arc<dyn Directory>> {
        self.faults.admit_tree_op()?;
        let inner = self.inner.open_dir(path)?;
        Ok(Arc::new(FaultyDirectory::with_faults(
            inner,
            self.faults.clone(),
        )))
    }

    /// Not a write the faults govern: removing passes through.
    fn remove_dir(&self, path: &Path) -> io::Result<()> {
        self.inner.remove_dir(path)
    }

    /// A tree operation, which may fail.
    fn list_dirs(&self, path: &Path) -> io::Result<Vec<String>> {
        self.faults.admit_tree_op()?;
        self.inner.list_dirs(path)
    }

    /// A tree operation, which may fail.
    fn list_files(&self, path: &Path) -> io::Result<Vec<(String, u64)>> {
        self.faults.admit_tree_op()?;
        self.inner.list_files(path)
    }
}
