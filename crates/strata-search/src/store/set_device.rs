//! [`SetDevice`]: a persisted segment file kept in the node's SSD store
//! ([`SetFile`]), read through the device contract that `CachedFile` and
//! the `dram` tier's whole-file reads use. Read-only: the files are
//! immutable, written once by a flush's commit.
//!
//! A block read aligned to the set's chunk size (the block cache's
//! [`BLOCK_SIZE`](super::block_cache::BLOCK_SIZE)) reads one store entry.

use std::io;

use strata_device::Device;
use strata_ssd::{SetFile, SsdError};

/// One file of a shard's set, opened for reads; holds the file's entries
/// on the store until dropped (see `SetFile`).
pub(super) struct SetDevice {
    file: SetFile,
}

impl SetDevice {
    pub(super) fn new(file: SetFile) -> SetDevice {
        SetDevice { file }
    }
}

/// The store's errors as I/O errors for tantivy's file handles.
pub(super) fn io_error(e: SsdError) -> io::Error {
    io::Error::other(e.to_string())
}

fn read_only() -> io::Error {
    io::Error::new(
        io::ErrorKind::PermissionDenied,
        "a segment file in the SSD store is read-only",
    )
}

impl Device for SetDevice {
    fn len(&self) -> io::Result<u64> {
        Ok(self.file.len())
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        if offset
            .checked_add(buf.len() as u64)
            .is_none_or(|end| end > self.file.len())
        {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let bytes = self.file.read(offset, buf.len()).map_err(io_error)?;
        buf.copy_from_slice(&bytes);
        Ok(())
    }

    fn read_block(&self, start: u64, len: usize) -> io::Result<Vec<u8>> {
        let chunk = self.file.chunk_size() as u64;
        if start % chunk == 0 && len as u64 <= chunk {
            let index = usize::try_from(start / chunk).map_err(io::Error::other)?;
            let bytes = self.file.read_chunk(index).map_err(io_error)?;
            if bytes.len() < len {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            return Ok(bytes[..len].to_vec());
        }
        let mut bytes = vec![0; len];
        self.read_exact_at(&mut bytes, start)?;
        Ok(bytes)
    }

    fn write_all_at(&self, _: &[u8], _: u64) -> io::Result<()> {
        Err(read_only())
    }

    fn sync(&self) -> io::Result<()> {
        Ok(())
    }

    fn set_len(&self, _: u64) -> io::Result<()> {
        Err(read_only())
    }
}
