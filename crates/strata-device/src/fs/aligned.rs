//! [`AlignedBuf`]: the bounce buffer that `O_DIRECT` I/O goes through,
//! aligned without `unsafe` by over-allocating a `Vec` and using the window
//! that starts at an aligned address.

use std::io;

/// Alignment of addresses, offsets and lengths for `O_DIRECT` I/O: 4096
/// covers both 512-byte and 4096-byte logical blocks.
pub(super) const BLOCK: usize = 4096;

/// A reusable buffer handing out [`BLOCK`]-aligned windows.
#[derive(Default)]
pub(super) struct AlignedBuf {
    storage: Vec<u8>,
}

impl AlignedBuf {
    /// A window of `len` bytes starting at a [`BLOCK`]-aligned address. Its
    /// content is whatever the last use left there.
    pub(super) fn window(&mut self, len: usize) -> io::Result<&mut [u8]> {
        if self.storage.len() < len + BLOCK {
            self.storage.resize(len + BLOCK, 0);
        }
        let start = self.storage.as_ptr().align_offset(BLOCK);
        if start >= BLOCK {
            return Err(io::Error::other("cannot align an O_DIRECT bounce buffer"));
        }
        Ok(&mut self.storage[start..start + len])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_aligned() {
        let mut buf = AlignedBuf::default();
        for len in [0, 1, BLOCK, 3 * BLOCK + 17, BLOCK << 8] {
            let window = buf.window(len).unwrap();
            assert_eq!(window.len(), len);
            assert_eq!(window.as_ptr().align_offset(BLOCK), 0);
        }
    }
}
