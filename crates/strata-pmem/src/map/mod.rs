//! [`PmemMap`]: a file mapped shared into the process, and the only module
//! of the crate with `unsafe` code (each site has a `// SAFETY:` comment and
//! is listed in `UNSAFE.md`).
//!
//! - `mmap`: the mapping itself, seen only as `&[AtomicU64]`.
//! - `flush`: `clwb` / `clflushopt` / `clflush` and `sfence`.
//! - `file`: the exclusive file lock and block reservation.
//!
//! On a DAX filesystem the file is mapped `MAP_SHARED_VALIDATE | MAP_SYNC`
//! and made durable by cache-line write-back; anywhere else `persist` is an
//! `msync` of the covering pages. This module never interprets the bytes.

mod file;
mod flush;
mod mmap;
mod prefetch;

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::{PmemError, Result};
use crate::mode::{PersistMode, PersistPolicy};
use crate::words::{self, CACHE_LINE};
use mmap::{MapFlags, Mapping};
pub use prefetch::prefetch_line;

/// A whole file mapped shared and read-write, with a fixed [`PersistMode`].
///
/// Concurrency contract: every method takes `&self` and may be called from
/// any thread. All accesses are 8-byte atomics (see `read`/`write`), so
/// racing callers never cause undefined behaviour, but a `read` racing a
/// `write` of the same bytes may see any mix of old and new 8-byte words:
/// callers must not write a range another thread reads without their own
/// synchronization. The publication mechanism is an 8-byte word from
/// [`atomic_u64`](Self::atomic_u64): write and persist the data, then store
/// the word with `Release` (readers load with `Acquire`) and persist it.
///
/// The file is locked (`flock`) while mapped, so two arenas cannot share it;
/// other programs must not truncate it (access past the end of a file
/// mapping raises SIGBUS).
pub struct PmemMap {
    mapping: Mapping,
    /// Keeps the lock; the mapping outlives neither.
    file: File,
    name: String,
    mode: PersistMode,
    emulation_reason: Option<String>,
    poisoned: AtomicBool,
}

