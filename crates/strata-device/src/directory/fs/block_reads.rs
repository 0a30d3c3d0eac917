//! A write-once file opened for block reads
//! ([`Directory::open_for_blocks`](crate::Directory::open_for_blocks)):
//! read-only, with `O_DIRECT` where the filesystem allows (else through
//! the page cache), as the core's [`AlignedFile::open_read`] decides. The
//! cache above it holds the only copy of what it reads.

use std::io;
use std::path::Path;

use crate::core::{align_down, AlignedFile, BLOCK_ALIGN_U64};
use crate::Device;

/// One file, read only.
pub(super) struct BlockReads {
    file: AlignedFile,
}

impl BlockReads {
    /// Opens the existing file `path`.
    pub(super) fn open(path: &Path) -> io::Result<BlockReads> {
        Ok(BlockReads {
            file: AlignedFile::open_read(path)?,
        })
    }
}

fn read_only() -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        "the file was opened for block reads only",
    )
}

impl Device for BlockReads {
    fn len(&self) -> io::Result<u64> {
        self.file.len()
    }

    /// Any range: the aligned blocks around it are read and the range
    /// copied out.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let start = align_down(offset);
        let lead = usize::try_from(offset - start).map_err(io::Error::other)?;
        let block = self.file.read_block(start, lead + buf.len())?;
        buf.copy_from_slice(&block[lead..]);
        Ok(())
    }

    fn write_all_at(&self, _: &[u8], _: u64) -> io::Result<()> {
        Err(read_only())
    }

    /// Nothing was written: nothing to make durable.
    fn sync(&self) -> io::Result<()> {
        Ok(())
    }

    fn set_len(&self, _: u64) -> io::Result<()> {
        Err(read_only())
    }

    fn read_block(&self, start: u64, len: usize) -> io::Result<Vec<u8>> {
        if start.is_multiple_of(BLOCK_ALIGN_U64) {
            return self.file.read_block(start, len);
        }
        let mut bytes = vec![0; len];
        self.read_exact_at(&mut bytes, start)?;
        Ok(bytes)
    }
}
