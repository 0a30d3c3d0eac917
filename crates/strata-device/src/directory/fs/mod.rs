//! The real filesystem: an [`FsDirectory`] is one directory on disk and its
//! devices are the files in it, written either through the page cache with
//! `fdatasync` (`file_device`) or with `O_DIRECT | O_DSYNC` (`direct_device`),
//! as [`SyncMode`] says, and read in blocks once written (`block_reads`);
//! all are adapters over the core's one file type, `AlignedFile`.
//!
//! Nothing is cached here: names and lengths are always asked of the
//! filesystem, so several handles on one directory agree.

mod block_reads;
mod direct_device;
mod file_device;
mod sync_mode;

pub use sync_mode::{ParseSyncModeError, SyncMode};

use std::fs::{File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::directory::name;
use crate::{Device, Directory};
use block_reads::BlockReads;
use direct_device::DirectDevice;
use file_device::FileDevice;

/// A directory on the local filesystem; each device is one file in it.
#[derive(Debug, Clone)]
pub struct FsDirectory {
    path: PathBuf,
    mode: SyncMode,
}

impl FsDirectory {
    /// Opens the directory at `path`, creating it (and its parents) if
    /// missing.
    ///
    /// With [`SyncMode::DirectDsync`] it also checks, with an unnamed
    /// temporary file, that the filesystem accepts 4096-byte aligned
    /// `O_DIRECT` writes, and returns an [`io::ErrorKind::Unsupported`]
    /// error saying so if it does not (tmpfs before Linux 6.6, for example).
    pub fn open(path: impl AsRef<Path>, mode: SyncMode) -> io::Result<FsDirectory> {
        let path = path.as_ref().to_path_buf();
        std::fs::create_dir_all(&path)?;
        if mode == SyncMode::DirectDsync {
            crate::core::probe_dir(&path)?;
        }
        Ok(FsDirectory { path, mode })
    }

    /// The directory on disk.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How this directory's files are made durable.
    pub fn mode(&self) -> SyncMode {
        self.mode
    }

    fn file_path(&self, name: &str) -> io::Result<PathBuf> {
        name::check(name)?;
        Ok(self.path.join(name))
    }

    fn device(&self, name: &str, create: bool) -> io::Result<Box<dyn Device>> {
        let path = self.file_path(name)?;
        Ok(match self.mode {
            SyncMode::Fdatasync => Box::new(FileDevice::open(&path, create)?),
            SyncMode::DirectDsync => Box::new(DirectDevice::open(&path, create)?),
        })
    }
}

impl Directory for FsDirectory {
    fn create(&self, name: &str) -> io::Result<Box<dyn Device>> {
        self.device(name, true)
    }

    fn open(&self, name: &str) -> io::Result<Box<dyn Device>> {
        self.device(name, false)
    }

    fn open_for_blocks(&self, name: &str) -> io::Result<Box<dyn Device>> {
        Ok(Box::new(BlockReads::open(&self.file_path(name)?)?))
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        std::fs::rename(self.file_path(from)?, self.file_path(to)?)
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        std::fs::remove_file(self.file_path(name)?)
    }

    /// Regular files only: subdirectories, symbolic links and names that
    /// are not UTF-8 are skipped.
    fn list(&self) -> io::Result<Vec<String>> {
        let mut names = Vec::new();
        for entry in std::fs::read_dir(&self.path)? {
            let entry = entry?;
            if !entry.file_type()?.is_file() {
                continue;
            }
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
        names.sort_unstable();
        Ok(names)
    }

    fn sync_names(&self) -> io::Result<()> {
        File::open(&self.path)?.sync_all()
    }

    /// Created (or truncated) with `mode` through `open(2)`, then
    /// `fchmod`ed (the umask, or an existing file's old bits, must not
    /// stay) and `fsync`ed, all before the device opens it.
    fn create_with_permissions(&self, name: &str, mode: u32) -> io::Result<Box<dyn Device>> {
        let mode = mode & 0o7777;
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(self.file_path(name)?)?;
        file.set_permissions(Permissions::from_mode(mode))?;
        file.sync_all()?;
        drop(file);
        self.device(name, true)
    }

    fn permissions(&self, name: &str) -> io::Result<u32> {
        let metadata = std::fs::metadata(self.file_path(name)?)?;
        Ok(metadata.permissions().mode() & 0o7777)
    }
}
