//! [`BufferedBlockFile`]: the explicit fallback for filesystems that refuse
//! `O_DIRECT`: the same aligned positional I/O through the page cache,
//! `fdatasync` on `sync`. The OS then caches the data too, so callers
//! should report that their tier is not direct.

use std::io;
use std::path::Path;

use super::file::BlockFile;
use super::BlockDevice;

/// A [`BlockDevice`] on a regular file or block-device file, through the
/// page cache. Requests are checked exactly as for
/// [`DirectBlockFile`](super::DirectBlockFile), so code tested here works
/// there.
pub struct BufferedBlockFile {
    file: BlockFile,
}

impl BufferedBlockFile {
    /// Creates (sparse) or reopens the regular file `path` of `capacity`
    /// bytes; an existing file of another non-zero size is refused.
    pub fn create(path: impl AsRef<Path>, capacity: u64) -> io::Result<BufferedBlockFile> {
        Ok(BufferedBlockFile {
            file: BlockFile::create(path.as_ref(), capacity, 0)?,
        })
    }

    /// Opens an existing regular file or block-device file; the capacity is
    /// its size rounded down to 4096.
    pub fn open(path: impl AsRef<Path>) -> io::Result<BufferedBlockFile> {
        Ok(BufferedBlockFile {
            file: BlockFile::open(path.as_ref(), 0)?,
        })
    }

    /// The path opened.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

impl BlockDevice for BufferedBlockFile {
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
        false
    }

    fn space_reserved(&self) -> bool {
        self.file.reserved()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::AlignedBuf;

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
        let device = BufferedBlockFile::create(&path, 32 * 1024).unwrap();
        assert!(!device.is_direct());
        let mut data = AlignedBuf::zeroed(4096);
        data.fill(0xA5);
        device.write_at(&data, 28 * 1024).unwrap();
        device.sync().unwrap();
        let mut back = AlignedBuf::zeroed(4096);
        BufferedBlockFile::open(&path)
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
