//! [`BlockFile`]: the real block device, a regular file or a block-device
//! file of fixed capacity on the core's [`AlignedFile`]: `O_DIRECT` (the
//! page cache is bypassed; the engine decides what stays in DRAM) or, as
//! the explicit fallback for filesystems that refuse it, through the page
//! cache, as [`IoMode`] says. `pread`/`pwrite` at explicit offsets (no
//! shared cursor, so no lock); no `O_DSYNC`: durability comes from
//! [`BlockDevice::sync`] (`fdatasync`, which also flushes the drive's write
//! cache). Requests are checked alike in both modes, so code tested on the
//! buffered file works on the direct one. Batches of reads
//! ([`BlockDevice::read_batch`]) go through the core's io_uring reader,
//! which falls back to `pread` where the kernel refuses a ring, and the
//! file is there for a [`UringReader`](crate::UringReader)
//! ([`BlockDevice::ring_file`]).

use std::fs::{File, OpenOptions};
use std::io::{self, Seek, SeekFrom};
use std::path::Path;

use super::{check_block_io, BlockDevice};
use crate::core::{align_down, read_batch, AlignedFile, Open, ReadReq, BLOCK_ALIGN};
use crate::IoMode;

/// A [`BlockDevice`] on one open file of fixed capacity.
pub struct BlockFile {
    file: AlignedFile,
    capacity: u64,
    /// The filesystem holds blocks for the whole file (see `reserve`).
    reserved: bool,
}

impl BlockFile {
    /// Opens an existing regular file or block-device file (`/dev/nvme0n1`)
    /// read-write as `mode` says. The capacity is its size (found by
    /// seeking to the end, which also works for block devices) rounded down
    /// to [`BLOCK_ALIGN`]. With [`IoMode::Direct`], a filesystem refusing
    /// `O_DIRECT` gives an [`io::ErrorKind::Unsupported`] error saying so.
    pub fn open(path: impl AsRef<Path>, mode: IoMode) -> io::Result<BlockFile> {
        let path = path.as_ref();
        let file = AlignedFile::open(path, mode, Open::default())?;
        let size = (&mut file.file()).seek(SeekFrom::End(0))?;
        let capacity = align_down(size);
        let reserved = match file.file().metadata()?.is_file() {
            true => reserve(file.file(), path, capacity)?,
            // A block device's blocks are its own.
            false => true,
        };
        file.probe()?;
        Ok(BlockFile {
            file,
            capacity,
            reserved,
        })
    }

    /// The path opened.
    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Creates the regular file `path` with `capacity` bytes (a positive
    /// multiple of 4096), or opens it if it exists with exactly that size
    /// (or is empty, and is then sized), as `mode` says. Another size is
    /// refused: the caller would lose or misread data. The size is made
    /// durable before returning, and the file's blocks are reserved on the
    /// filesystem (`reserve`). Same `Unsupported` error as
    /// [`open`](Self::open).
    pub fn create(path: impl AsRef<Path>, capacity: u64, mode: IoMode) -> io::Result<BlockFile> {
        let path = path.as_ref();
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
        let opened = BlockFile::open(path, mode);
        if opened.is_err() && fresh {
            // Not even reserved: leave it empty again, as found, so that
            // another capacity may be asked for next time.
            let _ = plain.set_len(0);
        }
        opened
    }
}

impl BlockDevice for BlockFile {
    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        check_block_io(buf, offset, self.capacity)?;
        self.file.read_exact_at(buf, offset)
    }

    fn read_batch(&self, reqs: &mut [ReadReq<'_>]) {
        for req in reqs.iter_mut() {
            req.result = check_block_io(req.buf, req.offset, self.capacity);
        }
        read_batch(&self.file, reqs);
    }

    fn ring_file(&self) -> Option<&AlignedFile> {
        Some(&self.file)
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        check_block_io(buf, offset, self.capacity)?;
        self.file.write_all_at(buf, offset)
    }

    fn sync(&self) -> io::Result<()> {
        self.file.file().sync_data()
    }

    fn is_direct(&self) -> bool {
        self.file.mode() == IoMode::Direct
    }

    fn space_reserved(&self) -> bool {
        self.reserved
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AlignedBuf;

    /// On the real filesystem under the system temporary directory; skipped
    /// with a note where `O_DIRECT` is refused.
    #[test]
    fn direct_file_round_trips_aligned_blocks_and_refuses_misaligned_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blocks");
        let device = match BlockFile::create(&path, 64 * 1024, IoMode::Direct) {
            Ok(device) => device,
            Err(e) if e.kind() == io::ErrorKind::Unsupported => {
                eprintln!("skipped: {e}");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert!(device.is_direct());
        assert_eq!(device.capacity(), 64 * 1024);
        let mut data = AlignedBuf::zeroed(8192);
        data.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
        device.write_at(&data, 4096).unwrap();
        device.sync().unwrap();
        let mut back = AlignedBuf::zeroed(8192);
        device.read_at(&mut back, 4096).unwrap();
        assert_eq!(&back[..], &data[..]);
        let err = device.write_at(&data[..512], 0).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(device.read_at(&mut back, 60 * 1024).is_err());
        drop(device);

        // Reopened: same capacity, same bytes; another size is refused.
        let reopened = BlockFile::open(&path, IoMode::Direct).unwrap();
        assert_eq!(reopened.capacity(), 64 * 1024);
        reopened.read_at(&mut back, 4096).unwrap();
        assert_eq!(&back[..], &data[..]);
        assert!(BlockFile::create(&path, 128 * 1024, IoMode::Direct).is_err());
        assert!(BlockFile::create(&path, 64 * 1024, IoMode::Direct).is_ok());
    }

    /// On tmpfs (`/dev/shm`, where `O_DIRECT` may be refused), or the
    /// system temporary directory where there is no `/dev/shm`.
    #[test]
    fn buffered_file_on_tmpfs_round_trips_and_checks_alignment() {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            tempfile::tempdir_in(shm).unwrap()
        } else {
            tempfile::tempdir().unwrap()
        };
        let path = dir.path().join("blocks");
        let device = BlockFile::create(&path, 32 * 1024, IoMode::Buffered).unwrap();
        assert!(!device.is_direct());
        let mut data = AlignedBuf::zeroed(4096);
        data.fill(0xA5);
        device.write_at(&data, 28 * 1024).unwrap();
        device.sync().unwrap();
        let mut back = AlignedBuf::zeroed(4096);
        BlockFile::open(&path, IoMode::Buffered)
            .unwrap()
            .read_at(&mut back, 28 * 1024)
            .unwrap();
        assert_eq!(&back[..], &data[..]);
        let err = device.write_at(&data, 32 * 1024).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        let err = device.read_at(&mut back[..100], 0).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }
}