impl PmemMap {
    /// Creates `path` (which must not exist) with `len` zero bytes, reserves
    /// its blocks and maps it. `len` must be a positive multiple of 64. The
    /// new file's length and name are not yet durable: call
    /// [`sync_file`](Self::sync_file) and sync the directory.
    pub fn create(path: &Path, len: u64, policy: PersistPolicy) -> Result<PmemMap> {
        if len == 0 || len % CACHE_LINE != 0 {
            return Err(PmemError::config(format!(
                "mapped size {len} must be a positive multiple of {CACHE_LINE}"
            )));
        }
        let name = path.display().to_string();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| match e.kind() {
                io::ErrorKind::AlreadyExists => PmemError::AlreadyExists { file: name.clone() },
                _ => PmemError::io(format!("creating {name}"), e),
            })?;
        let created = PmemMap::size_and_map(file, name, len, policy);
        if created.is_err() {
            let _ = std::fs::remove_file(path);
        }
        created
    }

    /// The rest of `create`, after which a failure removes the new file.
    fn size_and_map(file: File, name: String, len: u64, policy: PersistPolicy) -> Result<PmemMap> {
        lock(&file, &name)?;
        file.set_len(len)
            .map_err(|e| PmemError::io(format!("setting the length of {name} to {len}"), e))?;
        match file::reserve(&file, len) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::Unsupported => {
                tracing::warn!(file = %name, "cannot reserve blocks; a full filesystem may fault");
            }
            Err(e) => {
                return Err(PmemError::io(
                    format!("reserving {len} bytes for {name}"),
                    e,
                ))
            }
        }
        PmemMap::map(file, name, len, policy)
    }

    /// Opens and maps the existing file `path`; its length is the file's.
    pub fn open(path: &Path, policy: PersistPolicy) -> Result<PmemMap> {
        let name = path.display().to_string();
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| PmemError::io(format!("opening {name}"), e))?;
        lock(&file, &name)?;
        let len = file
            .metadata()
            .map_err(|e| PmemError::io(format!("reading the length of {name}"), e))?
            .len();
        if len == 0 || len % CACHE_LINE != 0 {
            return Err(PmemError::corrupt(
                &name,
                format!("file length {len} is not a positive multiple of {CACHE_LINE}"),
            ));
        }
        PmemMap::map(file, name, len, policy)
    }

    fn map(file: File, name: String, len: u64, policy: PersistPolicy) -> Result<PmemMap> {
        let len_usize = usize::try_from(len)
            .map_err(|_| PmemError::config(format!("{name}: {len} bytes do not fit in memory")))?;
        let map_error = |e| PmemError::io(format!("mapping {len} bytes of {name}"), e);
        let shared = |reason: String| -> Result<(Mapping, PersistMode, Option<String>)> {
            if policy == PersistPolicy::RequireDax {
                return Err(PmemError::DaxUnavailable {
                    file: name.clone(),
                    reason,
                });
            }
            let mapping = Mapping::map(&file, len_usize, MapFlags::Shared).map_err(map_error)?;
            Ok((mapping, PersistMode::Emulated, Some(reason)))
        };
        let (mapping, mode, emulation_reason) = match (policy, flush::best_instruction()) {
            (PersistPolicy::ForceEmulated, _) => {
                shared("emulation forced by configuration".into())?
            }
            (_, None) => shared("no cache-line write-back support on this architecture".into())?,
            (_, Some(flush)) => match Mapping::map(&file, len_usize, MapFlags::Sync) {
                Ok(mapping) => (mapping, PersistMode::Dax { flush }, None),
                Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::EINVAL)) => {
                    shared(format!(
                        "the filesystem refuses MAP_SYNC, so it is not DAX ({e})"
                    ))?
                }
                Err(e) => return Err(map_error(e)),
            },
        };
        Ok(PmemMap {
            mapping,
            file,
            name,
            mode,
            emulation_reason,
            poisoned: AtomicBool::new(false),
        })
    }

    /// Length of the mapping in bytes (the file's length).
    pub fn len(&self) -> u64 {
        self.mapping.len() as u64
    }

    /// Always false: a mapping has at least 64 bytes.
    pub fn is_empty(&self) -> bool {
        self.mapping.len() == 0
    }

    /// The file's path, as shown in errors.
    pub fn file_name(&self) -> &str {
        &self.name
    }

    /// How `persist` works for this mapping.
    pub fn persist_mode(&self) -> PersistMode {
        self.mode
    }

    /// Why persistence is emulated (`None` on real persistent memory).
    pub fn emulation_reason(&self) -> Option<&str> {
        self.emulation_reason.as_deref()
    }

    /// Whether a persist failed (`msync` returned an error): the file's
    /// durable state is then unknown and every later persist is refused.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::Acquire)
    }

    /// Copies `buf.len()` bytes at `offset` into `buf`.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        words::read(self.words(), offset, buf)
    }

    /// Copies `data` to `offset`; volatile until [`persist`](Self::persist).
    /// An 8-aligned 8-byte write is one atomic store.
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<()> {
        words::write(self.words(), offset, data)
    }

    /// The 8-byte word at `offset` (a multiple of 8), for atomic
    /// publication. A store through it is durable only after `persist`.
    pub fn atomic_u64(&self, offset: u64) -> Result<&AtomicU64> {
        words::atomic(self.words(), offset)
    }

    /// Makes the `len` bytes at `offset` durable (with the rest of their
    /// cache lines, or pages when emulated) before returning, and orders
    /// them before any later store. After a failure the map is poisoned:
    /// every later persist fails with [`PmemError::Poisoned`].
    pub fn persist(&self, offset: u64, len: u64) -> Result<()> {
        words::check_range(offset, len, self.len())?;
        if self.poisoned.load(Ordering::Acquire) {
            return Err(PmemError::Poisoned {
                file: self.name.clone(),
            });
        }
        if len == 0 {
            return Ok(());
        }
        let lines = words::covering_lines(offset, len, self.len());
        match self.mode {
            PersistMode::Dax { flush } => {
                let words = &self.words()[(lines.start / 8) as usize..(lines.end / 8) as usize];
                flush::write_back(flush, words);
                flush::sfence();
                Ok(())
            }
            _ => self.mapping.msync(lines).map_err(|e| {
                self.poisoned.store(true, Ordering::Release);
                PmemError::io(
                    format!("msync of {len} bytes at {offset} in {}", self.name),
                    e,
                )
            }),
        }
    }

    /// Orders all earlier stores and persists before later stores (`sfence`
    /// on DAX; a full fence otherwise, where persist is already synchronous).
    pub fn fence(&self) {
        match self.mode {
            PersistMode::Dax { .. } => flush::sfence(),
            _ => std::sync::atomic::fence(Ordering::SeqCst),
        }
    }

    /// Makes the file's length and allocation durable (`fsync`), needed once
    /// after [`create`](Self::create).
    pub fn sync_file(&self) -> Result<()> {
        self.file
            .sync_all()
            .map_err(|e| PmemError::io(format!("fsync of {}", self.name), e))
    }

    pub(crate) fn words(&self) -> &[AtomicU64] {
        self.mapping.words()
    }

    /// Renames the map in messages (after the arena links its file).
    pub(crate) fn set_file_name(&mut self, name: String) {
        self.name = name;
    }
}

fn lock(file: &File, name: &str) -> Result<()> {
    file::lock_exclusive(file).map_err(|e| match e.kind() {
        io::ErrorKind::WouldBlock => PmemError::Locked {
            file: name.to_owned(),
        },
        _ => PmemError::io(format!("locking {name}"), e),
    })
}
