//! Packed storage for a shard's small values: records copied back to back
//! into segments (one allocation of 14 KiB each) instead of one heap
//! allocation per record, so that a record costs its length and not its
//! allocator size class, `Bytes` header and slack (a 1,030-byte record
//! took 1,344 bytes alone; a 100-byte one 176).
//!
//! A record's value is a `Bytes` slice of its segment (`BytesMut::split`
//! then `freeze`: safe code, no allocation per record); the segment's
//! memory goes back to the allocator when its last slice is dropped.
//!
//! Segments are written in two streams, one per S3-FIFO queue: a record
//! entering small is packed into the small stream; a record entering main
//! (promoted, straight from the ghost) or going round main again is copied
//! into the main stream, so that most segments empty as their queue's head
//! passes them. Records that leave out of order (a new version replacing
//! the old, an invalidation) leave holes, which a cleaner reclaims: when
//! the holes exceed a tenth of the shard's budget, the closed segment with
//! the most hole bytes has its live records copied into its stream's open
//! segment (each segment keeps the keys written into it to find them) and
//! is freed. A Zipfian load with 10% writes rewrote hot records in main
//! faster than main's head went round, and without the cleaner the holes
//! took a third of the cache.
//!
//! Invariant: `resident` is the charge of the segments holding at least
//! one live record (an open segment whose records all left is dropped),
//! `held` the bytes of the live records in them, and `holes` the bytes of
//! the records that left segments still charged.

use std::collections::VecDeque;
use std::mem::size_of;

use bytes::{Bytes, BytesMut};

use super::memory::{deque_bytes, value_bytes, SMALL_MAX};

/// Segment id of a record with its own allocation (not packed).
pub(super) const UNPACKED: u32 = u32::MAX;

/// Bytes per segment: jemalloc's largest small size class, served from
/// slabs exactly. Larger allocations come from page extents with a page
/// more (its cache-oblivious offset): a 32 KiB segment occupied 36 KiB,
/// and a cache of 1,000-byte records grew 11% over its budget.
const SEGMENT: usize = SMALL_MAX;

/// What a segment holds beyond its bytes: the `Bytes` shared header its
/// first split allocates, and the allocator's own slack.
const SEGMENT_OVERHEAD: usize = 64;

/// A shard packs only if its budget holds this many segments, so that the
/// two open segments and the partly emptied ones at the queues' heads are
/// a small share of it (a shard of 448 KiB or more).
const SEGMENTS_PER_BUDGET: usize = 32;

/// The stream a record is packed into: its queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stream {
    Small = 0,
    Main = 1,
}

/// A stream's segment being filled.
struct Open {
    /// The unwritten rest of the segment (written parts were split off).
    rest: BytesMut,
    id: u32,
}

/// What a shard knows of one segment.
struct Segment<K> {
    /// Records in it still cached.
    records: u32,
    /// Bytes written into it, and those of its records still cached.
    written: u32,
    live_bytes: u32,
    /// The keys of the records written into it, in order (some since gone).
    keys: Vec<K>,
}

/// The segments of one shard.
pub(super) struct Segments<K> {
    /// Bytes per segment; 0 when the shard packs nothing.
    size: usize,
    open: [Option<Open>; 2],
    /// Segment `base + i`, oldest first; one without records stays (empty)
    /// until those before it leave too.
    segments: VecDeque<Segment<K>>,
    base: u32,
    next_id: u32,
    resident: usize,
    held: usize,
    holes: usize,
    /// Keys the segments' key lists have room for.
    key_slots: usize,
}

impl<K: Clone> Segments<K> {
    /// The segments of a shard of `budget` bytes (none if it is small).
    pub(super) fn for_budget(budget: usize) -> Segments<K> {
        Segments {
            size: match budget >= SEGMENTS_PER_BUDGET * SEGMENT {
                true => SEGMENT,
                false => 0,
            },
            open: [None, None],
            segments: VecDeque::new(),
            base: 0,
            next_id: 0,
            resident: 0,
            held: 0,
            holes: 0,
            key_slots: 0,
        }
    }

    /// True if a value of `len` bytes is packed: non-empty, at most an
    /// eighth of a segment, 1,792 bytes (what a full segment leaves
    /// unwritten at its end stays under an eighth), and costing less so:
    /// a packed record pays its key in the segment's list, the end its
    /// segment leaves unwritten and the holes the cleaner lets stand (up
    /// to a tenth), about a fifth more than its bytes in all, while an
    /// allocation pays its size class and header. So 100-byte records are
    /// packed (176 bytes each on their own), 1,030-byte ones too (1,344),
    /// 1,000-byte ones not (1,088: measured, packing them held 2-9% fewer
    /// records in the SSD benchmark's cache).
    pub(super) fn packs(&self, len: usize) -> bool {
        len > 0 && len <= self.size / 8 && value_bytes(len) * 5 > (len + 8) * 6
    }

