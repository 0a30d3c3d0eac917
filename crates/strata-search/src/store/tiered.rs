//! `TieredDirectory`: the tantivy `Directory` of one shard. Fresh files
//! (new segments, `meta.json` of every refresh) are written to the fresh
//! tier ([`FreshFiles`]: DRAM, or persistent memory for `pmem`); a flush
//! ([`TieredDirectory::persist`]) copies the files the current commit
//! references to the shard's SSD directory (through the device layer,
//! [`ShardDisk`]), fsyncs them, then writes `meta.json` there atomically. So a refresh never fsyncs a device, and
//! the directory on disk always holds one complete, durable commit.
//! Persisted files are read as the placement says ([`DiskReads`]), never
//! mapped.
//!
//! Invariants:
//! - reads try the fresh files first, then disk; a file is never different
//!   in the two.
//! - a file tantivy deletes that exists on disk stays there ("doomed") until
//!   the next persist, because the durable `meta.json` may still reference
//!   it; it is invisible to tantivy meanwhile.
//! - `meta.json` is dropped from the fresh files only while holding the
//!   state lock and only if it is still the version just persisted.
//! - `pmem`: every file the fresh `meta.json` names is in the fresh files
//!   or on disk (a persist copies before it drops), so a restart opens the
//!   newest refresh.

use std::collections::HashSet;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{DirectoryLock, FileHandle, Lock, WatchCallback, WatchHandle, WritePtr};
use tantivy::Directory;

use super::disk::ShardDisk;
use super::disk_reads::DiskReads;
use super::fresh::FreshFiles;
use super::node_store::SEGMENTS_CATALOG;
use super::storage::ShardStorage;
use super::tier::StoreTier;
use crate::codec::Codec;
use crate::query::column_cache;
use crate::shard::merge_yield::MergeYield;

/// A shard's directory: fresh files in DRAM or pmem, persisted files on disk.
#[derive(Clone)]
pub struct TieredDirectory {
    pub(super) fresh: FreshFiles,
    pub(super) disk: ShardDisk,
    pub(super) root: PathBuf,
    pub(super) reads: Arc<DiskReads>,
    pub(super) state: Arc<Mutex<TierState>>,
    pub(super) persisting: Arc<Mutex<()>>,
    /// Wraps the files merges write (`shard::merge_yield`).
    pub(super) merge_yield: MergeYield,
    /// Whether the string columns' dictionaries of the segments written
    /// here are compressed (`best_compression`).
    pub(super) compress_dictionaries: bool,
}

#[derive(Default)]
pub(super) struct TierState {
    pub(super) doomed: HashSet<PathBuf>,
}

impl fmt::Debug for TieredDirectory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TieredDirectory({})", self.root.display())
    }
}

impl TieredDirectory {
    /// Opens the shard directory `path` (which must exist) placed as
    /// `storage` says; `pmem` needs `storage.pmem_dir`.
    pub fn open(path: &Path, storage: &ShardStorage) -> tantivy::Result<TieredDirectory> {
        let disk = on_node_store(ShardDisk::open(&storage.files, path)?, path, storage)?;
        let (fresh, reads) = match storage.tier {
            StoreTier::Dram => (FreshFiles::dram(), DiskReads::resident()),
            StoreTier::Ssd | StoreTier::Pmem => {
                let fresh = match (&storage.tier, &storage.pmem_dir) {
                    (StoreTier::Ssd, _) => FreshFiles::dram(),
                    (_, Some(dir)) => FreshFiles::pmem(&storage.files, dir)?,
                    (_, None) => {
                        return Err(tantivy::TantivyError::InvalidArgument(
                            "pmem placement without a persistent-memory directory".into(),
                        ))
                    }
                };
                let reads =
                    DiskReads::cached(Arc::clone(&storage.cache), Arc::clone(&storage.counters));
                (fresh, reads)
            }
        };
        let dir = TieredDirectory {
            fresh,
            disk,
            root: path.to_path_buf(),
            reads: Arc::new(reads),
            state: Arc::new(Mutex::new(TierState::default())),
            persisting: Arc::new(Mutex::new(())),
            merge_yield: storage.merge_yield,
            compress_dictionaries: storage.codec == Codec::BestCompression,
        };
        dir.drop_orphans()?;
        Ok(dir)
    }

    /// Bytes of persisted segment files in the node's SSD store.
    pub fn store_bytes(&self) -> u64 {
        self.disk.bytes_in_store()
    }

    /// Bytes of fresh files (in DRAM, or in pmem).
    pub fn fresh_bytes(&self) -> usize {
        usize::try_from(self.fresh.bytes()).unwrap_or(usize::MAX)
    }

    /// Bytes of persisted files held whole in DRAM (`dram`).
    pub fn resident_bytes(&self) -> u64 {
        self.reads.resident_bytes()
    }
}

