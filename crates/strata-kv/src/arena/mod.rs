//! The arena of one shard: item records packed into segments and addressed
//! by [`Loc`] (segment id, offset).
//!
//! Invariants: records are appended; the only changes in place are a
//! persistent record's dead bit, a stub's value filled in, and a DRAM
//! record rewritten whole with its length unchanged ([`Arena::rewrite`]);
//! a record is live exactly while the index points at it; a segment is freed only after
//! every live record in it has been moved or dropped from the index. Items
//! larger than a segment get a dedicated segment of their own (offset 0).
//! Segments are kept in creation order (`fifo`) for eviction.
//!
//! Segments live in DRAM or in the persistent arena (`pmem.rs`); with the
//! index in DRAM, a persistent record that stops being live is marked dead
//! in place (durably) so that a restart's scan skips it.

mod pmem;
mod record;
mod recount;
mod segment;
mod spares;

use std::collections::VecDeque;

pub(crate) use pmem::{adopt_segments, PmemSegments};
pub(crate) use record::{
    decode, encode, encode_header, get_varint, header_len, put_varint, stub_len, Header, DEAD,
};
use segment::Segment;
use spares::Spares;
use strata_pmem::prefetch_line;

use crate::KvError;

/// Offsets within a shared segment fit in 20 bits (segments are at most 1 MiB).
pub(crate) const MAX_SEGMENT_SIZE: usize = 1 << 20;
/// Segment ids fit in 27 bits.
const MAX_SEGMENTS: usize = 1 << 27;

/// Where a record lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Loc {
    pub seg: u32,
    pub off: u32,
}

/// A decoded record borrowed from the arena.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record<'a> {
    pub header: Header,
    pub bytes: &'a [u8],
}

impl<'a> Record<'a> {
    pub fn key(&self) -> &'a [u8] {
        &self.bytes[self.header.header_len..self.header.header_len + self.header.key_len]
    }

    pub fn value(&self) -> &'a [u8] {
        let start = self.header.header_len + self.header.key_len;
        &self.bytes[start..start + self.header.value_len]
    }

    pub fn len(&self) -> usize {
        self.header.record_len()
    }
}

/// All segments of one shard.
pub(crate) struct Arena {
    segments: Vec<Option<Segment>>,
    free_ids: Vec<u32>,
    /// The shared segment small records are appended to.
    open: Option<u32>,
    /// Sealed and open segments, oldest first.
    fifo: VecDeque<u32>,
    segment_size: usize,
    /// Sum of written bytes over all segments (what the memory limit counts).
    written: usize,
    /// Where new segments come from when they are persistent.
    pmem: Option<PmemSegments>,
    /// Freed DRAM segments of `segment_size` kept for the next ones (the
    /// retention policy: see `spares.rs`); dropped by `clear`.
    spares: Spares,
}

impl Arena {
    pub fn new(segment_size: usize) -> Self {
        Self::with_source(segment_size, None)
    }

    /// An empty arena whose segments are made by `pmem` (or in DRAM).
    pub fn with_source(segment_size: usize, pmem: Option<PmemSegments>) -> Self {
        assert!(segment_size > 0 && segment_size <= MAX_SEGMENT_SIZE);
        Self {
            segments: Vec::new(),
            free_ids: Vec::new(),
            open: None,
            fifo: VecDeque::new(),
            segment_size,
            written: 0,
            pmem,
            spares: Spares::default(),
        }
    }

    /// Sets `bits` in the control byte of the record at `loc`, durably.
    pub(crate) fn mark_bits(&mut self, loc: Loc, bits: u8) -> Result<(), KvError> {
        self.segment_mut(loc.seg).set_bits(loc.off as usize, bits)
    }

    /// Overwrites the value of the record at `loc` with `value` (same
    /// length): how a stub gets its SSD location after the SSD append.
    pub(crate) fn patch_value(&mut self, loc: Loc, value: &[u8]) -> Result<(), KvError> {
        let rec = self.record(loc);
        debug_assert_eq!(rec.header.value_len, value.len());
        let at = loc.off as usize + rec.header.header_len + rec.header.key_len;
        self.segment_mut(loc.seg).patch(at, value)
    }

    /// Lets `write` overwrite the record at `loc`, `len` bytes as its caller
    /// decoded, with one as long (it gets exactly those bytes). DRAM only:
    /// a persistent record was published when appended, and overwriting it
    /// would not be failure-atomic (see [`is_persistent`](Self::is_persistent)).
    pub(crate) fn rewrite(
        &mut self,
        loc: Loc,
        len: usize,
        write: impl FnOnce(&mut [u8]),
    ) -> Result<(), KvError> {
        debug_assert!(!self.is_persistent());
        debug_assert_eq!(len, self.record(loc).len());
        self.segment_mut(loc.seg)
            .rewrite(loc.off as usize, len, write)
    }

