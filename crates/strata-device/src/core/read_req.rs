//! [`ReadReq`]: one read of a batch
//! ([`BlockDevice::read_batch`](crate::BlockDevice::read_batch)), with the
//! place its outcome is left.

use std::io;

/// One read of a batch: fill `buf` from `offset`, then leave the outcome in
/// `result`, the same `Ok` or error a lone
/// [`read_at`](crate::BlockDevice::read_at) of it would have returned.
pub struct ReadReq<'a> {
    /// Where the bytes go: aligned memory, a multiple of the block size.
    pub buf: &'a mut [u8],
    /// Where they come from on the device.
    pub offset: u64,
    /// The outcome once the batch returns; before, an `Other` error saying
    /// nothing was read yet.
    pub result: io::Result<()>,
}

impl<'a> ReadReq<'a> {
    /// A read of `buf.len()` bytes at `offset`, not done yet.
    pub fn new(buf: &'a mut [u8], offset: u64) -> ReadReq<'a> {
        ReadReq {
            buf,
            offset,
            result: Err(io::ErrorKind::Other.into()),
        }
    }
}
