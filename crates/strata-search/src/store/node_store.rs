//! [`NodeStore`]: the node's SSD block store (the one the key-value engine
//! opens with `data = ssd`), where `ssd` and `pmem` indices keep their
//! persisted segment files as its user `search`: one
//! [`FileSet`](strata_ssd::FileSet) per shard, whose catalog
//! ([`SEGMENTS_CATALOG`]) lives in the shard's directory beside
//! `meta.json`.
//!
//! The store's opening belongs to the key-value engine. Before it finishes
//! (which frees every block holding nothing marked), it runs this user's
//! marks ([`MarkUser`]): every shard directory under the search root that
//! has a catalog gets it loaded and its entries marked, and the catalog is
//! kept until that shard opens. Then the server hands the finished store
//! over ([`NodeStore::attach`]). Each shard's set is made once
//! ([`NodeStore::shard_set`]) and shared by every opening of the shard;
//! deleting an index discards its shards' sets
//! ([`NodeStore::forget_below`]) once its directory, and so their
//! catalogs, are durably gone.
//!
//! Layout walked: `<root>/<index>/shards/<n>/`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use parking_lot::Mutex;
use strata_device::Directory;
use strata_ssd::{Catalog, FileSet, MarkUser, Recovery, SsdError, SsdStats, SsdStore, StoreUser};

use super::block_cache::BLOCK_SIZE;
use super::files::SearchFiles;

/// The catalog file of a shard whose segment files are in the store.
pub(crate) const SEGMENTS_CATALOG: &str = "segments.catalog";

/// Search's share of the node's SSD store (see the module docs).
pub struct NodeStore {
    files: SearchFiles,
    root: PathBuf,
    store: OnceLock<SsdStore>,
    /// Catalogs marked at the store's opening, by shard directory, until
    /// their shard opens.
    marked: Mutex<HashMap<PathBuf, Catalog>>,
    /// Each opened shard's set, by shard directory.
    sets: Mutex<HashMap<PathBuf, Arc<FileSet>>>,
}

impl std::fmt::Debug for NodeStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeStore")
            .field("root", &self.root)
            .field("attached", &self.store.get().is_some())
            .finish()
    }
}

impl NodeStore {
    /// Search's user of a store to be opened, for the indices under `root`
    /// in `files`.
    pub fn new(files: SearchFiles, root: &Path) -> NodeStore {
        NodeStore {
            files,
            root: root.to_path_buf(),
            store: OnceLock::new(),
            marked: Mutex::new(HashMap::new()),
            sets: Mutex::new(HashMap::new()),
        }
    }

    /// Hands over the finished store (after its recovery ran these marks).
    /// A second store is refused: the catalogs name one device.
    pub fn attach(&self, store: SsdStore) -> Result<(), SsdError> {
        self.store
            .set(store)
            .map_err(|_| SsdError::Misuse("search's store is attached once"))
    }

    /// The store, once attached.
    pub(crate) fn store(&self) -> Option<&SsdStore> {
        self.store.get()
    }

    /// The smallest flush (its files' bytes together) that goes to the
    /// store; smaller ones stay in the shard's directory until merged. A
    /// quarter of a store block: a commit takes whole blocks of its own,
    /// so a flush wastes at most about three times what it stores.
    pub(crate) fn min_flush_bytes(&self) -> u64 {
        self.store.get().map_or(0, |s| s.block_size() as u64 / 4)
    }

    /// The whole store's statistics (every user's space), once attached.
    pub fn stats(&self) -> Option<SsdStats> {
        Some(self.store.get()?.stats())
    }

