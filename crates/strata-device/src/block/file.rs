//! The positional file both real block devices are made of: a regular file
//! or a block-device file, `pread`/`pwrite` at explicit offsets (no shared
//! cursor, so no lock), `fdatasync` for durability.

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::{check_block_io, BLOCK_ALIGN};

/// One open file of fixed capacity.
pub(super) struct BlockFile {
    file: File,
    capacity: u64,
    path: PathBuf,
    /// The filesystem holds blocks for the whole file (see `reserve`).
    reserved: bool,
}

impl BlockFile {
    /// Opens an existing regular file or block-device file read-write;
    /// `flags` are extra `open(2)` flags (`O_DIRECT`). The capacity is its
    /// size (found by seeking to the end, which also works for block
    /// devices) rounded down to [`BLOCK_ALIGN`].
    pub(super) fn open(path: &Path, flags: i32) -> io::Result<BlockFile> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .custom_flags(flags)
            .open(path)?;
        let size = file.seek(SeekFrom::End(0))?;
        let capacity = size - size % BLOCK_ALIGN as u64;
        let reserved = match file.metadata()?.is_file() {
            true => reserve(&file, path, capacity)?,
            // A block device's blocks are its own.
            false => true,
        };
        Ok(BlockFile {
            file,
            capacity,
            path: path.to_path_buf(),
            reserved,
        })
    }

    /// Whether every block of the file is reserved on the filesystem, so
    /// that no write into it can fail for lack of space.
    pub(super) fn reserved(&self) -> bool {
        self.reserved
    }

    /// Creates the regular file `path` with `capacity` bytes, or opens it if
    /// it exists with exactly that size (or is empty, and is then sized).
    /// Another size is refused: the caller would lose or misread data. The
    /// size is made durable before returning, and the file's blocks are
    /// reserved on the filesystem (`reserve`).
    pub(super) fn create(path: &Path, capacity: u64, flags: i32) -> io::Result<BlockFile> {
        if capacity == 0 || !capacity.is_multiple_of(BLOCK_ALIGN as u64) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: capacity {capacity} is not a positive multiple of {BLOCK_ALIGN}",
                    path.display()
                ),
            ));
        }
        // Sized through a plain descriptor, so that a filesystem refusing
        // O_DIRECT fails at the open below with a clear message, not here.
        let plain = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        let size = plain.metadata()?.len();
        let fresh = size == 0;
        if fresh {
            plain.set_len(capacity)?;
            plain.sync_all()?;
        } else if size != capacity {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{}: the file holds {size} bytes but a capacity of {capacity} was asked for; \
                     refusing to resize existing data",
                    path.display()
                ),
            ));
        }
        let opened = BlockFile::open(path, flags);
        if opened.is_err() && fresh {
            // Not even reserved: leave it empty again, as found, so that
            // another capacity may be asked for next time.
            let _ = plain.set_len(0);
        }
        opened
    }

    pub(super) fn capacity(&self) -> u64 {
        self.capacity
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        check_block_io(buf, offset, self.capacity)?;
        self.file.read_exact_at(buf, offset)
    }

    pub(super) fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        check_block_io(buf, offset, self.capacity)?;
        self.file.write_all_at(buf, offset)
    }

    pub(super) fn sync(&self) -> io::Result<()> {
        self.file.sync_data()
    }
}

/// Reserves the blocks of the first `len` bytes of the regular file
/// `file` (`fallocate`, keeping its size and contents), so that writes into
/// it never fail for lack of space later: a filesystem shared with other
/// data can fill up without failing the tier's writes. `Ok(false)` where
/// the filesystem cannot reserve (the file stays sparse); an error naming
/// the file where there is not enough space.
fn reserve(file: &File, path: &Path, len: u64) -> io::Result<bool> {
    use rustix::fs::{fallocate, FallocateFlags};
    use rustix::io::Errno;
    if len == 0 {
        return Ok(true);
    }
    match fallocate(file, FallocateFlags::empty(), 0, len) {
        Ok(()) => Ok(true),
        Err(e) if e == Errno::OPNOTSUPP || e == Errno::NOSYS => Ok(false),
        Err(e) => {
            let e = io::Error::from(e);
            Err(io::Error::new(
                e.kind(),
                format!("{}: reserving {len} bytes of disk: {e}", path.display()),
            ))
        }
    }
}
