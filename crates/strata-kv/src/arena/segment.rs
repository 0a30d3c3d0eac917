//! One segment: a region that records are appended to, in DRAM (an
//! anonymous mapping) or in the persistent arena (a claimed chunk run).
//!
//! Pages of an anonymous mapping become resident only when written, so a
//! partly filled segment costs only what it holds, and freeing a segment
//! returns its memory to the operating system (but the arena keeps a few
//! freed DRAM segments as spares, sized by demand: see `spares.rs`).
//!
//! A persistent segment starts with a 64-byte header (`pmem_header`), then
//! the records; offsets handed out are relative to the records. An append
//! persists the record, then publishes the new length with one 8-byte
//! store: a restart sees exactly the records written before the last
//! published length.

use memmap2::{MmapMut, MmapOptions};
use strata_pmem::ClaimedRun;

use crate::tier::pmem_error;
use crate::KvError;

/// The persistent segment header: 64 bytes at the start of the run.
pub(crate) mod pmem_header {
    /// Bytes before the first record.
    pub const LEN: usize = 64;
    pub const MAGIC: u64 = u64::from_le_bytes(*b"STRATSEG");
    pub const W_MAGIC: usize = 0;
    /// Segment id (low 32 bits) and shard (high 32 bits).
    pub const W_ID: usize = 8;
    /// Creation order within the shard.
    pub const W_SEQ: usize = 16;
    /// Published length of the records.
    pub const W_LEN: usize = 24;
    /// Flush epoch at creation.
    pub const W_EPOCH: usize = 32;

    pub fn word(bytes: &[u8], at: usize) -> u64 {
        let mut word = [0u8; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(word)
    }
}

/// Where a segment's bytes are.
pub(crate) enum Memory {
    Anon(MmapMut),
    Pmem(ClaimedRun),
}

/// An append-only region of records.
pub(crate) struct Segment {
    memory: Memory,
    /// Offset of the first record in `memory` (the header length).
    base: usize,
    /// Bytes written so far; records occupy `[0, len)`.
    len: usize,
    /// Bytes of records still referenced by the index.
    live_bytes: usize,
    /// Earliest expiry among records written here (`u64::MAX` if none), so
    /// the expiry reclaimer can skip segments with nothing to expire.
    earliest_expiry: u64,
}

impl Segment {
    /// Maps a new, empty DRAM segment of `capacity` bytes.
    pub fn new(capacity: usize) -> Result<Self, KvError> {
        let map = MmapOptions::new()
            .len(capacity.max(1))
            .map_anon()
            .map_err(|_| KvError::OutOfMemory)?;
        Ok(Self::with_memory(Memory::Anon(map), 0, 0))
    }

    /// This segment emptied for reuse, if it is a DRAM one: its pages stay
    /// mapped and resident, its old bytes are never read (records are read
    /// only at locations appended since).
    pub fn recycle(self) -> Option<Self> {
        match self.memory {
            Memory::Anon(map) => Some(Self::with_memory(Memory::Anon(map), 0, 0)),
            Memory::Pmem(_) => None,
        }
    }

    /// A persistent segment over `run` whose header is already written:
    /// `len` record bytes published, counted as all live until the caller
    /// recounts (`reset_usage`, `add_live`).
    pub fn adopt(run: ClaimedRun, len: usize) -> Self {
        Self::with_memory(Memory::Pmem(run), pmem_header::LEN, len)
    }

    /// Forgets usage and expiry before a recount.
    pub fn reset_usage(&mut self) {
        self.live_bytes = 0;
        self.earliest_expiry = u64::MAX;
    }

    /// Formats `run` as an empty persistent segment and persists its header.
    pub fn format(
        mut run: ClaimedRun,
        id: u32,
        shard: u32,
        seq: u64,
        epoch: u64,
    ) -> Result<Self, KvError> {
        use pmem_header::*;
        let mut header = [0u8; LEN];
        for (at, value) in [
            (W_ID, u64::from(id) | u64::from(shard) << 32),
            (W_SEQ, seq),
            (W_LEN, 0),
            (W_EPOCH, epoch),
        ] {
            header[at..at + 8].copy_from_slice(&value.to_le_bytes());
        }
        run.bytes_mut()[..LEN].copy_from_slice(&header);
        run.persist(0, LEN).map_err(pmem_error)?;
        // The magic last: a run whose header did not become durable is
        // seen as an orphan at the next start.
        run.publish_u64(W_MAGIC, MAGIC).map_err(pmem_error)?;
        Ok(Self::with_memory(Memory::Pmem(run), LEN, 0))
    }

