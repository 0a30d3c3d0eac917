//! [`MemTree`]: a [`DirectoryTree`] of [`MemDirectory`]s, one per path,
//! with one power cut for all of them.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;

use super::DirectoryTree;
use crate::directory::contract::lengths;
use crate::{Directory, MemDirectory};

/// In-memory directories by path. Clones share the same directories.
/// A directory exists once opened, with every ancestor of its path (what
/// `list_dirs` shows), until removed; a power cut keeps them all.
/// [`remove_dir`](DirectoryTree::remove_dir) also removes the path on the
/// real filesystem, where an engine's other files (tantivy's) live.
#[derive(Clone, Default)]
pub struct MemTree {
    dirs: Arc<Mutex<BTreeMap<PathBuf, MemDirectory>>>,
}

impl MemTree {
    /// An empty tree.
    pub fn new() -> MemTree {
        MemTree::default()
    }

    /// What a power cut leaves, as a new independent tree: each directory
    /// as [`MemDirectory::crash`] leaves it. `self` is unchanged.
    pub fn crash(&self) -> MemTree {
        self.map(|_, dir| dir.crash())
    }

    /// Each directory as [`MemDirectory::crash_torn`] leaves it, seeded
    /// from `seed` and the directory's place in the tree.
    pub fn crash_torn(&self, seed: u64) -> MemTree {
        self.map(|n, dir| dir.crash_torn(seed.wrapping_add(n as u64)))
    }

    /// The directory at `path`, if it was ever opened.
    pub fn dir(&self, path: &Path) -> Option<MemDirectory> {
        self.dirs.lock().get(path).cloned()
    }

    fn map(&self, mut cut: impl FnMut(usize, &MemDirectory) -> MemDirectory) -> MemTree {
        let dirs = self.dirs.lock();
        let after = dirs
            .iter()
            .enumerate()
            .map(|(n, (path, dir))| (path.clone(), cut(n, dir)))
            .collect();
        MemTree {
            dirs: Arc::new(Mutex::new(after)),
        }
    }
}

impl DirectoryTree for MemTree {
    fn open_dir(&self, path: &Path) -> io::Result<Arc<dyn Directory>> {
        let mut dirs = self.dirs.lock();
        let dir = dirs.entry(path.to_path_buf()).or_default();
        Ok(Arc::new(dir.clone()))
    }

    fn remove_dir(&self, path: &Path) -> io::Result<()> {
        self.dirs.lock().retain(|p, _| !p.starts_with(path));
        match std::fs::remove_dir_all(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            other => other,
        }
    }

    /// The next component of every opened path strictly below `path`.
    fn list_dirs(&self, path: &Path) -> io::Result<Vec<String>> {
        let dirs = self.dirs.lock();
        let names: BTreeSet<String> = dirs
            .keys()
            .filter_map(|p| p.strip_prefix(path).ok()?.iter().next()?.to_str())
            .map(str::to_string)
            .collect();
        Ok(names.into_iter().collect())
    }

    fn list_files(&self, path: &Path) -> io::Result<Vec<(String, u64)>> {
        // Cloned out: the directory's lock is not taken under the tree's.
        let dir = self.dirs.lock().get(path).cloned();
        dir.map_or(Ok(Vec::new()), |dir| lengths(&dir))
    }
}
