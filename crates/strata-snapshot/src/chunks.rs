//! Reading a device front to back in large chunks, with a window the parser
//! looks at: megabytes per device call, not one call per block.

use std::io;

use strata_device::Device;

/// Bytes read per device call (more when one block needs it).
pub(crate) const READ_CHUNK: usize = 4 << 20;

/// A cursor over a device with the bytes ahead of it buffered.
pub(crate) struct Chunks<'d> {
    device: &'d dyn Device,
    file_len: u64,
    buf: Vec<u8>,
    /// The cursor, as an index into `buf`.
    pos: usize,
    /// File offset of `buf[0]`.
    buf_offset: u64,
}

impl<'d> Chunks<'d> {
    /// A cursor at `offset` of a device of `file_len` bytes.
    pub fn new(device: &'d dyn Device, file_len: u64, offset: u64) -> Chunks<'d> {
        Chunks {
            device,
            file_len,
            buf: Vec::new(),
            pos: 0,
            buf_offset: offset,
        }
    }

    /// File offset of the cursor.
    pub fn offset(&self) -> u64 {
        self.buf_offset + self.pos as u64
    }

    /// True when the cursor is at the end of the file.
    pub fn at_end(&self) -> bool {
        self.offset() >= self.file_len
    }

    /// The buffered bytes from the cursor on.
    pub fn ahead(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    /// Makes at least `n` bytes ahead available; `false` when the file ends
    /// first.
    pub fn fill(&mut self, n: usize) -> io::Result<bool> {
        let have = self.buf.len() - self.pos;
        if have >= n {
            return Ok(true);
        }
        let buf_end = self.buf_offset + self.buf.len() as u64;
        let left_in_file = self.file_len.saturating_sub(buf_end);
        if (have as u64).saturating_add(left_in_file) < n as u64 {
            return Ok(false);
        }
        // Keep only the bytes ahead, then read a large chunk after them.
        self.buf.drain(..self.pos);
        self.buf_offset += self.pos as u64;
        self.pos = 0;
        let want = READ_CHUNK.max(n - have) as u64;
        let read = want.min(left_in_file) as usize;
        let start = self.buf.len();
        self.buf.resize(start + read, 0);
        self.device
            .read_exact_at(&mut self.buf[start..], self.buf_offset + start as u64)?;
        Ok(true)
    }

    /// Moves the cursor `n` bytes on; the caller guarantees they were filled.
    pub fn consume(&mut self, n: usize) {
        debug_assert!(self.pos + n <= self.buf.len());
        self.pos += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_device::{Directory, MemDirectory};

    #[test]
    fn fills_across_chunk_boundaries() {
        let dir = MemDirectory::new();
        let dev = dir.create("f").unwrap();
        let bytes: Vec<u8> = (0..READ_CHUNK + 100).map(|i| (i % 251) as u8).collect();
        dev.write_all_at(&bytes, 0).unwrap();
        let mut chunks = Chunks::new(&*dev, bytes.len() as u64, 10);
        assert!(chunks.fill(1).unwrap());
        chunks.consume(READ_CHUNK - 5);
        assert!(chunks.fill(50).unwrap());
        assert_eq!(chunks.offset(), (READ_CHUNK + 5) as u64);
        assert_eq!(
            &chunks.ahead()[..50],
            &bytes[READ_CHUNK + 5..READ_CHUNK + 55]
        );
        assert!(!chunks.fill(96).unwrap());
        assert!(chunks.fill(95).unwrap());
        chunks.consume(95);
        assert!(chunks.at_end());
    }
}