    fn with_memory(memory: Memory, base: usize, len: usize) -> Self {
        Self {
            memory,
            base,
            len,
            live_bytes: len,
            earliest_expiry: u64::MAX,
        }
    }

    fn bytes(&self) -> &[u8] {
        match &self.memory {
            Memory::Anon(map) => map,
            Memory::Pmem(run) => run.bytes(),
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match &mut self.memory {
            Memory::Anon(map) => map,
            Memory::Pmem(run) => run.bytes_mut(),
        }
    }

    /// Takes the persistent run out (to free it).
    pub fn into_run(self) -> Option<ClaimedRun> {
        match self.memory {
            Memory::Pmem(run) => Some(run),
            Memory::Anon(_) => None,
        }
    }

    pub fn capacity(&self) -> usize {
        self.bytes().len() - self.base
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
    /// offset. The caller guarantees `len <= self.remaining()`. A persistent
    /// segment persists the record and publishes the new length before
    /// returning.
    pub fn append(
        &mut self,
        len: usize,
        expires_at: Option<u64>,
        write: impl FnOnce(&mut [u8]),
    ) -> Result<usize, KvError> {
        let off = self.len;
        let start = self.base + off;
        write(&mut self.bytes_mut()[start..start + len]);
        if let Memory::Pmem(run) = &mut self.memory {
            run.persist(start, len).map_err(pmem_error)?;
            run.publish_u64(pmem_header::W_LEN, (off + len) as u64)
                .map_err(pmem_error)?;
        }
        self.len += len;
        self.live_bytes += len;
        if let Some(at) = expires_at {
            self.earliest_expiry = self.earliest_expiry.min(at);
        }
        Ok(off)
    }

    /// The bytes from `off` to the end of the written part.
    pub fn from(&self, off: usize) -> &[u8] {
        &self.bytes()[self.base + off..self.base + self.len]
    }

    /// The byte at record offset `off`, if it is inside the segment.
    pub fn byte_at(&self, off: usize) -> Option<&u8> {
        self.bytes()[..self.base + self.len].get(self.base + off)
    }

    /// Sets `bits` in the byte at record offset `off` and persists it (a
    /// single byte store is failure-atomic). DRAM segments only set it.
    pub fn set_bits(&mut self, off: usize, bits: u8) -> Result<(), KvError> {
        let at = self.base + off;
        self.bytes_mut()[at] |= bits;
        match &self.memory {
            Memory::Pmem(run) => run.persist(at, 1).map_err(pmem_error),
            Memory::Anon(_) => Ok(()),
        }
    }

    /// Overwrites bytes at record offset `off` (a stub's value filled in
    /// once the SSD tier accepted the record) and persists them.
    pub fn patch(&mut self, off: usize, bytes: &[u8]) -> Result<(), KvError> {
        let at = self.base + off;
        self.bytes_mut()[at..at + bytes.len()].copy_from_slice(bytes);
        match &self.memory {
            Memory::Pmem(run) => run.persist(at, bytes.len()).map_err(pmem_error),
            Memory::Anon(_) => Ok(()),
        }
    }

    /// Lets `write` overwrite the `len` bytes at record offset `off` (a
    /// record rewritten in place with its length unchanged) and persists
    /// them. The caller guarantees `off..off + len` is one written record.
    pub fn rewrite(
        &mut self,
        off: usize,
        len: usize,
        write: impl FnOnce(&mut [u8]),
    ) -> Result<(), KvError> {
        debug_assert!(off + len <= self.len);
        let at = self.base + off;
        write(&mut self.bytes_mut()[at..at + len]);
        match &self.memory {
            Memory::Pmem(run) => run.persist(at, len).map_err(pmem_error),
            Memory::Anon(_) => Ok(()),
        }
    }

    /// Counts `len` bytes of records as referenced (a restart's recount).
    pub fn add_live(&mut self, len: usize) {
        self.live_bytes += len;
    }

    /// Forgets `len` bytes of live records (superseded, deleted or moved).
    pub fn release(&mut self, len: usize) {
        debug_assert!(len <= self.live_bytes);
        self.live_bytes = self.live_bytes.saturating_sub(len);
    }
}
