//! `TieredDirectory`: the tantivy `Directory` of one shard. Fresh files
//! (new segments, `meta.json` of every refresh) are written to DRAM; a flush
//! ([`TieredDirectory::persist`]) copies the files the current commit
//! references to the shard's SSD directory, fsyncs them, then writes
//! `meta.json` there atomically. So a refresh never fsyncs, and the
//! directory on disk always holds one complete, durable commit.
//!
//! Invariants:
//! - reads try DRAM first, then disk; a file is never different in the two.
//! - a file tantivy deletes that exists on disk stays there ("doomed") until
//!   the next persist, because the durable `meta.json` may still reference
//!   it; it is invisible to tantivy meanwhile.
//! - `meta.json` is dropped from DRAM only while holding the state lock and
//!   only if it is still the version just persisted.

use std::collections::HashSet;
use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::{
    DirectoryLock, FileHandle, Lock, MmapDirectory, RamDirectory, TerminatingWrite, WatchCallback,
    WatchHandle, WritePtr,
};
use tantivy::Directory;

const META: &str = "meta.json";
const MANAGED: &str = ".managed.json";
const SEGMENT_EXTENSIONS: [&str; 6] = ["idx", "pos", "term", "store", "fast", "fieldnorm"];

/// A shard's directory: fresh files in DRAM, persisted files on disk.
#[derive(Clone)]
pub struct TieredDirectory {
    fresh: RamDirectory,
    disk: MmapDirectory,
    state: Arc<Mutex<TierState>>,
    persisting: Arc<Mutex<()>>,
}

#[derive(Default)]
struct TierState {
    doomed: HashSet<PathBuf>,
}

/// What a persist did.
#[derive(Debug, Clone, Default)]
pub struct Persisted {
    /// The commit payload of the `meta.json` now durable on disk.
    pub payload: Option<String>,
    /// Files copied from DRAM to disk.
    pub files: usize,
    /// Bytes copied.
    pub bytes: u64,
}

impl fmt::Debug for TieredDirectory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TieredDirectory({:?})", self.disk)
    }
}

impl TieredDirectory {
    /// Opens the shard directory `path` (which must exist).
    pub fn open(path: &Path) -> tantivy::Result<TieredDirectory> {
        let disk = MmapDirectory::open(path)?;
        Ok(TieredDirectory {
            fresh: RamDirectory::create(),
            disk,
            state: Arc::new(Mutex::new(TierState::default())),
            persisting: Arc::new(Mutex::new(())),
        })
    }

    /// Bytes of fresh files held in DRAM.
    pub fn fresh_bytes(&self) -> usize {
        self.fresh.total_mem_usage()
    }

    /// Makes the newest commit durable on disk (see the module docs).
    /// Returns `payload: None` when there is nothing new to persist.
    pub fn persist(&self) -> tantivy::Result<Persisted> {
        let _one_at_a_time = self.persisting.lock();
        // A concurrent merge may delete files of the meta we read; read again then.
        for _ in 0..8 {
            let meta = match self.fresh.atomic_read(Path::new(META)) {
                Ok(meta) => meta,
                Err(OpenReadError::FileDoesNotExist(_)) => return Ok(Persisted::default()),
                Err(e) => return Err(e.into()),
            };
            let referenced = referenced_files(&meta)?;
            let mut copies = Vec::new();
            let mut complete = true;
            for file in &referenced {
                if self.fresh.exists(file)? {
                    match self.fresh.open_read(file) {
                        Ok(slice) => copies.push((file.clone(), slice)),
                        Err(_) => complete = false,
                    }
                } else if !self.exists(file)? {
                    complete = false;
                }
            }
            if !complete {
                continue;
            }
            let mut done = Persisted::default();
            for (file, slice) in &copies {
                if self.disk.exists(file)? {
                    continue;
                }
                let bytes = slice.read_bytes()?;
                let mut writer = self.disk.open_write(file)?;
                writer.write_all(bytes.as_slice())?;
                writer.terminate()?; // fsyncs the file's data
                done.files += 1;
                done.bytes += bytes.len() as u64;
            }
            self.disk.sync_directory()?;
            if let Ok(managed) = self.fresh.atomic_read(Path::new(MANAGED)) {
                self.disk.atomic_write(Path::new(MANAGED), &managed)?;
            }
            self.disk.atomic_write(Path::new(META), &meta)?;
            self.disk.sync_directory()?;
            done.payload = payload_of(&meta);
            let doomed: Vec<PathBuf> = {
                let mut state = self.state.lock();
                for (file, _) in &copies {
                    let _ = self.fresh.delete(file);
                }
                if self.fresh.atomic_read(Path::new(META)).ok().as_deref() == Some(&meta[..]) {
                    let _ = self.fresh.delete(Path::new(META));
                }
                let gone: Vec<PathBuf> = state
                    .doomed
                    .iter()
                    .filter(|p| !referenced.contains(*p))
                    .cloned()
                    .collect();
                for p in &gone {
                    state.doomed.remove(p);
                }
                gone
            };
            for path in &doomed {
                match self.disk.delete(path) {
                    Ok(()) | Err(DeleteError::FileDoesNotExist(_)) => {}
                    Err(e) => return Err(io::Error::other(e.to_string()).into()),
                }
            }
            if !doomed.is_empty() {
                self.disk.sync_directory()?;
            }
            return Ok(done);
        }
        Err(tantivy::TantivyError::SystemError(
            "persist: the commit kept changing under concurrent merges".into(),
        ))
    }
}

