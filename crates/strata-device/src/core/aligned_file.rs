//! [`AlignedFile`]: the one file type of aligned I/O. Opened with
//! `O_DIRECT` (or through the page cache, as [`IoMode`] says, and with
//! `O_DSYNC` where asked), it reads and writes whole [`BLOCK_ALIGN`]
//! blocks at aligned offsets from aligned memory: the directory's `direct`
//! files bounce unaligned requests through it, the block files refuse them
//! before they get here, and read-only handles on immutable files (search's
//! block reads, [`AlignedFile::open_read`]) read blocks through it.
//!
//! A filesystem that refuses `O_DIRECT` (tmpfs before Linux 6.6) answers
//! `EINVAL` at the open or at the first aligned I/O; both become one
//! [`io::ErrorKind::Unsupported`] error naming the way out ([`refused`]).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::{AlignedBuf, IoMode, BLOCK_ALIGN};

/// How [`AlignedFile::open`] opens.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Open {
    /// Create the file if missing.
    pub(crate) create: bool,
    /// Truncate it to zero.
    pub(crate) truncate: bool,
    /// `O_DSYNC`: every write is durable when it returns.
    pub(crate) dsync: bool,
    /// Read only (no write access asked for).
    pub(crate) read_only: bool,
}

/// One open file read and written in aligned blocks.
pub struct AlignedFile {
    file: File,
    path: PathBuf,
    mode: IoMode,
}

impl AlignedFile {
    /// Opens `path` read-write as `mode` and `open` say. An `Unsupported`
    /// error if the filesystem refuses `O_DIRECT`.
    pub(crate) fn open(path: &Path, mode: IoMode, open: Open) -> io::Result<AlignedFile> {
        let file = options(mode, open.dsync)
            .write(!open.read_only)
            .create(open.create)
            .truncate(open.truncate)
            .open(path)
            .map_err(|e| match mode {
                IoMode::Direct => refused(e, path),
                IoMode::Buffered => e,
            })?;
        Ok(AlignedFile {
            file,
            path: path.to_path_buf(),
            mode,
        })
    }

    /// Opens the existing file `path` read-only for block reads
    /// ([`read_block`](Self::read_block)): with `O_DIRECT` where the
    /// filesystem takes it (the first block is read to find out), else
    /// through the page cache. The caller guarantees nobody writes the file
    /// any more (the reads bypass the page cache).
    pub fn open_read(path: &Path) -> io::Result<AlignedFile> {
        let buffered = AlignedFile::open_read_as(path, IoMode::Buffered)?;
        let len = usize::try_from(buffered.len()?).map_err(io::Error::other)?;
        let direct = AlignedFile::open_read_as(path, IoMode::Direct)
            .ok()
            .filter(|f| len == 0 || f.read_block(0, len.min(BLOCK_ALIGN)).is_ok());
        Ok(direct.unwrap_or(buffered))
    }

    /// Opens the existing file `path` read-only as `mode` says, without
    /// falling back (an `Unsupported` error where `O_DIRECT` is refused at
    /// the open).
    pub fn open_read_as(path: &Path, mode: IoMode) -> io::Result<AlignedFile> {
        let read_only = Open {
            read_only: true,
            ..Open::default()
        };
        AlignedFile::open(path, mode, read_only)
    }

    /// Length in bytes.
    pub fn len(&self) -> io::Result<u64> {
        Ok(self.file.metadata()?.len())
    }

