//! [`AlignedBuf`]: owned, zeroed memory whose first byte sits at a
//! [`BLOCK_ALIGN`]-aligned address, as `O_DIRECT` requires; made without
//! `unsafe` by over-allocating a `Vec` and using the window that starts at
//! an aligned address (the heap allocation never moves, so the window stays
//! aligned however the value is moved). The one aligned buffer of the crate:
//! callers' block I/O and the bounce buffers of `O_DIRECT` files alike.

use std::fmt;
use std::ops::{Deref, DerefMut};

use super::BLOCK_ALIGN;

/// A fixed-length byte buffer aligned to [`BLOCK_ALIGN`] in memory.
///
/// Derefs to `[u8]`; sub-slices that start at multiples of [`BLOCK_ALIGN`]
/// are aligned too. Costs `len + 4096` bytes of heap.
pub struct AlignedBuf {
    storage: Vec<u8>,
    start: usize,
    len: usize,
}

impl AlignedBuf {
    /// `len` zero bytes. Any length is allowed; block I/O needs multiples of
    /// [`BLOCK_ALIGN`].
    pub fn zeroed(len: usize) -> AlignedBuf {
        let storage = vec![0u8; len + BLOCK_ALIGN];
        let misalignment = storage.as_ptr() as usize % BLOCK_ALIGN;
        let start = (BLOCK_ALIGN - misalignment) % BLOCK_ALIGN;
        AlignedBuf {
            storage,
            start,
            len,
        }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True for a zero-length buffer.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first `len` bytes, growing the buffer first if it is shorter
    /// (then zeroed anew): a bounce buffer reused across calls. The
    /// content is otherwise whatever the last use left there.
    pub fn window(&mut self, len: usize) -> &mut [u8] {
        if self.len < len {
            *self = AlignedBuf::zeroed(len);
        }
        &mut self[..len]
    }
}

impl Deref for AlignedBuf {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.storage[self.start..self.start + self.len]
    }
}

impl DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.start..self.start + self.len]
    }
}

impl Clone for AlignedBuf {
    fn clone(&self) -> AlignedBuf {
        let mut copy = AlignedBuf::zeroed(self.len);
        copy.copy_from_slice(self);
        copy
    }
}

impl fmt::Debug for AlignedBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlignedBuf")
            .field("len", &self.len)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_aligned_zeroed_and_stay_aligned_when_moved() {
        for len in [0, 1, BLOCK_ALIGN, 3 * BLOCK_ALIGN + 17, BLOCK_ALIGN << 8] {
            let buf = AlignedBuf::zeroed(len);
            assert_eq!(buf.len(), len);
            assert_eq!(buf.as_ptr() as usize % BLOCK_ALIGN, 0);
            assert!(buf.iter().all(|&b| b == 0));
            let moved = [buf];
            assert_eq!(moved[0].as_ptr() as usize % BLOCK_ALIGN, 0);
            let copy = moved[0].clone();
            assert_eq!(copy.as_ptr() as usize % BLOCK_ALIGN, 0);
            assert_eq!(copy.len(), len);
        }
    }

    #[test]
    fn windows_grow_and_stay_aligned() {
        let mut buf = AlignedBuf::zeroed(0);
        for len in [0, 1, BLOCK_ALIGN, 3 * BLOCK_ALIGN + 17, 100] {
            let window = buf.window(len);
            assert_eq!(window.len(), len);
            assert_eq!(window.as_ptr() as usize % BLOCK_ALIGN, 0);
        }
        assert_eq!(buf.len(), 3 * BLOCK_ALIGN + 17, "never shrinks");
    }
}