/// `disk` with its segment files in the node's SSD store, for an `ssd`
/// or `pmem` shard on a node that has one. A shard whose catalog says its
/// files are in a store is refused on a node without one (`dram` shards
/// never have one).
fn on_node_store(
    disk: ShardDisk,
    path: &Path,
    storage: &ShardStorage,
) -> tantivy::Result<ShardDisk> {
    if storage.tier == StoreTier::Dram {
        return Ok(disk);
    }
    let failed = |reason: String| tantivy::TantivyError::SystemError(reason);
    let node = storage.node_store.as_ref().filter(|n| n.store().is_some());
    match node {
        Some(node) => {
            let set = node.shard_set(path, disk.dir()).map_err(failed)?;
            Ok(disk.with_set(set, node.min_flush_bytes()))
        }
        None => {
            let listed = storage.files.has_file(path, SEGMENTS_CATALOG);
            if listed.map_err(|e| failed(format!("listing {}: {e}", path.display())))? {
                return Err(failed(format!(
                    "{}: this shard's segment files are in the node's SSD store, which this \
                     node has not opened (start it with data = ssd on the same tier file)",
                    path.display()
                )));
            }
            Ok(disk)
        }
    }
}

impl Directory for TieredDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        if self.fresh.dir().exists(path)? {
            return self.fresh.dir().get_file_handle(path);
        }
        if self.state.lock().doomed.contains(path) {
            return Err(OpenReadError::FileDoesNotExist(path.to_path_buf()));
        }
        self.reads.open(&self.disk, path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        column_cache::forget_file(path);
        let mut state = self.state.lock();
        let in_fresh = self.fresh.dir().delete(path).is_ok();
        let on_disk = !state.doomed.contains(path)
            && self.disk.exists(path).map_err(|e| DeleteError::IoError {
                io_error: Arc::new(io::Error::other(e.to_string())),
                filepath: path.to_path_buf(),
            })?;
        if on_disk {
            state.doomed.insert(path.to_path_buf());
            self.reads.forget(path);
        }
        if in_fresh || on_disk {
            Ok(())
        } else {
            Err(DeleteError::FileDoesNotExist(path.to_path_buf()))
        }
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        if self.fresh.dir().exists(path)? {
            return Ok(true);
        }
        if self.state.lock().doomed.contains(path) {
            return Ok(false);
        }
        self.disk.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        if self.exists(path).unwrap_or(false) {
            return Err(OpenWriteError::FileAlreadyExists(path.to_path_buf()));
        }
        let writer = self.fresh.dir().open_write(path)?;
        // tantivy writes a segment's files on the thread that opens them
        // (an indexing worker or a merge thread, each one writer's): its
        // string columns' dictionaries follow this index's codec.
        tantivy_sstable::set_thread_block_compression(self.compress_dictionaries);
        Ok(self.merge_yield.wrap(writer))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        match self.fresh.dir().atomic_read(path) {
            Err(OpenReadError::FileDoesNotExist(_)) => self.disk.read(path),
            other => other,
        }
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let _state = self.state.lock();
        self.fresh.dir().atomic_write(path, data)?;
        // pmem: the rename itself must survive (tantivy syncs before, not after).
        self.fresh.sync()
    }

    fn sync_directory(&self) -> io::Result<()> {
        // A device is synced only by `persist` and the translog; pmem's
        // fresh files are synced here (cheap: no device I/O).
        self.fresh.sync()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.fresh.dir().acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.fresh.dir().watch(watch_callback)
    }
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{Schema, STORED, STRING};
    use tantivy::{doc, Index, IndexWriter};

    use super::*;
    use crate::store::disk_reads::META;
    use crate::store::{BlockCache, SearchStorage};

    fn storage(tier: StoreTier, pmem: &Path) -> ShardStorage {
        let node = SearchStorage {
            default_tier: tier,
            cache: Arc::new(BlockCache::new(1 << 20)),
            pmem_root: Some(pmem.to_path_buf()),
            ..Default::default()
        };
        node.for_shard(tier, Some(&pmem.join("uuid")), 0, &Arc::default())
    }

    /// Commits "a" and persists it, commits "b" without persisting, then
    /// reopens as after a crash: returns the documents found.
    fn crash_after_unpersisted_refresh(tier: StoreTier) -> u64 {
        let tmp = tempfile::tempdir().unwrap();
        let pmem = tempfile::tempdir().unwrap();
        let disk = tmp.path();
        let mut builder = Schema::builder();
        let id = builder.add_text_field("id", STRING | STORED);
        let schema = builder.build();
        let dir = TieredDirectory::open(disk, &storage(tier, pmem.path())).unwrap();
        let index = Index::create(dir.clone(), schema.clone(), Default::default()).unwrap();
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.add_document(doc!(id => "a")).unwrap();
        writer.commit().unwrap();
        assert!(
            !disk.join(META).exists(),
            "a commit must not reach the disk"
        );
        let mut prepared = writer.prepare_commit().unwrap();
        prepared.set_payload("7");
        prepared.commit().unwrap();
        let persisted = dir.persist().unwrap();
        assert_eq!(persisted.payload.as_deref(), Some("7"));
        assert!(disk.join(META).exists());
        let reader = index.reader().unwrap();
        assert_eq!(reader.searcher().num_docs(), 1);
        writer.add_document(doc!(id => "b")).unwrap();
        let mut prepared = writer.prepare_commit().unwrap();
        prepared.set_payload("8");
        prepared.commit().unwrap(); // not persisted
        drop(writer);
        drop(reader);
        drop(index);
        let reopened =
            Index::open(TieredDirectory::open(disk, &storage(tier, pmem.path())).unwrap()).unwrap();
        let searcher = reopened.reader().unwrap().searcher();
        let payload = reopened.load_metas().unwrap().payload;
        let expected = if tier == StoreTier::Pmem { "8" } else { "7" };
        assert_eq!(payload.as_deref(), Some(expected), "{tier}");
        searcher.num_docs()
    }

    #[test]
    fn refresh_stays_in_dram_and_persist_survives_reopen() {
        assert_eq!(crash_after_unpersisted_refresh(StoreTier::Dram), 1);
        assert_eq!(crash_after_unpersisted_refresh(StoreTier::Ssd), 1);
    }

    #[test]
    fn pmem_keeps_the_newest_refresh_across_a_restart() {
        assert_eq!(crash_after_unpersisted_refresh(StoreTier::Pmem), 2);
    }

    /// A segment's cached date column is forgotten when a flush drops its
    /// fresh copy, and again when tantivy deletes the segment's files
    /// after merging it away.
    #[test]
    fn cached_columns_go_with_the_files_they_read() {
        use crate::query::column_cache::{dense_i64_column, is_cached};
        use tantivy::schema::FAST;
        let tmp = tempfile::tempdir().unwrap();
        let dir = TieredDirectory::open(tmp.path(), &storage(StoreTier::Ssd, tmp.path())).unwrap();
        let mut builder = Schema::builder();
        let t = builder.add_i64_field("t", FAST);
        let index = Index::create(dir.clone(), builder.build(), Default::default()).unwrap();
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        for segment in 0..2i64 {
            for n in 0..10 {
                writer.add_document(doc!(t => segment * 100 + n)).unwrap();
            }
            writer.commit().unwrap();
        }
        let reader = index.reader().unwrap();
        let open_all = |reader: &tantivy::IndexReader| {
            reader.reload().unwrap();
            let searcher = reader.searcher();
            for segment in searcher.segment_readers() {
                assert!(dense_i64_column(segment, "t").unwrap().is_some());
                assert!(is_cached(segment.segment_id(), "t"));
            }
            searcher
                .segment_readers()
                .iter()
                .map(|s| s.segment_id())
                .collect::<Vec<_>>()
        };
        let fresh = open_all(&reader);
        let persisted = dir.persist().unwrap();
        assert!(!persisted.dropped.is_empty());
        assert!(fresh.iter().all(|&id| !is_cached(id, "t")), "flushed");

        // Cached again from the disk copies, then merged away.
        let flushed = open_all(&reader);
        writer.merge(&flushed).wait().unwrap();
        // Files of segments a searcher holds are kept: drop it first.
        reader.reload().unwrap();
        writer.garbage_collect_files().wait().unwrap();
        assert!(flushed.iter().all(|&id| !is_cached(id, "t")), "deleted");
        let merged = open_all(&reader);
        assert_eq!(merged.len(), 1);
        assert_eq!(reader.searcher().num_docs(), 20);
    }

    /// tantivy's merge threads write through `open_write` and are known by
    /// their name: a merge run while a search is in flight pauses, and
    /// its segment is whole. (Fails if a tantivy upgrade renames them.)
    #[test]
    fn a_merge_pauses_for_a_search_in_flight() {
        use crate::shard::merge_yield::{self, MergeYield, SearchInFlight};
        use std::time::Duration;
        let tmp = tempfile::tempdir().unwrap();
        let mut storage = storage(StoreTier::Dram, tmp.path());
        storage.merge_yield = MergeYield::with_max_pause(Duration::from_millis(2));
        let dir = TieredDirectory::open(tmp.path(), &storage).unwrap();
        let mut builder = Schema::builder();
        let id = builder.add_text_field("id", STRING | STORED);
        let index = Index::create(dir, builder.build(), Default::default()).unwrap();
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        for segment in 0..3 {
            for n in 0..50 {
                writer
                    .add_document(doc!(id => format!("{segment}-{n}")))
                    .unwrap();
            }
            writer.commit().unwrap();
        }
        let segments = index.searchable_segment_ids().unwrap();
        assert_eq!(segments.len(), 3);
        let before = merge_yield::stats();
        let search = SearchInFlight::begin();
        writer.merge(&segments).wait().unwrap();
        drop(search);
        assert!(merge_yield::stats().pauses > before.pauses);
        let reader = index.reader().unwrap();
        reader.reload().unwrap();
        let searcher = reader.searcher();
        assert_eq!(searcher.segment_readers().len(), 1);
        assert_eq!(searcher.num_docs(), 150);
    }
}