    /// Whether new segments are persistent (records are published when
    /// appended, so changing one in place must be failure-atomic).
    pub(crate) fn is_persistent(&self) -> bool {
        self.pmem.is_some()
    }

    /// Whether `loc` lies inside a written part of a segment (a restart
    /// checks index entries before trusting them).
    pub(crate) fn contains(&self, loc: Loc) -> bool {
        self.segments
            .get(loc.seg as usize)
            .and_then(Option::as_ref)
            .is_some_and(|s| (loc.off as usize) < s.len())
    }

    /// Bytes written into live segments (live records plus garbage).
    pub fn written_bytes(&self) -> usize {
        self.written
    }

    pub fn segment_count(&self) -> usize {
        self.fifo.len()
    }

    /// Appends a record of `len` bytes filled by `write`.
    pub fn append(
        &mut self,
        len: usize,
        expires_at: Option<u64>,
        write: impl FnOnce(&mut [u8]),
    ) -> Result<Loc, KvError> {
        let seg = if len > self.segment_size {
            // Dedicated segment, sealed from birth.
            self.new_segment(len)?
        } else {
            match self.open {
                Some(id) if self.segment(id).remaining() >= len => id,
                _ => {
                    let id = self.new_segment(self.segment_size)?;
                    self.open = Some(id);
                    id
                }
            }
        };
        let off = self.segment_mut(seg).append(len, expires_at, write)?;
        self.written += len;
        Ok(Loc {
            seg,
            off: off as u32,
        })
    }

    fn new_segment(&mut self, capacity: usize) -> Result<u32, KvError> {
        let id = match self.free_ids.last() {
            Some(&id) => id,
            None if self.segments.len() < MAX_SEGMENTS => self.segments.len() as u32,
            None => return Err(KvError::OutOfMemory),
        };
        let spare = if capacity == self.segment_size {
            self.spares.take()
        } else {
            None
        };
        let segment = match (spare, &mut self.pmem) {
            (Some(segment), _) => segment,
            (None, Some(pmem)) => pmem.new_segment(id, capacity)?,
            (None, None) => Segment::new(capacity)?,
        };
        if self.free_ids.pop().is_none() {
            self.segments.push(None);
        }
        self.segments[id as usize] = Some(segment);
        self.fifo.push_back(id);
        Ok(id)
    }

    /// Segment `id`. Invariant: callers hold ids of live segments only (a
    /// location from `append`, or the FIFO's), never a freed one; breaking
    /// it is a bug in this crate, reported by the panic below.
    fn segment(&self, id: u32) -> &Segment {
        match &self.segments[id as usize] {
            Some(segment) => segment,
            None => panic!("arena invariant broken: segment {id} is not in use"),
        }
    }

    /// Segment `id`, to change (the invariant of [`segment`](Self::segment)).
    fn segment_mut(&mut self, id: u32) -> &mut Segment {
        match &mut self.segments[id as usize] {
            Some(segment) => segment,
            None => panic!("arena invariant broken: segment {id} is not in use"),
        }
    }