    /// True when the file holds no bytes.
    pub fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// `len` bytes at `start`, a multiple of [`BLOCK_ALIGN`]; with
    /// `O_DIRECT`, whole blocks are read into aligned memory (the file's
    /// last one may come back short) and the bytes wanted copied out.
    /// `UnexpectedEof` if the file ends first.
    pub fn read_block(&self, start: u64, len: usize) -> io::Result<Vec<u8>> {
        if self.mode == IoMode::Buffered {
            let mut buf = vec![0; len];
            self.file.read_exact_at(&mut buf, start)?;
            return Ok(buf);
        }
        let mut buf = AlignedBuf::zeroed(len.div_ceil(BLOCK_ALIGN) * BLOCK_ALIGN);
        let got = self.read_upto(&mut buf, start)?;
        if got < len {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        Ok(buf[..len].to_vec())
    }

    /// Some filesystems accept the `O_DIRECT` open and refuse the I/O: read
    /// the first block (if the file has one) to find out now rather than on
    /// the first request.
    pub(crate) fn probe(&self) -> io::Result<()> {
        if self.mode == IoMode::Direct && self.file.metadata()?.len() >= BLOCK_ALIGN as u64 {
            let mut block = AlignedBuf::zeroed(BLOCK_ALIGN);
            self.read_upto(&mut block, 0)
                .map_err(|e| refused(e, &self.path))?;
        }
        Ok(())
    }

    /// Another descriptor of the same open file (`dup`): same mode, same
    /// offset-free reads and writes.
    pub(crate) fn try_clone(&self) -> io::Result<AlignedFile> {
        Ok(AlignedFile {
            file: self.file.try_clone()?,
            path: self.path.clone(),
            mode: self.mode,
        })
    }

    /// The underlying file (for lengths, `fallocate`, syncs).
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// The path opened.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the page cache is bypassed.
    pub fn mode(&self) -> IoMode {
        self.mode
    }

    /// Reads `[offset, offset + buf.len())` into the aligned `buf`; returns
    /// how many bytes the file had there (fewer at its end).
    pub(crate) fn read_upto(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.file.read_at(&mut buf[got..], offset + got as u64) {
                Ok(0) => break,
                Ok(n) => {
                    got += n;
                    // A short read ending inside a block is the end of the
                    // file; reading on from there would be unaligned.
                    if !got.is_multiple_of(BLOCK_ALIGN) {
                        break;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(got)
    }

    /// Fills the aligned `buf` from `offset`; `UnexpectedEof` if the file
    /// ends first.
    pub(crate) fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let got = self.read_upto(buf, offset)?;
        if got < buf.len() {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!(
                    "{}: read of {} bytes at {offset} found only {got}",
                    self.path.display(),
                    buf.len()
                ),
            ));
        }
        Ok(())
    }

    /// Writes all of the aligned `buf` at `offset`.
    pub(crate) fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.file.write_all_at(buf, offset)
    }
}

/// Checks that `dir`'s filesystem takes aligned `O_DIRECT | O_DSYNC`
/// writes, with an unnamed temporary file (`O_TMPFILE`), or a named one
/// removed at once where `O_TMPFILE` is not supported.
pub(crate) fn probe_dir(dir: &Path) -> io::Result<()> {
    let unnamed = options(IoMode::Direct, true)
        .custom_flags(libc::O_TMPFILE | libc::O_DIRECT | libc::O_DSYNC)
        .open(dir);
    let block = AlignedBuf::zeroed(BLOCK_ALIGN);
    let write = |file: &File| file.write_all_at(&block, 0).map_err(|e| refused(e, dir));
    match unnamed {
        Ok(file) => write(&file),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Err(refused(e, dir)),
        Err(_) => {
            let path = dir.join(".strata-direct-probe");
            let open = Open {
                create: true,
                truncate: true,
                dsync: true,
                read_only: false,
            };
            let probed =
                AlignedFile::open(&path, IoMode::Direct, open).and_then(|f| write(&f.file));
            let removed = std::fs::remove_file(&path);
            probed.and(removed)
        }
    }
}

fn options(mode: IoMode, dsync: bool) -> OpenOptions {
    let mut flags = 0;
    if mode == IoMode::Direct {
        flags |= libc::O_DIRECT;
    }
    if dsync {
        flags |= libc::O_DSYNC;
    }
    let mut options = OpenOptions::new();
    options.read(true).write(true).custom_flags(flags);
    options
}

/// `EINVAL` from an `O_DIRECT` open or aligned I/O means the filesystem
/// refuses direct I/O: say so, naming the way out. Other errors pass.
pub(crate) fn refused(e: io::Error, path: &Path) -> io::Error {
    if e.raw_os_error() != Some(libc::EINVAL) {
        return e;
    }
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!(
            "{}: the filesystem refuses O_DIRECT with 4096-byte aligned I/O ({e}); put the \
             files on another filesystem or a block device, or choose buffered I/O on purpose \
             (sync mode \"fdatasync\", SSD I/O mode buffered)",
            path.display()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct where the temporary directory's filesystem allows, and
    /// buffered: the same bytes, the same end-of-file error.
    #[test]
    fn block_reads_return_the_file_in_both_modes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("segment");
        let data: Vec<u8> = (0..3 * BLOCK_ALIGN + 100)
            .map(|i| (i % 251) as u8)
            .collect();
        std::fs::write(&path, &data).unwrap();
        let chosen = AlignedFile::open_read(&path).unwrap();
        let buffered = AlignedFile::open_read_as(&path, IoMode::Buffered).unwrap();
        for file in [chosen, buffered] {
            assert_eq!(file.len().unwrap(), data.len() as u64);
            let middle = file.read_block(4096, 4096).unwrap();
            assert_eq!(middle, &data[4096..8192]);
            let tail = file.read_block(3 * 4096, 100).unwrap();
            assert_eq!(tail, &data[3 * 4096..]);
            let past = file.read_block(3 * 4096, 101).unwrap_err();
            assert_eq!(past.kind(), io::ErrorKind::UnexpectedEof);
        }
        let missing = AlignedFile::open_read(&dir.path().join("missing")).err();
        assert_eq!(missing.map(|e| e.kind()), Some(io::ErrorKind::NotFound));
    }
}
