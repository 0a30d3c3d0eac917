//! A file written through the page cache and made durable with
//! `fdatasync` ([`SyncMode::Fdatasync`](super::SyncMode::Fdatasync)).
//!
//! An adapter over the core's [`AlignedFile`] opened
//! [`Buffered`](IoMode::Buffered): requests of any alignment go straight
//! to positional `pread`/`pwrite` on it, no bounce buffer.

use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::core::{AlignedFile, Mapping, Open};
use crate::{Device, IoMode};

/// One file; positional I/O, `fdatasync` on `sync`.
pub(super) struct FileDevice {
    file: AlignedFile,
    /// Set by `set_len` (and by `create`, which truncates): the next `sync`
    /// uses `fsync`, since the length is metadata.
    length_changed: AtomicBool,
}

impl FileDevice {
    /// Opens `path` read-write; with `create`, creates or truncates it.
    pub(super) fn open(path: &Path, create: bool) -> io::Result<FileDevice> {
        let open = Open {
            create,
            truncate: create,
            dsync: false,
            read_only: false,
        };
        Ok(FileDevice {
            file: AlignedFile::open(path, IoMode::Buffered, open)?,
            length_changed: AtomicBool::new(create),
        })
    }
}

impl Device for FileDevice {
    fn len(&self) -> io::Result<u64> {
        self.file.len()
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.file.file().read_exact_at(buf, offset)
    }

    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.file.file().write_all_at(buf, offset)
    }

    fn sync(&self) -> io::Result<()> {
        if self.length_changed.swap(false, Ordering::AcqRel) {
            let synced = self.file.file().sync_all();
            if synced.is_err() {
                self.length_changed.store(true, Ordering::Release);
            }
            synced
        } else {
            self.file.file().sync_data()
        }
    }

    /// Mapped read-only (see [`Mapping`]): no copy, and on a DAX
    /// filesystem no page cache either.
    fn map(&self) -> io::Result<Mapping> {
        Mapping::map(self.file.file())
    }

    fn set_len(&self, len: u64) -> io::Result<()> {
        let result = self.file.file().set_len(len);
        // After the change, so that a concurrent sync cannot clear the flag
        // before the change it must cover has happened.
        self.length_changed.store(true, Ordering::Release);
        result
    }
}