    /// The set of the shard in `dir` (whose directory is `shard`): the one
    /// already open, or one made from the catalog marked at the store's
    /// opening, or an empty one when the shard has no catalog yet. A
    /// catalog on disk that was not marked is refused: its entries may
    /// have been freed.
    pub(crate) fn shard_set(
        &self,
        dir: &Path,
        shard: &Arc<dyn Directory>,
    ) -> Result<Arc<FileSet>, String> {
        let store = self
            .store
            .get()
            .ok_or("the node's SSD store is not open yet")?;
        let mut sets = self.sets.lock();
        if let Some(set) = sets.get(dir) {
            return Ok(Arc::clone(set));
        }
        let catalog = match self.marked.lock().remove(dir) {
            Some(catalog) => catalog,
            None => {
                let on_disk = (self.files.has_file(dir, SEGMENTS_CATALOG))
                    .map_err(|e| format!("listing {}: {e}", dir.display()))?;
                if on_disk {
                    return Err(format!(
                        "{} has a segment catalog that the SSD store's opening did not mark",
                        dir.display()
                    ));
                }
                Catalog::empty(store.device_id())
            }
        };
        let set = FileSet::new(
            store.clone(),
            StoreUser::SEARCH,
            Arc::clone(shard),
            SEGMENTS_CATALOG,
            chunk_size(store),
            catalog,
        )
        .map_err(|e| format!("{}: {e}", dir.display()))?;
        let set = Arc::new(set);
        sets.insert(dir.to_path_buf(), Arc::clone(&set));
        Ok(set)
    }

    /// The shards at or below `dir` are gone with their catalogs (an index
    /// deleted, or a directory left by a creation a crash cut): their
    /// files' entries are released once no reader holds them.
    pub(crate) fn forget_below(&self, dir: &Path) {
        let Some(store) = self.store.get() else {
            return;
        };
        let sets = take_below(&mut self.sets.lock(), dir);
        let marked = take_below(&mut self.marked.lock(), dir);
        for set in &sets {
            set.discard();
        }
        for catalog in marked {
            // Never opened, so no reader holds its files.
            if let Err(error) = catalog.release(store) {
                tracing::warn!(%error, dir = %dir.display(), "releasing a removed shard's files");
            }
        }
    }

    /// Every shard directory under the root.
    fn shard_dirs(&self) -> Result<Vec<PathBuf>, SsdError> {
        let list = |path: &Path| {
            self.files.subdirs(path).map_err(|e| SsdError::Catalog {
                name: path.display().to_string(),
                reason: e.to_string(),
            })
        };
        let mut dirs = Vec::new();
        for index in list(&self.root)? {
            let shards = self.root.join(index).join("shards");
            for n in list(&shards)? {
                dirs.push(shards.join(n));
            }
        }
        Ok(dirs)
    }
}

impl MarkUser for NodeStore {
    fn name(&self) -> String {
        StoreUser::SEARCH.name()
    }

    fn mark(&self, recovery: &Recovery) -> Result<(), SsdError> {
        let mut marked = HashMap::new();
        for dir in self.shard_dirs()? {
            let failed = |reason: String| SsdError::Catalog {
                name: dir.join(SEGMENTS_CATALOG).display().to_string(),
                reason,
            };
            if !(self.files.has_file(&dir, SEGMENTS_CATALOG)).map_err(|e| failed(e.to_string()))? {
                continue;
            }
            let shard = self.files.dir(&dir).map_err(|e| failed(e.to_string()))?;
            let catalog = Catalog::load(&*shard, SEGMENTS_CATALOG, recovery.device_id())?;
            catalog.mark(recovery)?;
            marked.insert(dir, catalog);
        }
        tracing::info!(
            shards = marked.len(),
            "search segment catalogs marked in the SSD store"
        );
        *self.marked.lock() = marked;
        Ok(())
    }
}

/// Takes the entries of `map` at or below `dir` out of it.
fn take_below<T>(map: &mut HashMap<PathBuf, T>, dir: &Path) -> Vec<T> {
    let gone: Vec<PathBuf> = map.keys().filter(|p| p.starts_with(dir)).cloned().collect();
    gone.iter().filter_map(|p| map.remove(p)).collect()
}

/// Bytes per chunk of a segment file: the block cache's block, so a
/// block read reads one entry, unless the store's blocks are too small
/// for one (fixed by the device's format, so the same at every opening).
fn chunk_size(store: &SsdStore) -> usize {
    BLOCK_SIZE.min(store.max_payload())
}