fn payload_of(meta: &[u8]) -> Option<String> {
    let v: serde_json::Value = serde_json::from_slice(meta).ok()?;
    v.get("payload")?.as_str().map(str::to_string)
}

/// The segment files a `meta.json` references.
fn referenced_files(meta: &[u8]) -> tantivy::Result<HashSet<PathBuf>> {
    let v: serde_json::Value = serde_json::from_slice(meta)
        .map_err(|e| tantivy::TantivyError::SystemError(format!("bad meta.json: {e}")))?;
    let mut files = HashSet::new();
    let segments = v.get("segments").and_then(|s| s.as_array());
    for seg in segments.into_iter().flatten() {
        let Some(id) = seg.get("segment_id").and_then(|s| s.as_str()) else {
            continue;
        };
        let id = id.replace('-', "");
        for ext in SEGMENT_EXTENSIONS {
            files.insert(PathBuf::from(format!("{id}.{ext}")));
        }
        if let Some(opstamp) = seg
            .get("deletes")
            .and_then(|d| d.get("opstamp"))
            .and_then(|o| o.as_u64())
        {
            files.insert(PathBuf::from(format!("{id}.{opstamp}.del")));
        }
    }
    Ok(files)
}

impl Directory for TieredDirectory {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        if self.fresh.exists(path)? {
            return self.fresh.get_file_handle(path);
        }
        if self.state.lock().doomed.contains(path) {
            return Err(OpenReadError::FileDoesNotExist(path.to_path_buf()));
        }
        self.disk.get_file_handle(path)
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        let mut state = self.state.lock();
        let in_fresh = self.fresh.delete(path).is_ok();
        let on_disk = !state.doomed.contains(path)
            && self.disk.exists(path).map_err(|e| DeleteError::IoError {
                io_error: Arc::new(io::Error::other(e.to_string())),
                filepath: path.to_path_buf(),
            })?;
        if on_disk {
            state.doomed.insert(path.to_path_buf());
        }
        if in_fresh || on_disk {
            Ok(())
        } else {
            Err(DeleteError::FileDoesNotExist(path.to_path_buf()))
        }
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        if self.fresh.exists(path)? {
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
        self.fresh.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        match self.fresh.atomic_read(path) {
            Err(OpenReadError::FileDoesNotExist(_)) => self.disk.atomic_read(path),
            other => other,
        }
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        let _state = self.state.lock();
        self.fresh.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        // Durability comes from `persist` and the translog, never from a refresh.
        Ok(())
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.fresh.acquire_lock(lock)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.fresh.watch(watch_callback)
    }
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{Schema, STORED, STRING};
    use tantivy::{doc, Index, IndexWriter};

    use super::*;

    #[test]
    fn refresh_stays_in_dram_and_persist_survives_reopen() {
        let tmp = tempfile::tempdir().unwrap();
        let mut builder = Schema::builder();
        let id = builder.add_text_field("id", STRING | STORED);
        let schema = builder.build();
        let dir = TieredDirectory::open(tmp.path()).unwrap();
        let index = Index::create(dir.clone(), schema.clone(), Default::default()).unwrap();
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.add_document(doc!(id => "a")).unwrap();
        writer.commit().unwrap();
        assert!(
            !tmp.path().join(META).exists(),
            "a commit must not reach the disk"
        );
        let mut prepared = writer.prepare_commit().unwrap();
        prepared.set_payload("7");
        prepared.commit().unwrap();
        let persisted = dir.persist().unwrap();
        assert_eq!(persisted.payload.as_deref(), Some("7"));
        writer.add_document(doc!(id => "b")).unwrap();
        writer.commit().unwrap(); // not persisted: lost on "crash"
        drop(writer);
        drop(index);
        let reopened = Index::open(TieredDirectory::open(tmp.path()).unwrap()).unwrap();
        let searcher = reopened.reader().unwrap().searcher();
        assert_eq!(searcher.num_docs(), 1);
        assert_eq!(reopened.load_metas().unwrap().payload.as_deref(), Some("7"));
    }
}
