//! The arena of one shard: item records packed into segments and addressed
//! by [`Loc`] (segment id, offset).
//!
//! Invariants: records are only appended, never modified in place; a record
//! is live exactly while the index points at it; a segment is freed only after
//! every live record in it has been moved or dropped from the index. Items
//! larger than a segment get a dedicated segment of their own (offset 0).
//! Segments are kept in creation order (`fifo`) for eviction.

mod record;
mod segment;

use std::collections::VecDeque;

pub(crate) use record::{decode, encode, get_varint, header_len, Header};
use segment::Segment;

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
}

impl Arena {
    pub fn new(segment_size: usize) -> Self {
        assert!(segment_size > 0 && segment_size <= MAX_SEGMENT_SIZE);
        Self {
            segments: Vec::new(),
            free_ids: Vec::new(),
            open: None,
            fifo: VecDeque::new(),
            segment_size,
            written: 0,
        }
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
        let off = self.segment_mut(seg).append(len, expires_at, write);
        self.written += len;
        Ok(Loc {
            seg,
            off: off as u32,
        })
    }

    fn new_segment(&mut self, capacity: usize) -> Result<u32, KvError> {
        let segment = Segment::new(capacity)?;
        let id = match self.free_ids.pop() {
            Some(id) => {
                self.segments[id as usize] = Some(segment);
                id
            }
            None if self.segments.len() < MAX_SEGMENTS => {
                self.segments.push(Some(segment));
                (self.segments.len() - 1) as u32
            }
            None => return Err(KvError::OutOfMemory),
        };
        self.fifo.push_back(id);
        Ok(id)
    }

    fn segment(&self, id: u32) -> &Segment {
        self.segments[id as usize]
            .as_ref()
            .expect("segment id in use")
    }

    fn segment_mut(&mut self, id: u32) -> &mut Segment {
        self.segments[id as usize]
            .as_mut()
            .expect("segment id in use")
    }

    /// The record at `loc`. The caller guarantees `loc` came from `append`
    /// and its segment was not freed since.
    pub fn record(&self, loc: Loc) -> Record<'_> {
        let bytes = self.segment(loc.seg).from(loc.off as usize);
        let header = decode(bytes).expect("index points at a valid record");
        Record { header, bytes }
    }

    /// Marks the record at `loc` (of `len` bytes) as no longer referenced.
    pub fn release(&mut self, loc: Loc, len: usize) {
        self.segment_mut(loc.seg).release(len);
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
            self.free_ids.push(id);
            if self.open == Some(id) {
                self.open = None;
            }
            if let Some(pos) = self.fifo.iter().position(|&s| s == id) {
                self.fifo.remove(pos);
            }
        }
    }

    /// Unmaps every segment.
    pub fn clear(&mut self) {
        *self = Self::new(self.segment_size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(arena: &mut Arena, key: &[u8], value: &[u8]) -> Loc {
        let len = header_len(key.len(), value.len(), 1, 0, None) + key.len() + value.len();
        arena
            .append(len, None, |buf| encode(buf, key, &[value], 1, 0, None))
            .unwrap()
    }

    #[test]
    fn appends_fill_segments_then_open_new_ones() {
        let mut arena = Arena::new(4096);
        let locs: Vec<Loc> = (0..200)
            .map(|i| put(&mut arena, format!("k{i}").as_bytes(), &[1; 50]))
            .collect();
        assert!(arena.segment_count() >= 3);
        for (i, loc) in locs.iter().enumerate() {
            assert_eq!(arena.record(*loc).key(), format!("k{i}").as_bytes());
        }
        let first = arena.oldest().unwrap();
        assert_eq!(
            arena.records_from(first, 0).count(),
            locs.iter().filter(|l| l.seg == first).count()
        );
    }

    #[test]
    fn large_records_get_their_own_segment_and_free_returns_ids() {
        let mut arena = Arena::new(4096);
        let big = put(&mut arena, b"big", &[2; 10_000]);
        assert_eq!(big.off, 0);
        assert_eq!(arena.record(big).value().len(), 10_000);
        let before = arena.written_bytes();
        arena.free(big.seg);
        assert!(arena.written_bytes() < before);
        let again = put(&mut arena, b"big2", &[3; 9_000]);
        assert_eq!(again.seg, big.seg, "freed ids are reused");
    }
}
