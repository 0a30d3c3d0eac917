//! [`AlignedFile`]: the one file type of aligned I/O. Opened with
//! `O_DIRECT` (or through the page cache, as [`IoMode`] says, and with
//! `O_DSYNC` where asked), it reads and writes whole [`BLOCK_ALIGN`]
//! blocks at aligned offsets from aligned memory: the directory's `direct`
//! files bounce unaligned requests through it, the block files refuse them
//! before they get here.
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
}

/// One open file read and written in aligned blocks.
pub(crate) struct AlignedFile {
    file: File,
    path: PathBuf,
    mode: IoMode,
}

impl AlignedFile {
    /// Opens `path` read-write as `mode` and `open` say. An `Unsupported`
    /// error if the filesystem refuses `O_DIRECT`.
    pub(crate) fn open(path: &Path, mode: IoMode, open: Open) -> io::Result<AlignedFile> {
        let file = options(mode, open.dsync)
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

    /// The underlying file (for lengths, `fallocate`, syncs).
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// The path opened.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the page cache is bypassed.
    pub(crate) fn mode(&self) -> IoMode {
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
