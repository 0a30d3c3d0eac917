//! [`TieredDirectory::persist`]: a flush. The files the newest commit
//! references are copied from the fresh files to the shard's disk
//! directory and fsynced (or committed to its set in the node's SSD
//! store), then `meta.json` is written there atomically;
//! only then are the copied fresh files dropped (in `pmem` too: until then
//! the fresh `meta.json` may still name them) and files tantivy deleted
//! meanwhile removed from disk.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use tantivy::directory::error::OpenReadError;
use tantivy::Directory;

use super::disk_reads::{MANAGED, META};
use super::source_shapes::SHAPES_FILE;
use super::tiered::TieredDirectory;
use crate::query::column_cache;

const SEGMENT_EXTENSIONS: [&str; 6] = ["idx", "pos", "term", "store", "fast", "fieldnorm"];

/// What a persist did.
#[derive(Debug, Clone, Default)]
pub(crate) struct Persisted {
    /// The commit payload of the `meta.json` now durable on disk.
    pub payload: Option<String>,
    /// Files copied from the fresh files to disk.
    pub files: usize,
    /// Bytes copied.
    pub bytes: u64,
    /// The fresh files dropped after their copy, in the shard directory.
    pub dropped: Vec<PathBuf>,
}

impl Persisted {
    /// Forgets the columns cached for the segments of the dropped fresh
    /// files. A persist does so as it drops them; the caller does it again
    /// once its reader reopened the segments from disk, since a search
    /// still on the old reader in between opens the fresh copy again.
    pub(crate) fn forget_fresh_columns(&self) {
        self.dropped
            .iter()
            .for_each(|f| column_cache::forget_file(f));
    }
}

impl TieredDirectory {
    /// Makes the newest commit durable on disk (see the module docs).
    /// Returns `payload: None` when there is nothing new to persist.
    pub fn persist(&self) -> tantivy::Result<Persisted> {
        let _one_at_a_time = self.persisting.lock();
        // A concurrent merge may delete files of the meta we read; read again then.
        for _ in 0..8 {
            let meta = match self.fresh.dir().atomic_read(Path::new(META)) {
                Ok(meta) => meta,
                Err(OpenReadError::FileDoesNotExist(_)) => return Ok(Persisted::default()),
                Err(e) => return Err(e.into()),
            };
            let referenced = referenced_files(&meta)?;
            let mut copies = Vec::new();
            let mut complete = true;
            for file in &referenced {
                if self.fresh.dir().exists(file)? {
                    match self.fresh.dir().open_read(file) {
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
            let mut writes = Vec::with_capacity(copies.len());
            for (file, slice) in &copies {
                if self.disk.exists(file)? {
                    continue;
                }
                let bytes = slice.read_bytes()?;
                done.files += 1;
                done.bytes += bytes.len() as u64;
                writes.push((file.clone(), bytes));
            }
            // Durable, names included, before `meta.json` names them.
            self.disk.persist_files(&writes)?;
            for (file, bytes) in &writes {
                self.reads.adopt(file, bytes);
            }
            if let Ok(managed) = self.fresh.dir().atomic_read(Path::new(MANAGED)) {
                self.disk.replace(Path::new(MANAGED), &managed)?;
            }
            // The shapes the persisted sources name, before `meta.json`
            // names their segments (saved before every commit, so the
            // fresh copy holds at least the shapes of this meta's).
            let shapes = Path::new(SHAPES_FILE);
            if let Ok(table) = self.fresh.dir().atomic_read(shapes) {
                self.disk.replace(shapes, &table)?;
            }
            self.disk.replace(Path::new(META), &meta)?;
            done.payload = payload_of(&meta);
            let doomed: Vec<PathBuf> = {
                let mut state = self.state.lock();
                for (file, _) in &copies {
                    // Columns opened on the fresh copy would keep it alive.
                    column_cache::forget_file(file);
                    let _ = self.fresh.dir().delete(file);
                    done.dropped.push(file.clone());
                }
                if self
                    .fresh
                    .dir()
                    .atomic_read(Path::new(META))
                    .ok()
                    .as_deref()
                    == Some(&meta[..])
                {
                    let _ = self.fresh.dir().delete(Path::new(META));
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
                self.reads.forget(path);
            }
            if !doomed.is_empty() {
                self.disk.remove_files(&doomed)?;
            }
            return Ok(done);
        }
        Err(tantivy::TantivyError::SystemError(
            "persist: the commit kept changing under concurrent merges".into(),
        ))
    }
}

impl TieredDirectory {
    /// At opening, removes from the shard's set in the node's SSD store
    /// the files no commit names: a crash between a flush's commit to the
    /// set and its `meta.json` leaves them, and nothing else would ever
    /// delete them. Kept: what the durable `meta.json`, the fresh one
    /// (`pmem`) and `.managed.json` name. A file that cannot be read is an
    /// error, never taken for absent.
    pub(super) fn drop_orphans(&self) -> tantivy::Result<()> {
        let names = self.disk.set_names();
        if names.is_empty() {
            return Ok(());
        }
        let mut keep = HashSet::new();
        let durable = match self.disk.read(Path::new(META)) {
            Ok(meta) => Some(meta),
            Err(OpenReadError::FileDoesNotExist(_)) => None,
            Err(e) => return Err(e.into()),
        };
        let fresh = match self.fresh.dir().atomic_read(Path::new(META)) {
            Ok(meta) => Some(meta),
            Err(OpenReadError::FileDoesNotExist(_)) => None,
            Err(e) => return Err(e.into()),
        };
        for meta in durable.iter().chain(&fresh) {
            keep.extend(referenced_files(meta)?);
        }
        match self.disk.read(Path::new(MANAGED)) {
            Ok(managed) => {
                let listed: Vec<PathBuf> = serde_json::from_slice(&managed).map_err(|e| {
                    tantivy::TantivyError::SystemError(format!("bad {MANAGED}: {e}"))
                })?;
                keep.extend(listed);
            }
            Err(OpenReadError::FileDoesNotExist(_)) => {}
            Err(e) => return Err(e.into()),
        }
        let orphans: Vec<PathBuf> = (names.into_iter().map(PathBuf::from))
            .filter(|file| !keep.contains(file))
            .collect();
        if orphans.is_empty() {
            return Ok(());
        }
        tracing::warn!(
            shard = %self.root.display(),
            files = orphans.len(),
            "segment files no commit names (a flush cut before its meta.json) removed from the SSD store"
        );
        self.disk.remove_files(&orphans)?;
        Ok(())
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
