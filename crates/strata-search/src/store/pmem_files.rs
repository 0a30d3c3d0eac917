//! [`PmemFiles`]: a shard's fresh files in persistent memory as a tantivy
//! `Directory` over the device layer: the persistent-memory directory is
//! opened from the node's [`SearchFiles`](super::files::SearchFiles) tree,
//! so a test's power cut or faults reach the `pmem` tier as they reach the
//! shard's disk files and the translog.
//!
//! - A file is written through one device, buffered, and synced when its
//!   writer terminates; `atomic_write` (`meta.json` of each refresh) is the
//!   device layer's replace, atomic and durable; `sync_directory` makes the
//!   names durable.
//! - Reads map the file (`Device::map`): on a DAX filesystem they read the
//!   medium itself, on tmpfs the page cache that is the emulated medium;
//!   tantivy's files are write-once, which the mapping requires.
//! - Locks are held in this process only (a crash leaves no stale lock
//!   file), and watching `meta.json` is served by tantivy's callback list.

use std::collections::HashSet;
use std::fmt;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use strata_device::Device;
use tantivy::directory::error::{DeleteError, LockError, OpenReadError, OpenWriteError};
use tantivy::directory::WritePtr;
use tantivy::directory::{AntiCallToken, DirectoryLock, FileHandle, Lock, OwnedBytes};
use tantivy::directory::{TerminatingWrite, WatchCallback, WatchCallbackList, WatchHandle};
use tantivy::Directory;

use super::disk::ShardDisk;
use super::files::SearchFiles;

/// The name tantivy's readers watch.
const META: &str = "meta.json";

/// How long a blocking lock waits for its holder, in tries of 100 ms (as
/// tantivy's own directories wait).
const LOCK_TRIES: u32 = 100;

/// One shard's fresh files in a persistent-memory directory: the same
/// device-layer directory a shard's disk files use ([`ShardDisk`]), with
/// tantivy's writers, locks and watchers on top. Clones share the
/// directory, its locks and its watchers.
#[derive(Clone)]
pub struct PmemFiles {
    disk: ShardDisk,
    files: SearchFiles,
    locks: Arc<Mutex<HashSet<PathBuf>>>,
    watchers: Arc<WatchCallbackList>,
}

impl fmt::Debug for PmemFiles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PmemFiles({})", self.disk.root().display())
    }
}

impl PmemFiles {
    /// The persistent-memory directory `path` of `files` (created if
    /// missing).
    pub(super) fn open(files: &SearchFiles, path: &Path) -> tantivy::Result<PmemFiles> {
        Ok(PmemFiles {
            disk: ShardDisk::open(files, path)?,
            files: files.clone(),
            locks: Arc::default(),
            watchers: Arc::default(),
        })
    }

    /// Bytes of the files present.
    pub(super) fn bytes(&self) -> u64 {
        self.files.bytes_below(self.disk.root())
    }
}

impl Directory for PmemFiles {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        Ok(Arc::new(OwnedBytes::new(self.disk.map(path)?)))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.disk.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.disk.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        let io_error = |e: io::Error| OpenWriteError::IoError {
            io_error: Arc::new(e),
            filepath: self.disk.root().join(path),
        };
        if self
            .exists(path)
            .map_err(|e| io_error(io::Error::other(e)))?
        {
            return Err(OpenWriteError::FileAlreadyExists(path.to_path_buf()));
        }
        let device = self.disk.create(path).map_err(io_error)?;
        let writer = DeviceWriter { device, end: 0 };
        Ok(BufWriter::new(Box::new(writer)))
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.disk.read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.disk.replace(path, data)?;
        if path == Path::new(META) {
            drop(self.watchers.broadcast());
        }
        Ok(())
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.disk.sync_names()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        let tries = if lock.is_blocking { LOCK_TRIES } else { 1 };
        for attempt in 0..tries {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(100));
            }
            if self.locks.lock().insert(lock.filepath.clone()) {
                return Ok(DirectoryLock::from(Box::new(HeldLock {
                    locks: Arc::clone(&self.locks),
                    path: lock.filepath.clone(),
                })));
            }
        }
        Err(LockError::LockBusy)
    }

    fn watch(&self, watch_callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(self.watchers.subscribe(watch_callback))
    }
}

/// A lock this process holds until dropped.
struct HeldLock {
    locks: Arc<Mutex<HashSet<PathBuf>>>,
    path: PathBuf,
}

impl Drop for HeldLock {
    fn drop(&mut self) {
        self.locks.lock().remove(&self.path);
    }
}

/// Appends to a new device; the bytes are durable once terminated.
struct DeviceWriter {
    device: Box<dyn Device>,
    end: u64,
}

impl Write for DeviceWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.device.write_all_at(buf, self.end)?;
        self.end += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl TerminatingWrite for DeviceWriter {
    fn terminate_ref(&mut self, _: AntiCallToken) -> io::Result<()> {
        self.device.sync()
    }
}
