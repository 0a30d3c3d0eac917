//! [`FsTree`]: the real filesystem's directories by path.

use std::io;
use std::path::Path;
use std::sync::Arc;

use super::DirectoryTree;
use crate::{Directory, FsDirectory, SyncMode};

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
