//! [`DirectBlockFile`]: a file or block device opened with `O_DIRECT`, so
//! reads and writes bypass the page cache (the SSD tier's engine, not the
//! OS, decides what stays in DRAM). No `O_DSYNC`: durability comes from
//! [`BlockDevice::sync`] (`fdatasync`, which also flushes the drive's write
//! cache).

use std::io;
use std::path::Path;

use super::file::BlockFile;
use super::{AlignedBuf, BlockDevice, BLOCK_ALIGN};

/// An `O_DIRECT` [`BlockDevice`] on a regular file or a block-device file.
pub struct DirectBlockFile {
    file: BlockFile,
}

impl DirectBlockFile {
    /// Creates (sparse) or reopens the regular file `path` of `capacity`
    /// bytes (a positive multiple of 4096; an existing file of another
    /// non-zero size is refused) and opens it with `O_DIRECT`.
    ///
    /// If the filesystem refuses `O_DIRECT` (tmpfs before Linux 6.6 does,
    /// with `EINVAL`) the error has kind [`io::ErrorKind::Unsupported`] and
    /// says so; [`BufferedBlockFile`](super::BufferedBlockFile) is the
    /// fallback a caller may choose on purpose.
    pub fn create(path: impl AsRef<Path>, capacity: u64) -> io::Result<DirectBlockFile> {
        let path = path.as_ref();
        let file =
            BlockFile::create(path, capacity, libc::O_DIRECT).map_err(|e| refused(e, path))?;
        DirectBlockFile::probed(file)
    }

    /// Opens an existing regular file or block-device file (`/dev/nvme0n1`)
    /// with `O_DIRECT`; the capacity is its size rounded down to 4096. Same
    /// `Unsupported` error as [`create`](Self::create).
    pub fn open(path: impl AsRef<Path>) -> io::Result<DirectBlockFile> {
        let path = path.as_ref();
        let file = BlockFile::open(path, libc::O_DIRECT).map_err(|e| refused(e, path))?;
        DirectBlockFile::probed(file)
    }

    /// Some filesystems accept the `O_DIRECT` open and refuse the I/O: read
    /// the first block to find out now rather than on the first request.
    fn probed(file: BlockFile) -> io::Result<DirectBlockFile> {
        if file.capacity() >= BLOCK_ALIGN as u64 {
            let mut probe = AlignedBuf::zeroed(BLOCK_ALIGN);
            file.read_at(&mut probe, 0)
                .map_err(|e| refused(e, file.path()))?;
        }
        Ok(DirectBlockFile { file })
    }

    /// The path opened.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

impl BlockDevice for DirectBlockFile {
    fn capacity(&self) -> u64 {
        self.file.capacity()
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.file.read_at(buf, offset)
    }

    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.file.write_at(buf, offset)
    }

    fn sync(&self) -> io::Result<()> {
        self.file.sync()
    }

    fn is_direct(&self) -> bool {
        true
    }

    fn space_reserved(&self) -> bool {
        self.file.reserved()
    }
}

/// `EINVAL` from an `O_DIRECT` open or aligned read means the filesystem
/// refuses direct I/O: say so, naming the way out.
fn refused(e: io::Error, path: &Path) -> io::Error {
    if e.raw_os_error() != Some(libc::EINVAL) {
        return e;
    }
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{}: the filesystem refuses O_DIRECT ({e}); put the SSD tier on another \
             filesystem or a block device, or choose buffered I/O (BufferedBlockFile) on purpose",
            path.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On the real filesystem under the system temporary directory; skipped
    /// with a note where `O_DIRECT` is refused.
    #[test]
    fn direct_file_round_trips_aligned_blocks_and_refuses_misaligned_ones() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("blocks");
        let device = match DirectBlockFile::create(&path, 64 * 1024) {
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
        let reopened = DirectBlockFile::open(&path).unwrap();
        assert_eq!(reopened.capacity(), 64 * 1024);
        reopened.read_at(&mut back, 4096).unwrap();
        assert_eq!(&back[..], &data[..]);
        assert!(DirectBlockFile::create(&path, 128 * 1024).is_err());
        assert!(DirectBlockFile::create(&path, 64 * 1024).is_ok());
    }
}
