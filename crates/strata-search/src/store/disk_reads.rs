//! [`DiskReads`]: how a shard reads its persisted (flushed) segment files,
//! by placement: `dram` keeps each file whole in DRAM once opened (or
//! straight from the flush that wrote it), `ssd` and `pmem` read blocks
//! through the node's [`BlockCache`]. Neither maps the file, so the OS
//! page cache plays no part in what stays resident.
//!
//! Handles are remembered per file name, so the readers that each refresh
//! reopens find the same cached blocks (and `dram` reads a file once);
//! [`DiskReads::forget`] drops a file tantivy deleted. Readers that still
//! hold it keep their own reference. The two files that are replaced in
//! place (`meta.json`, `.managed.json`; tantivy reads them with
//! `atomic_read`, not through handles) are never remembered.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use tantivy::directory::error::OpenReadError;
use tantivy::directory::{FileHandle, OwnedBytes};

use super::block_cache::BlockCache;
use super::cached_file::{CachedFile, ReadCounters};
use super::disk::ShardDisk;

/// tantivy's commit file, replaced in place on every commit.
pub(super) const META: &str = "meta.json";
/// tantivy's list of the files it manages, replaced in place.
pub(super) const MANAGED: &str = ".managed.json";

/// The read side of a shard's persisted files.
pub enum DiskReads {
    /// Whole files in DRAM, no budget.
    Resident {
        /// Files read (or adopted) so far.
        files: Mutex<HashMap<PathBuf, OwnedBytes>>,
    },
    /// Blocks through the shared, budgeted cache.
    Cached {
        /// The node's cache.
        cache: Arc<BlockCache>,
        /// This index's hits and misses.
        counters: Arc<ReadCounters>,
        /// Open handles.
        files: Mutex<HashMap<PathBuf, Arc<CachedFile>>>,
    },
}

impl DiskReads {
    /// Whole files in DRAM.
    pub fn resident() -> DiskReads {
        DiskReads::Resident {
            files: Mutex::default(),
        }
    }

    /// Blocks through `cache`, counted in `counters`.
    pub fn cached(cache: Arc<BlockCache>, counters: Arc<ReadCounters>) -> DiskReads {
        DiskReads::Cached {
            cache,
            counters,
            files: Mutex::default(),
        }
    }

    /// A handle on `name` in the shard directory `disk`.
    pub fn open(
        &self,
        disk: &ShardDisk,
        name: &Path,
    ) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        let full = disk.root().join(name);
        let fail = |e: io::Error| {
            if e.kind() == io::ErrorKind::NotFound {
                OpenReadError::FileDoesNotExist(name.to_path_buf())
            } else {
                OpenReadError::wrap_io_error(e, full.clone())
            }
        };
        let replaced_in_place = name == Path::new(META) || name == Path::new(MANAGED);
        match self {
            DiskReads::Resident { .. } if replaced_in_place => {
                Ok(Arc::new(OwnedBytes::new(disk.read(name)?)))
            }
            DiskReads::Cached {
                cache, counters, ..
            } if replaced_in_place => {
                let device = disk.open_for_blocks(name).map_err(fail)?;
                let file = CachedFile::open(device, &full, Arc::clone(cache), Arc::clone(counters));
                Ok(Arc::new(file.map_err(fail)?))
            }
            DiskReads::Resident { files } => {
                if let Some(bytes) = files.lock().get(name) {
                    return Ok(Arc::new(bytes.clone()));
                }
                // Read outside the lock; a racing reader of the same file
                // reads it too and the first one kept wins.
                let bytes = OwnedBytes::new(disk.read(name)?);
                let kept = files
                    .lock()
                    .entry(name.to_path_buf())
                    .or_insert(bytes)
                    .clone();
                Ok(Arc::new(kept))
            }
            DiskReads::Cached {
                cache,
                counters,
                files,
            } => {
                if let Some(handle) = files.lock().get(name) {
                    return Ok(Arc::clone(handle) as Arc<dyn FileHandle>);
                }
                let device = disk.open_for_blocks(name).map_err(fail)?;
                let handle = Arc::new(
                    CachedFile::open(device, &full, Arc::clone(cache), Arc::clone(counters))
                        .map_err(fail)?,
                );
                let kept = Arc::clone(files.lock().entry(name.to_path_buf()).or_insert(handle));
                Ok(kept as Arc<dyn FileHandle>)
            }
        }
    }

    /// A flush just wrote `name` with `bytes`: `dram` keeps them instead
    /// of reading the file again.
    pub fn adopt(&self, name: &Path, bytes: &OwnedBytes) {
        if let DiskReads::Resident { files } = self {
            files.lock().insert(name.to_path_buf(), bytes.clone());
        }
    }

    /// tantivy deleted `name`: drop the remembered handle or bytes.
    pub fn forget(&self, name: &Path) {
        match self {
            DiskReads::Resident { files } => {
                files.lock().remove(name);
            }
            DiskReads::Cached { files, .. } => {
                files.lock().remove(name);
            }
        }
    }

    /// Bytes of whole files held in DRAM (`dram` only).
    pub fn resident_bytes(&self) -> u64 {
        match self {
            DiskReads::Resident { files } => files.lock().values().map(|b| b.len() as u64).sum(),
            DiskReads::Cached { .. } => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(reads: &DiskReads, disk: &ShardDisk, name: &str) -> Vec<u8> {
        let handle = reads.open(disk, Path::new(name)).unwrap();
        handle
            .read_bytes(0..handle.len())
            .unwrap()
            .as_slice()
            .to_vec()
    }

    #[test]
    fn remembers_segment_files_until_forgotten_but_never_meta() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let disk = ShardDisk::open(&crate::store::SearchFiles::default(), root).unwrap();
        let cache = Arc::new(BlockCache::new(1 << 20));
        for reads in [
            DiskReads::resident(),
            DiskReads::cached(cache, Arc::default()),
        ] {
            std::fs::write(root.join("s.idx"), b"one").unwrap();
            std::fs::write(root.join(META), b"m1").unwrap();
            assert_eq!(read(&reads, &disk, "s.idx"), b"one");
            assert_eq!(read(&reads, &disk, META), b"m1");
            // Segment files never change in place; if one did, the
            // remembered handle would still answer until forgotten.
            std::fs::remove_file(root.join("s.idx")).unwrap();
            std::fs::write(root.join("s.idx"), b"two").unwrap();
            std::fs::write(root.join(META), b"m2").unwrap();
            assert_eq!(read(&reads, &disk, "s.idx"), b"one");
            assert_eq!(read(&reads, &disk, META), b"m2");
            reads.forget(Path::new("s.idx"));
            assert_eq!(read(&reads, &disk, "s.idx"), b"two");
            reads.forget(Path::new("s.idx"));
            assert!(matches!(
                reads.open(&disk, Path::new("gone.idx")),
                Err(OpenReadError::FileDoesNotExist(_))
            ));
        }
        let resident = DiskReads::resident();
        resident.adopt(Path::new("x.fast"), &OwnedBytes::new(vec![7u8; 10]));
        assert_eq!(resident.resident_bytes(), 10);
        assert_eq!(read(&resident, &disk, "x.fast"), vec![7u8; 10]);
    }
}
