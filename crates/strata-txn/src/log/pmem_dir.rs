//! [`PmemDirectory`]: a `strata_device::Directory` whose devices are
//! persistent-memory files mapped by `strata-pmem` ([`PmemMap`]), so the
//! command log runs on persistent memory unchanged: a write is a copy
//! into the mapping, a sync persists the bytes written since the last one
//! (cache-line write-back and `sfence` on DAX, `msync` when emulated).
//!
//! Each file is created at a fixed capacity ([`PMEM_FILE_BYTES`], which
//! bounds a log segment); writes past it fail with `StorageFull`. The
//! length a device reports is its capacity: the log reads the zeros after
//! its last record as the end. `set_len` (the log cutting a torn tail)
//! zeroes and persists everything after the new length.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_device::{Device, Directory};
use strata_pmem::{PersistPolicy, PmemMap};

/// Capacity of every persistent-memory file: a 32 MiB log segment and
/// room for one large record after it.
pub const PMEM_FILE_BYTES: u64 = 64 << 20;

/// Persistent-memory files in one directory.
pub struct PmemDirectory {
    path: PathBuf,
    open: Mutex<BTreeMap<String, Arc<PmemFile>>>,
}

struct PmemFile {
    map: PmemMap,
    /// Bytes written since the last sync: `[lo, hi)`.
    dirty: Mutex<(u64, u64)>,
}

fn pmem_error(e: strata_pmem::PmemError) -> io::Error {
    io::Error::other(e.to_string())
}

impl PmemDirectory {
    /// The directory at `path` (created if missing).
    pub fn open(path: PathBuf) -> io::Result<PmemDirectory> {
        std::fs::create_dir_all(&path)?;
        Ok(PmemDirectory {
            path,
            open: Mutex::new(BTreeMap::new()),
        })
    }

    fn file_path(&self, name: &str) -> io::Result<PathBuf> {
        if name.is_empty() || name.contains('/') || name == "." || name == ".." {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("bad file name {name:?}"),
            ));
        }
        Ok(self.path.join(name))
    }

    fn device(file: &Arc<PmemFile>) -> Box<dyn Device> {
        Box::new(PmemDevice(Arc::clone(file)))
    }
}

fn map_file(path: &Path, create: bool) -> io::Result<PmemMap> {
    let policy = PersistPolicy::Auto;
    if create {
        let map = PmemMap::create(path, PMEM_FILE_BYTES, policy).map_err(pmem_error)?;
        map.sync_file().map_err(pmem_error)?;
        Ok(map)
    } else {
        PmemMap::open(path, policy).map_err(|e| match e {
            strata_pmem::PmemError::Io { .. } if !path.exists() => io::Error::new(
                io::ErrorKind::NotFound,
                format!("no file {}", path.display()),
            ),
            other => pmem_error(other),
        })
    }
}

impl Directory for PmemDirectory {
    fn create(&self, name: &str) -> io::Result<Box<dyn Device>> {
        let path = self.file_path(name)?;
        let mut open = self.open.lock();
        open.remove(name);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let file = Arc::new(PmemFile {
            map: map_file(&path, true)?,
            dirty: Mutex::new((u64::MAX, 0)),
        });
        open.insert(name.to_owned(), Arc::clone(&file));
        Ok(Self::device(&file))
    }

    fn open(&self, name: &str) -> io::Result<Box<dyn Device>> {
        let path = self.file_path(name)?;
        let mut open = self.open.lock();
        if let Some(file) = open.get(name) {
            return Ok(Self::device(file));
        }
        let file = Arc::new(PmemFile {
            map: map_file(&path, false)?,
            dirty: Mutex::new((u64::MAX, 0)),
        });
        open.insert(name.to_owned(), Arc::clone(&file));
        Ok(Self::device(&file))
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        let mut open = self.open.lock();
        std::fs::rename(self.file_path(from)?, self.file_path(to)?)?;
        if let Some(file) = open.remove(from) {
            open.insert(to.to_owned(), file);
        }
        Ok(())
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        let mut open = self.open.lock();
        std::fs::remove_file(self.file_path(name)?)?;
        open.remove(name);
        Ok(())
    }

    fn list(&self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.path)? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                if let Ok(name) = entry.file_name().into_string() {
                    names.push(name);
                }
            }
        }
        names.sort();
        Ok(names)
    }

    fn sync_names(&self) -> io::Result<()> {
        std::fs::File::open(&self.path)?.sync_all()
    }
}

/// One mapped file.
struct PmemDevice(Arc<PmemFile>);

impl Device for PmemDevice {
    fn len(&self) -> io::Result<u64> {
        Ok(self.0.map.len())
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        if offset + buf.len() as u64 > self.0.map.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "read past the end of a pmem file",
            ));
        }
        self.0.map.read(offset, buf).map_err(pmem_error)
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let end = offset + buf.len() as u64;
        if end > self.0.map.len() {
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                format!("a pmem log file holds {} bytes", self.0.map.len()),
            ));
        }
        self.0.map.write(offset, buf).map_err(pmem_error)?;
        let mut dirty = self.0.dirty.lock();
        dirty.0 = dirty.0.min(offset);
        dirty.1 = dirty.1.max(end);
        Ok(())
    }

    fn sync(&self) -> io::Result<()> {
        let (lo, hi) = std::mem::replace(&mut *self.0.dirty.lock(), (u64::MAX, 0));
        if lo < hi {
            self.0.map.persist(lo, hi - lo).map_err(pmem_error)?;
        }
        Ok(())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let cap = self.0.map.len();
        if len > cap {
            return Err(io::Error::new(
                io::ErrorKind::StorageFull,
                "pmem log files do not grow",
            ));
        }
        let zeros = vec![0u8; 1 << 20];
        let mut at = len;
        while at < cap {
            let n = (cap - at).min(zeros.len() as u64);
            self.0
                .map
                .write(at, &zeros[..n as usize])
                .map_err(pmem_error)?;
            at += n;
        }
        self.0.map.persist(len, cap - len).map_err(pmem_error)
    }
}
