//! One segment: an anonymous memory mapping that records are appended to.
//!
//! Pages of a mapping become resident only when written, so a partly filled
//! segment costs only what it holds, and freeing a segment returns its memory
//! to the operating system at once (no allocator fragmentation).

use memmap2::{MmapMut, MmapOptions};

use crate::KvError;

/// An append-only region of records.
pub(crate) struct Segment {
    map: MmapMut,
    /// Bytes written so far; records occupy `[0, len)`.
    len: usize,
    /// Bytes of records still referenced by the index.
    live_bytes: usize,
    /// Earliest expiry among records written here (`u64::MAX` if none), so
    /// the expiry reclaimer can skip segments with nothing to expire.
    earliest_expiry: u64,
}

impl Segment {
    /// Maps a new, empty segment of `capacity` bytes.
    pub fn new(capacity: usize) -> Result<Self, KvError> {
        let map = MmapOptions::new()
            .len(capacity.max(1))
            .map_anon()
            .map_err(|_| KvError::OutOfMemory)?;
        Ok(Self {
            map,
            len: 0,
            live_bytes: 0,
            earliest_expiry: u64::MAX,
        })
    }

    pub fn capacity(&self) -> usize {
        self.map.len()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn live_bytes(&self) -> usize {
        self.live_bytes
    }

    pub fn earliest_expiry(&self) -> u64 {
        self.earliest_expiry
    }

    pub fn set_earliest_expiry(&mut self, at: u64) {
        self.earliest_expiry = at;
    }

    /// Space left for appends.
    pub fn remaining(&self) -> usize {
        self.capacity() - self.len
    }

    /// Reserves `len` bytes at the end and lets `write` fill them; returns the
    /// offset. The caller guarantees `len <= self.remaining()`.
    pub fn append(
        &mut self,
        len: usize,
        expires_at: Option<u64>,
        write: impl FnOnce(&mut [u8]),
    ) -> usize {
        let off = self.len;
        write(&mut self.map[off..off + len]);
        self.len += len;
        self.live_bytes += len;
        if let Some(at) = expires_at {
            self.earliest_expiry = self.earliest_expiry.min(at);
        }
        off
    }

    /// The bytes from `off` to the end of the written part.
    pub fn from(&self, off: usize) -> &[u8] {
        &self.map[off..self.len]
    }

    /// Forgets `len` bytes of live records (superseded, deleted or moved).
    pub fn release(&mut self, len: usize) {
        debug_assert!(len <= self.live_bytes);
        self.live_bytes = self.live_bytes.saturating_sub(len);
    }
}