    /// `value` of `key` as the shard keeps it in `stream`: a packed copy if
    /// it `packs`, else itself; with its segment id (or `UNPACKED`).
    pub(super) fn keep(&mut self, stream: Stream, key: &K, value: Bytes) -> (Bytes, u32) {
        match self.packs(value.len()) {
            true => self.pack(stream, key, &value),
            false => (value, UNPACKED),
        }
    }

    /// Copies `data` (`key`'s value, which `packs`) into `stream`'s open
    /// segment, opening a new one when it does not fit; the copy and its
    /// segment's id.
    pub(super) fn pack(&mut self, stream: Stream, key: &K, data: &[u8]) -> (Bytes, u32) {
        let open = &mut self.open[stream as usize];
        if open.as_ref().is_none_or(|o| o.rest.capacity() < data.len()) {
            // The full segment's live records keep it charged (and alive).
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1);
            if self.segments.is_empty() {
                self.base = id;
            }
            self.segments.push_back(Segment {
                records: 0,
                written: 0,
                live_bytes: 0,
                keys: Vec::new(),
            });
            self.resident += self.size + SEGMENT_OVERHEAD;
            *open = Some(Open {
                rest: BytesMut::with_capacity(self.size),
                id,
            });
        }
        let Some(open) = open.as_mut() else {
            unreachable!("opened above");
        };
        // Within capacity: no reallocation, the slice shares the segment.
        open.rest.extend_from_slice(data);
        let value = open.rest.split().freeze();
        let id = open.id;
        let index = self.index(id);
        let segment = &mut self.segments[index];
        let len = data.len() as u32; // at most a segment
        (segment.records, segment.written) = (segment.records + 1, segment.written + len);
        segment.live_bytes += len;
        let slots = segment.keys.capacity();
        segment.keys.push(key.clone());
        self.key_slots += segment.keys.capacity() - slots;
        self.held += data.len();
        (value, id)
    }

    /// A record of `len` bytes in segment `id` left the shard (its value
    /// was dropped or replaced by a copy). A segment left without records
    /// is uncharged, and dropped if it is open.
    pub(super) fn release(&mut self, id: u32, len: usize) {
        if id == UNPACKED {
            return;
        }
        let index = self.index(id);
        let segment = &mut self.segments[index];
        segment.records -= 1;
        segment.live_bytes -= len as u32;
        self.held -= len;
        if segment.records > 0 {
            self.holes += len;
            return;
        }
        // Its earlier holes go with it.
        self.holes -= segment.written as usize - len;
        self.key_slots -= std::mem::take(&mut segment.keys).capacity();
        self.resident -= self.size + SEGMENT_OVERHEAD;
        for open in &mut self.open {
            if open.as_ref().is_some_and(|o| o.id == id) {
                *open = None;
            }
        }
        while self.segments.front().is_some_and(|s| s.records == 0) {
            self.segments.pop_front();
            self.base = self.base.wrapping_add(1);
        }
        let (len, capacity) = (self.segments.len(), self.segments.capacity());
        if len == 0 {
            // No segment left: the bookkeeping goes back too.
            self.segments = VecDeque::new();
        } else if len * 4 < capacity && capacity > 64 {
            self.segments.shrink_to(len * 2);
        }
    }

    /// Bytes of records that left segments still charged.
    pub(super) fn holes(&self) -> usize {
        self.holes
    }

    /// The closed segment with the most hole bytes, and the keys written
    /// into it (taken: the caller moves its live records out, which frees
    /// it). `None` if no closed segment has a hole.
    pub(super) fn take_sparsest(&mut self) -> Option<(u32, Vec<K>)> {
        let open = self.open.each_ref().map(|o| o.as_ref().map(|o| o.id));
        let (index, _) = (0u32..)
            .zip(&self.segments)
            // A segment whose keys were taken is being emptied already.
            .filter(|(_, s)| s.records > 0 && !s.keys.is_empty())
            .filter(|(i, _)| !open.contains(&Some(self.base.wrapping_add(*i))))
            .map(|(i, s)| (i, s.written - s.live_bytes))
            .filter(|(_, holes)| *holes > 0)
            .max_by_key(|(_, holes)| *holes)?;
        let keys = std::mem::take(&mut self.segments[index as usize].keys);
        self.key_slots -= keys.capacity();
        Some((self.base.wrapping_add(index), keys))
    }

    /// Bytes of the segments in use and of their bookkeeping.
    pub(super) fn resident(&self) -> usize {
        self.resident
            + deque_bytes::<Segment<K>>(self.segments.capacity())
            + self.key_slots * size_of::<K>()
    }

    /// Bytes of the live records packed in the segments.
    pub(super) fn held(&self) -> usize {
        self.held
    }

    fn index(&self, id: u32) -> usize {
        id.wrapping_sub(self.base) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHARGE: usize = SEGMENT + SEGMENT_OVERHEAD;

    fn segments() -> Segments<u32> {
        Segments::for_budget(1 << 20)
    }

    #[test]
    fn small_shards_pack_nothing_and_large_values_are_not_packed() {
        assert!(!Segments::<u32>::for_budget(400 << 10).packs(1));
        let segments = segments();
        assert!(segments.packs(1) && segments.packs(100) && segments.packs(1030));
        assert!(!segments.packs(1000) && !segments.packs(1024) && !segments.packs(1536));
        assert!(!segments.packs(1400) && !segments.packs(1793));
        assert!(!segments.packs(0));
    }

    #[test]
    fn records_share_a_segment_and_it_is_uncharged_when_the_last_leaves() {
        let mut segments = segments();
        let (a, sa) = segments.pack(Stream::Small, &1, &[1; 1700]);
        let (b, sb) = segments.pack(Stream::Small, &2, &[2; 1700]);
        let (_, sc) = segments.pack(Stream::Main, &3, &[3; 1700]);
        assert_eq!((sa, a.len(), &b[..3]), (sb, 1700, &[2u8, 2, 2][..]));
        assert_ne!(sa, sc, "each stream has its own segment");
        assert_eq!((segments.resident, segments.held), (2 * CHARGE, 5100));
        // Eight records of 1,700 bytes fill the 14 KiB segment: the ninth
        // opens another.
        let packed: Vec<_> = (0..7)
            .map(|k| segments.pack(Stream::Small, &(10 + k), &[4; 1700]))
            .collect();
        assert_ne!(packed[6].1, sa);
        assert_eq!(segments.resident, 3 * CHARGE);
        for (_, id) in &packed[..6] {
            segments.release(*id, 1700);
        }
        segments.release(sa, 1700);
        assert_eq!(segments.resident, 3 * CHARGE, "b still holds the first");
        assert_eq!(segments.holes(), 7 * 1700);
        segments.release(sb, 1700);
        assert_eq!((segments.resident, segments.holes()), (2 * CHARGE, 0));
        assert_eq!(&a[..2], &[1, 1], "a slice outlives its segment's charge");
        segments.release(sc, 1700);
        segments.release(packed[6].1, 1700);
        assert_eq!((segments.resident, segments.held), (0, 0));
        assert_eq!((segments.holes, segments.key_slots), (0, 0));
        assert!(segments.segments.is_empty());
        assert!(segments.open.iter().all(Option::is_none));
    }

    #[test]
    fn a_segment_emptied_behind_an_older_one_is_uncharged_at_once() {
        let mut segments = segments();
        let (_, old) = segments.pack(Stream::Main, &0, &[0; 1700]);
        let ids: Vec<u32> = (1..17)
            .map(|k| segments.pack(Stream::Small, &k, &[0; 1700]).1)
            .collect();
        assert_eq!(segments.resident, 3 * CHARGE);
        ids[..8].iter().for_each(|&id| segments.release(id, 1700));
        assert_eq!(segments.resident, 2 * CHARGE);
        assert_eq!(segments.segments.len(), 3, "kept behind the main segment");
        segments.release(old, 1700);
        assert_eq!(segments.segments.len(), 1);
        assert_eq!(segments.index(ids[15]), 0);
    }

    #[test]
    fn the_sparsest_closed_segment_is_offered_with_its_keys() {
        let mut segments = segments();
        let first: Vec<u32> = (0..8)
            .map(|k| segments.pack(Stream::Small, &k, &[0; 1700]).1)
            .collect();
        let second: Vec<u32> = (8..16)
            .map(|k| segments.pack(Stream::Small, &k, &[0; 1700]).1)
            .collect();
        // The second segment is open: its holes are not offered.
        segments.release(second[0], 1700);
        assert_eq!(segments.take_sparsest(), None);
        segments.release(first[0], 1700);
        segments.release(first[1], 1700);
        assert_eq!(segments.holes(), 3 * 1700);
        let (id, keys) = segments.take_sparsest().unwrap();
        assert_eq!((id, keys), (first[0], (0..8).collect()));
    }
}
