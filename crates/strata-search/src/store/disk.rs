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
//! With the node's SSD store ([`NodeStore`](super::node_store::NodeStore)),
//! an `ssd` or `pmem` shard keeps its segment files in a
//! [`FileSet`] of the store instead (`meta.json` and `.managed.json` stay
//! in the directory, beside the set's catalog); files written before the
//! shard had a set are still read and removed from the directory.
//!
//! Tantivy's file names are flat (`<segment>.<ext>`, `meta.json`,
//! `.managed.json`): one device each.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata_device::{Device, Directory, Mapping};
use strata_ssd::FileSet;
use tantivy::directory::error::{DeleteError, OpenReadError};
use tantivy::directory::OwnedBytes;

use super::files::SearchFiles;
use super::set_device::{io_error, SetDevice};

/// One shard's directory on the device layer.
#[derive(Clone)]
pub(super) struct ShardDisk {
    dir: Arc<dyn Directory>,
    root: PathBuf,
    /// The shard's segment files in the node's SSD store, if it has one.
    set: Option<Arc<FileSet>>,
    /// A flush whose files add up to less stays in the directory: a
    /// commit to the set takes whole store blocks of its own, and a small
    /// flush would leave most of one empty until a merge removes it.
    min_set_bytes: u64,
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
            set: None,
            min_set_bytes: 0,
        })
    }

    /// The directory, for the set's catalog.
    pub(super) fn dir(&self) -> &Arc<dyn Directory> {
        &self.dir
    }

    /// The same directory with its segment files written to `set` when a
    /// flush's files add up to `min_set_bytes` or more.
    pub(super) fn with_set(self, set: Arc<FileSet>, min_set_bytes: u64) -> ShardDisk {
        ShardDisk {
            set: Some(set),
            min_set_bytes,
            ..self
        }
    }

    /// Bytes of the segment files in the store (0 without a set).
    pub(super) fn bytes_in_store(&self) -> u64 {
        self.set.as_ref().map_or(0, |set| {
            let names = set.names();
            names.iter().filter_map(|n| set.len(n)).sum()
        })
    }

    /// The names of the segment files in the set (none without one).
    pub(super) fn set_names(&self) -> Vec<String> {
        self.set.as_ref().map_or_else(Vec::new, |set| set.names())
    }

    /// The set's file `path`, if the shard has a set holding it.
    fn in_set(&self, path: &Path) -> Option<strata_ssd::SetFile> {
        self.set.as_ref()?.open(path.to_str()?)
    }

    /// The directory's path, for messages.
    pub(super) fn root(&self) -> &Path {
        &self.root
    }

    /// Whether `path` is persisted.
    pub(super) fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        if self.in_set(path).is_some() {
            return Ok(true);
        }
        let name = name(path).map_err(|e| OpenReadError::wrap_io_error(e, path.into()))?;
        match self.dir.open(name) {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(OpenReadError::wrap_io_error(e, self.root.join(path))),
        }
    }

    /// The whole of `path`.
    pub(super) fn read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        if let Some(file) = self.in_set(path) {
            let len = usize::try_from(file.len()).unwrap_or(usize::MAX);
            return (file.read(0, len))
                .map_err(|e| OpenReadError::wrap_io_error(io_error(e), self.root.join(path)));
        }
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
        if let Some(file) = self.in_set(path) {
            return Ok(Box::new(SetDevice::new(file)));
        }
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

    /// Writes the new segment files `files` durably, names included: one
    /// commit of the set, or (without a set, or for a flush smaller than
    /// `min_set_bytes`) each file synced and then the names.
    pub(super) fn persist_files(&self, files: &[(PathBuf, OwnedBytes)]) -> io::Result<()> {
        let bytes: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
        let set = self.set.as_ref().filter(|_| bytes >= self.min_set_bytes);
        let Some(set) = set else {
            for (path, bytes) in files {
                self.write(path, bytes.as_slice())?;
            }
            return self.sync_names();
        };
        let adds = (files.iter())
            .map(|(path, bytes)| Ok((name(path)?, bytes.as_slice())))
            .collect::<io::Result<Vec<_>>>()?;
        set.commit(&adds, &[]).map_err(io_error)
    }

    /// Removes the segment files `paths` durably (absent ones are
    /// ignored): from the set in one commit (readers that hold one keep
    /// it until they drop it), the others from the directory.
    pub(super) fn remove_files(&self, paths: &[PathBuf]) -> io::Result<()> {
        let (in_set, on_disk): (Vec<&PathBuf>, Vec<&PathBuf>) =
            paths.iter().partition(|p| self.in_set(p).is_some());
        if let Some(set) = self.set.as_ref().filter(|_| !in_set.is_empty()) {
            let names = (in_set.iter())
                .map(|p| name(p))
                .collect::<io::Result<Vec<_>>>()?;
            set.commit(&[], &names).map_err(io_error)?;
        }
        for path in &on_disk {
            match self.delete(path) {
                Ok(()) | Err(DeleteError::FileDoesNotExist(_)) => {}
                Err(e) => return Err(io::Error::other(e.to_string())),
            }
        }
        if on_disk.is_empty() {
            return Ok(());
        }
        self.sync_names()
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