    /// The record at `loc`. The caller guarantees `loc` came from `append`
    /// and its segment was not freed since.
    pub fn record(&self, loc: Loc) -> Record<'_> {
        let bytes = self.segment(loc.seg).from(loc.off as usize);
        // Invariant: an index entry points at a record `append` wrote (or
        // a restart checked); a header that does not decode is a bug here.
        let Some(header) = decode(bytes) else {
            panic!("arena invariant broken: no valid record at {loc:?}");
        };
        Record { header, bytes }
    }

    /// The stored flags word of the record at `loc` (see
    /// [`record::flags`]: one byte read when it has none).
    pub fn record_flags(&self, loc: Loc) -> u64 {
        let bytes = self.segment(loc.seg).from(loc.off as usize);
        // Invariant as in `record`.
        let Some(flags) = record::flags(bytes) else {
            panic!("arena invariant broken: no valid record at {loc:?}");
        };
        flags
    }

    /// The first byte of the record at `loc`, read only to bring its cache
    /// line in: a pass over many records touches a batch first, so their
    /// (independent) memory loads overlap instead of waiting one by one.
    pub fn touch(&self, loc: Loc) -> u8 {
        self.segment(loc.seg).from(loc.off as usize)[0]
    }

    /// Starts loading the first two cache lines of the record at `loc`
    /// (its header and key, usually): a hint that reads nothing, so a
    /// `loc` that is stale or was never a record start only wastes it.
    pub fn prefetch(&self, loc: Loc) {
        let Some(Some(segment)) = self.segments.get(loc.seg as usize) else {
            return;
        };
        for off in [loc.off as usize, loc.off as usize + 64] {
            if let Some(byte) = segment.byte_at(off) {
                prefetch_line(byte);
            }
        }
    }

    /// Marks the record at `loc` (of `len` bytes) as no longer referenced;
    /// persistent records scanned at restart are also marked dead in place.
    pub fn release(&mut self, loc: Loc, len: usize) {
        let mark = self.pmem.as_ref().is_some_and(PmemSegments::marks_dead);
        let seg = self.segment_mut(loc.seg);
        seg.release(len);
        if mark {
            if let Err(e) = seg.set_bits(loc.off as usize, DEAD) {
                // The arena is poisoned now: every later write fails.
                tracing::error!(error = %e, "marking a persistent record dead failed");
            }
        }
    }

    /// Oldest segment, if any.
    pub fn oldest(&self) -> Option<u32> {
        self.fifo.front().copied()
    }

    /// Segment ids, oldest first.
    pub fn segment_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.fifo.iter().copied()
    }

    /// Stops appending to the open segment (before it is evicted or compacted).
    pub fn seal(&mut self, id: u32) {
        if self.open == Some(id) {
            self.open = None;
        }
    }

    /// Live bytes over written bytes across all segments (1.0 when empty):
    /// how much of the arena's memory is garbage awaiting compaction.
    pub fn live_fraction(&self) -> f64 {
        let live: usize = self
            .fifo
            .iter()
            .map(|&id| self.segment(id).live_bytes())
            .sum();
        if self.written == 0 {
            1.0
        } else {
            live as f64 / self.written as f64
        }
    }

    /// (written, live, capacity, earliest expiry) of a segment.
    pub fn usage(&self, id: u32) -> (usize, usize, usize, u64) {
        let s = self.segment(id);
        (s.len(), s.live_bytes(), s.capacity(), s.earliest_expiry())
    }

    /// Records the earliest expiry still pending in segment `id`.
    pub fn set_earliest_expiry(&mut self, id: u32, at: u64) {
        self.segment_mut(id).set_earliest_expiry(at);
    }

    /// The records of segment `id`, live or not, with their locations, from
    /// offset `from`, which MUST be the offset of a record (or the end).
    pub fn records_from(
        &self,
        id: u32,
        from: usize,
    ) -> impl Iterator<Item = (Loc, Record<'_>)> + '_ {
        let seg = self.segment(id);
        let mut off = from;
        std::iter::from_fn(move || {
            if off >= seg.len() {
                return None;
            }
            let bytes = seg.from(off);
            let header = decode(bytes)?;
            let loc = Loc {
                seg: id,
                off: off as u32,
            };
            off += header.record_len();
            Some((loc, Record { header, bytes }))
        })
    }

    /// Unmaps segment `id`. The caller guarantees no index entry points into it.
    pub fn free(&mut self, id: u32) {
        if let Some(seg) = self.segments[id as usize].take() {
            self.written -= seg.len();
            match &self.pmem {
                Some(pmem) => pmem.free_segment(seg),
                // Dedicated (larger) segments are unmapped at once.
                None if seg.capacity() == self.segment_size => self.spares.offer(seg),
                None => drop(seg),
            }
            self.free_ids.push(id);
            if self.open == Some(id) {
                self.open = None;
            }
            if let Some(pos) = self.fifo.iter().position(|&s| s == id) {
                self.fifo.remove(pos);
            }
        }
    }

    /// Once a maintenance pass: unmaps the spares the last interval did
    /// not ask for.
    pub fn trim_spares(&mut self) {
        self.spares.trim();
    }

    /// Spare segments held (mapped, not counted in `written`).
    #[cfg(test)]
    pub fn spare_count(&self) -> usize {
        self.spares.len()
    }

    /// Unmaps every segment (persistent ones are freed in the arena).
    pub fn clear(&mut self) {
        let ids: Vec<u32> = self.fifo.iter().copied().collect();
        for id in ids {
            self.free(id);
        }
        let pmem = self.pmem.take();
        *self = Self::with_source(self.segment_size, pmem);
    }
}

#[cfg(test)]
mod tests;
