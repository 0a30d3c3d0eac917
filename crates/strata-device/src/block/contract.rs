//! The block-level contract: [`BlockDevice`] and the one check of a
//! request ([`check_block_io`]) every implementation makes.

use std::io;

use crate::core::{AlignedFile, ReadReq, BLOCK_ALIGN};

/// A fixed-capacity device read and written in aligned blocks.
///
/// Callers guarantee nothing beyond the arguments: every implementation
/// MUST check them with [`check_block_io`] and refuse bad ones with
/// `InvalidInput` (never undefined behaviour, never a partial transfer).
///
/// Durability contract: a completed `write_at` may stay volatile (in the
/// drive's write cache) until `sync` returns `Ok`. After a power cut, only
/// bytes covered by a successful `sync` are guaranteed; a later write may be
/// present, absent, or torn at 512-byte sector granularity (a prefix of its
/// sectors arrived). After `sync` fails the caller MUST assume every write
/// since the last successful sync is lost and MUST NOT retry the sync and
/// treat it as success.
///
/// Concurrency: all methods take `&self`; reads and writes of disjoint
/// ranges may run in parallel from many threads. Overlapping concurrent
/// writes (or a read overlapping a write) give an unspecified mix of bytes.
pub trait BlockDevice: Send + Sync {
    /// The unit of offsets, lengths and memory alignment: [`BLOCK_ALIGN`].
    fn block_size(&self) -> usize {
        BLOCK_ALIGN
    }

    /// Size in bytes, a multiple of [`block_size`](Self::block_size).
    fn capacity(&self) -> u64;

    /// Fills `buf` from `offset`. `buf` must start at a
    /// [`BLOCK_ALIGN`]-aligned address (use an [`AlignedBuf`](crate::AlignedBuf)), and its
    /// length and `offset` must be multiples of [`BLOCK_ALIGN`] inside the
    /// capacity.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;

    /// Reads every request of `reqs`, leaving in each `result` what
    /// [`read_at`](Self::read_at) of it would have returned. The default
    /// reads them one by one with `read_at` (so the in-memory and faulty
    /// devices keep their power-cut and fault behaviour); [`BlockFile`](crate::BlockFile)
    /// puts them all in flight at once through io_uring.
    fn read_batch(&self, reqs: &mut [ReadReq<'_>]) {
        for req in reqs {
            req.result = self.read_at(req.buf, req.offset);
        }
    }

    /// The plain file under the device, which a
    /// [`UringReader`](crate::UringReader) ([`uring_reader`](crate::uring_reader))
    /// may read directly, past [`read_at`](Self::read_at): only
    /// [`BlockFile`](crate::BlockFile) has one. Devices whose reads do more
    /// than read a file (power cuts, faults) keep the default `None`, so
    /// every read of them goes through `read_at`.
    fn ring_file(&self) -> Option<&AlignedFile> {
        None
    }

    /// Writes all of `buf` at `offset`, with the same requirements as
    /// [`read_at`](Self::read_at).
    fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()>;

    /// Durability barrier (`fdatasync`): every write completed before the
    /// call is on stable storage when it returns `Ok`.
    fn sync(&self) -> io::Result<()>;

    /// True when no operating-system page cache holds the data (`O_DIRECT`
    /// files and the in-memory device), so the caller alone decides what
    /// stays in DRAM.
    fn is_direct(&self) -> bool;

    /// True when writes within the capacity cannot fail for lack of space
    /// (a block device, a file whose blocks the filesystem reserved, memory).
    /// A sparse file on a filesystem that cannot reserve is not.
    fn space_reserved(&self) -> bool {
        true
    }
}

/// Checks a block I/O request: `buf` starts at an aligned address, its
/// length and `offset` are multiples of [`BLOCK_ALIGN`], and
/// `offset + buf.len()` is within `capacity`. `InvalidInput` naming the
/// problem otherwise. For implementations of [`BlockDevice`].
pub fn check_block_io(buf: &[u8], offset: u64, capacity: u64) -> io::Result<()> {
    let align = BLOCK_ALIGN as u64;
    let problem = if !(buf.as_ptr() as usize).is_multiple_of(BLOCK_ALIGN) {
        Some("the buffer's address is not 4096-aligned (use an AlignedBuf)")
    } else if !(buf.len() as u64).is_multiple_of(align) {
        Some("the length is not a multiple of 4096")
    } else if !offset.is_multiple_of(align) {
        Some("the offset is not a multiple of 4096")
    } else if offset
        .checked_add(buf.len() as u64)
        .is_none_or(|end| end > capacity)
    {
        Some("the range passes the end of the device")
    } else {
        None
    };
    match problem {
        None => Ok(()),
        Some(problem) => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "block I/O of {} bytes at offset {offset} (capacity {capacity}): {problem}",
                buf.len()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::AlignedBuf;

    #[test]
    fn checks_refuse_misaligned_requests() {
        let mut buf = AlignedBuf::zeroed(2 * BLOCK_ALIGN);
        assert!(check_block_io(&buf, 0, 8192).is_ok());
        assert!(check_block_io(&buf, 4096, 8192).is_err(), "past the end");
        assert!(check_block_io(&buf, 512, 1 << 20).is_err(), "offset");
        assert!(check_block_io(&buf[..100], 0, 1 << 20).is_err(), "length");
        let unaligned = &mut buf[1..4097];
        let err = check_block_io(unaligned, 0, 1 << 20).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
        assert!(check_block_io(&buf, u64::MAX - 4095, u64::MAX).is_err());
    }
}
