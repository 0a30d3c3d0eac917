//! [`FsTree`]: the real filesystem's directories by path.

use std::fs::DirEntry;
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

    /// Directories only: files and symbolic links are skipped.
    fn list_dirs(&self, path: &Path) -> io::Result<Vec<String>> {
        entries(path, |entry| Ok(entry.file_type()?.is_dir().then_some(())))
            .map(|found| found.into_iter().map(|(name, ())| name).collect())
    }

    /// Regular files only: directories and symbolic links are skipped.
    fn list_files(&self, path: &Path) -> io::Result<Vec<(String, u64)>> {
        entries(path, |entry| {
            let metadata = entry.metadata()?;
            Ok(metadata.is_file().then_some(metadata.len()))
        })
    }
}

/// The entries of the directory `path` that `keep` keeps (`Some`), by
/// UTF-8 name, sorted; none if `path` is absent. An entry gone before
/// `keep` looks at it (`NotFound`) is skipped; other errors are returned.
fn entries<T>(
    path: &Path,
    keep: impl Fn(&DirEntry) -> io::Result<Option<T>>,
) -> io::Result<Vec<(String, T)>> {
    let listing = match std::fs::read_dir(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        other => other?,
    };
    let mut found = Vec::new();
    for entry in listing {
        let entry = entry?;
        let kept = match keep(&entry) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            other => other?,
        };
        if let (Some(value), Ok(name)) = (kept, entry.file_name().into_string()) {
            found.push((name, value));
        }
    }
    found.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(found)
}
