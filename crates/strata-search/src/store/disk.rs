//! [`ShardDisk`]: a shard's persisted files as the device layer sees them.
//! Every byte a flush writes (segment files, `.managed.json`, `meta.json`)
//! and every removal goes through the shard directory's
//! [`Directory`](strata_device::Directory) from the node's
//! [`SearchFiles`], so power-cut and fault trees reach them as they reach
//! the translog; `dram` shards read their files back through it too, and
//! `ssd` and `pmem` shards read blocks of them (`cached_file`) through a
//! read-only device of the same directory (`O_DIRECT` where allowed).
//!
//! `pmem_files` uses the same type for a shard's fresh files in its
//! persistent-memory directory.
//!
//! Tantivy's file names are flat (`<segment>.<ext>`, `meta.json`,
//! `.managed.json`): one device each.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_device::{Device, Directory, Mapping};
use tantivy::directory::error::{DeleteError, OpenReadError};

use super::files::SearchFiles;

/// One shard's directory on the device layer.
#[derive(Clone)]
pub(super) struct ShardDisk {
    dir: Arc<dyn Directory>,
    root: PathBuf,
}

impl ShardDisk {
    /// The shard directory `root` (created if missing) in `files`.
    pub(super) fn open(files: &SearchFiles, root: &Path) -> tantivy::Result<ShardDisk> {
        let dir = files
            .dir(root)
            .map_err(|e| tantivy::TantivyError::SystemError(e.to_string()))?;
        Ok(ShardDisk {
            dir,
            root: root.to_path_buf(),
        })
    }

    /// The directory's path, for messages.
    pub(super) fn root(&self) -> &Path {
        &self.root
    }

    /// Whether `path` is persisted.
    pub(super) fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        let name = name(path).map_err(|e| OpenReadError::wrap_io_error(e, path.into()))?;
        match self.dir.open(name) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(OpenReadError::wrap_io_error(e, self.root.join(path))),
        }
    }

    /// The whole of `path`.
    pub(super) fn read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        let name = name(path).map_err(|e| OpenReadError::wrap_io_error(e, path.into()))?;
        self.dir.read_all(name).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                OpenReadError::FileDoesNotExist(path.to_path_buf())
            } else {
                OpenReadError::wrap_io_error(e, self.root.join(path))
            }
        })
    }

    /// `path`, never written again, opened for block reads.
    pub(super) fn open_for_blocks(&self, path: &Path) -> io::Result<Box<dyn Device>> {
        self.dir.open_for_blocks(name(path)?)
    }

    /// The new file `path`, empty, to be written and synced by the caller.
    pub(super) fn create(&self, path: &Path) -> io::Result<Box<dyn Device>> {
        self.dir.create(name(path)?)
    }

    /// `path`, never written again, mapped read-only (see `Device::map`).
    pub(super) fn map(&self, path: &Path) -> Result<Mapping, OpenReadError> {
        let name = name(path).map_err(|e| OpenReadError::wrap_io_error(e, path.into()))?;
        self.dir.open(name).and_then(|d| d.map()).map_err(|e| {
            if e.kind() == io::ErrorKind::NotFound {
                OpenReadError::FileDoesNotExist(path.to_path_buf())
            } else {
                OpenReadError::wrap_io_error(e, self.root.join(path))
            }
        })
    }

    /// Writes the new file `path` with `bytes` and makes it durable (its
    /// name only after [`sync_names`](Self::sync_names)).
    pub(super) fn write(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let device = self.dir.create(name(path)?)?;
        device.write_all_at(bytes, 0)?;
        device.sync()
    }

    /// Replaces `path` with `bytes` atomically and durably.
    pub(super) fn replace(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        self.dir.replace(name(path)?, bytes)
    }

    /// Makes the names written and removed so far durable.
    pub(super) fn sync_names(&self) -> io::Result<()> {
        self.dir.sync_names()
    }

    /// Removes `path`.
    pub(super) fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        let removed = name(path).and_then(|name| self.dir.remove(name));
        match removed {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                Err(DeleteError::FileDoesNotExist(path.to_path_buf()))
            }
            Err(e) => Err(DeleteError::IoError {
                io_error: Arc::new(e),
                filepath: path.to_path_buf(),
            }),
        }
    }
}

/// A tantivy path as a device name: one plain component.
fn name(path: &Path) -> io::Result<&str> {
    path.to_str().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a UTF-8 file name", path.display()),
        )
    })
}
