//! [`Chunk`]: one chunk of a large list while a command holds it.
//!
//! A chunk stays in its stored form (the packed elements, `len | bytes`
//! each, without the leading count) for what queues do all day: a push or
//! a pop at either end edits those bytes and the new value is that buffer
//! again, so a push or pop allocates one element, not one per element of
//! a 2 KiB chunk. Edits inside the chunk (set, insert, remove) and scans
//! from the back decode it once into a deque of elements, which it stays
//! for the rest of the command.
//!
//! Stored chunks may end in zero padding ([`PADDED_LEN`]), which reading
//! drops.
//!
//! Invariant: `bytes` is the packed size of the elements (as
//! [`packed`] counts each); in the packed form it is
//! `data.len() - start`.

use std::collections::VecDeque;

use crate::arena::{get_varint, put_varint};
use crate::collection::{self, push_varint, varint_len};
use crate::large::hashed::TARGET_CHUNK;

/// Which end of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The head (LEFT, index 0).
    Front,
    /// The tail (RIGHT).
    Back,
}

/// The length a chunk is stored padded to where records are rewritten in
/// place (DRAM): the most a chunk under [`TARGET_CHUNK`] takes (its packed
/// elements and a count of at most 2,048, two varint bytes). Every version
/// of an end chunk then has the same length, so a push or pop overwrites
/// its record instead of appending one (and leaving the old one as
/// garbage), as a quicklist node grows in its allocation. A chunk holding
/// one element longer than that is stored as is.
pub(super) const PADDED_LEN: usize = TARGET_CHUNK as usize + 2;

/// Packed bytes an element adds to a chunk.
pub(super) fn packed(e: &[u8]) -> u64 {
    collection::encoded_len([e]) as u64 - 1
}

/// One chunk's elements, and whether they changed.
#[derive(Default)]
pub(super) struct Chunk {
    /// The stored form: from `start` on, `count` packed elements; bytes
    /// before `start` are popped ones (or room for a front push). Unused
    /// (and empty) once `decoded` is set.
    data: Vec<u8>,
    start: usize,
    count: usize,
    /// The elements, once an edit inside the chunk decoded them.
    decoded: Option<VecDeque<Vec<u8>>>,
    /// Packed bytes of the elements.
    pub bytes: u64,
    /// Changed since it was read (written at `finish`).
    pub dirty: bool,
}

/// Reads one packed element at `pos`, moving `pos` past it.
fn next_element<'a>(data: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    let len = usize::try_from(get_varint(data, pos)?).ok()?;
    let end = pos.checked_add(len)?;
    let element = data.get(*pos..end)?;
    *pos = end;
    Some(element)
}

impl Chunk {
    /// A chunk as stored (a packed collection value, possibly followed by
    /// zero padding: [`PADDED_LEN`]); `None` if the bytes are not one.
    pub fn from_stored(mut value: Vec<u8>) -> Option<Self> {
        let mut pos = 0;
        let count = usize::try_from(get_varint(&value, &mut pos)?).ok()?;
        let start = pos;
        if count > value.len() {
            return None;
        }
        for _ in 0..count {
            next_element(&value, &mut pos)?;
        }
        // One OR over the padding (vectorized), not a byte-by-byte search:
        // every push and pop reads its end chunk.
        if value[pos..].iter().fold(0u8, |acc, &b| acc | b) != 0 {
            return None;
        }
        value.truncate(pos);
        Some(Self {
            bytes: (pos - start) as u64,
            data: value,
            start,
            count,
            decoded: None,
            dirty: false,
        })
    }

    /// Elements held.
    pub fn len(&self) -> usize {
        self.decoded.as_ref().map_or(self.count, VecDeque::len)
    }

    /// True when no element is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The packed elements in order (the stored form).
    fn packed_elements(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let mut pos = self.start;
        (0..self.count).map_while(move |_| next_element(&self.data, &mut pos))
    }

    /// Adds `element` at `side`.
    pub fn push(&mut self, side: Side, element: &[u8]) {
        self.bytes += packed(element);
        self.dirty = true;
        if let Some(elements) = &mut self.decoded {
            match side {
                Side::Front => elements.push_front(element.to_vec()),
                Side::Back => elements.push_back(element.to_vec()),
            }
            return;
        }
        self.count += 1;
        if side == Side::Back {
            push_varint(&mut self.data, element.len() as u64);
            self.data.extend_from_slice(element);
            return;
        }
        let size = varint_len(element.len() as u64) + element.len();
        if self.start < size {
            // Make room at the front (one copy of at most a chunk, as a
            // listpack's insert at its head), for this push and a few more.
            let room = size.max(self.data.len() / 4);
            let mut grown = Vec::with_capacity(room + self.data.len() - self.start);
            grown.resize(room, 0);
            grown.extend_from_slice(&self.data[self.start..]);
            (self.data, self.start) = (grown, room);
        }
        self.start -= size;
        let mut at = self.start;
        put_varint(&mut self.data, &mut at, element.len() as u64);
        self.data[at..self.start + size].copy_from_slice(element);
    }

    /// Removes the element at `side`; `None` when empty (or when a packed
    /// chunk's bytes do not parse, which `from_stored` rules out).
    pub fn pop(&mut self, side: Side) -> Option<Vec<u8>> {
        let element = match (&mut self.decoded, side) {
            (Some(elements), Side::Front) => elements.pop_front()?,
            (Some(elements), Side::Back) => elements.pop_back()?,
            (None, _) if self.count == 0 => return None,
            (None, Side::Front) => {
                let mut pos = self.start;
                let element = next_element(&self.data, &mut pos)?.to_vec();
                self.start = pos;
                self.count -= 1;
                element
            }
            (None, Side::Back) => {
                // Walk to the last element: a chunk holds a few dozen.
                let mut pos = self.start;
                for _ in 1..self.count {
                    next_element(&self.data, &mut pos)?;
                }
                let last = pos;
                let element = next_element(&self.data, &mut pos)?.to_vec();
                self.data.truncate(last);
                self.count -= 1;
                element
            }
        };
        self.bytes -= packed(&element);
        self.dirty = true;
        Some(element)
    }

    /// The elements, decoded (once) for an edit inside the chunk; the
    /// caller keeps `bytes` and `dirty` true to what it changes.
    pub fn elements_mut(&mut self) -> &mut VecDeque<Vec<u8>> {
        if self.decoded.is_none() {
            let elements = self.packed_elements().map(<[u8]>::to_vec).collect();
            self.decoded = Some(elements);
            self.data = Vec::new();
            (self.start, self.count) = (0, 0);
        }
        self.decoded.get_or_insert_with(VecDeque::new)
    }

    /// The elements from the front.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let decoded = self.decoded.iter().flatten().map(Vec::as_slice);
        self.packed_elements().chain(decoded)
    }

    /// Element `at` from the front.
    pub fn get(&self, at: usize) -> Option<&[u8]> {
        match &self.decoded {
            Some(elements) => elements.get(at).map(Vec::as_slice),
            None => self.packed_elements().nth(at),
        }
    }

    /// The chunk's stored value (a packed collection value).
    pub fn encode(&self) -> Vec<u8> {
        if let Some(elements) = &self.decoded {
            return collection::encode(elements.iter().map(Vec::as_slice));
        }
        let body = &self.data[self.start..];
        let mut value = Vec::with_capacity(varint_len(self.count as u64) + body.len());
        push_varint(&mut value, self.count as u64);
        value.extend_from_slice(body);
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pushes and pops at both ends, then edits inside, checked against a
    /// deque after every step: the stored value, the packed size, reads.
    #[test]
    fn a_chunk_matches_a_deque_model_in_both_forms() {
        let mut model: VecDeque<Vec<u8>> = VecDeque::new();
        let mut chunk = Chunk::from_stored(collection::encode(std::iter::empty())).unwrap();
        let mut state = 7u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        for step in 0..3000 {
            let side = if next() % 2 == 0 {
                Side::Front
            } else {
                Side::Back
            };
            if step == 2000 {
                // The rest of the run edits the decoded form.
                chunk.elements_mut();
            }
            if next() % 3 == 0 {
                let want = match side {
                    Side::Front => model.pop_front(),
                    Side::Back => model.pop_back(),
                };
                assert_eq!(chunk.pop(side), want, "step {step}");
            } else {
                // Lengths on both sides of a one-byte varint.
                let element = vec![step as u8; next() % 200];
                chunk.push(side, &element);
                match side {
                    Side::Front => model.push_front(element),
                    Side::Back => model.push_back(element),
                }
            }
            let stored = chunk.encode();
            assert_eq!(stored, collection::encode(model.iter().map(Vec::as_slice)));
            assert_eq!(
                chunk.bytes as usize,
                stored.len() - varint_len(model.len() as u64)
            );
            assert_eq!(chunk.len(), model.len());
            let at = next() % (model.len() + 1);
            assert_eq!(chunk.get(at), model.get(at).map(Vec::as_slice));
            assert!(chunk.iter().eq(model.iter().map(Vec::as_slice)));
            let reread = Chunk::from_stored(stored.clone()).unwrap();
            assert!(reread.iter().eq(model.iter().map(Vec::as_slice)));
        }
    }

    #[test]
    fn a_damaged_chunk_is_refused() {
        let stored = collection::encode([&b"abc"[..], b"de"]);
        for cut in 0..stored.len() {
            assert!(
                Chunk::from_stored(stored[..cut].to_vec()).is_none(),
                "cut at {cut}"
            );
        }
        let mut longer = stored.clone();
        longer.push(1);
        assert!(Chunk::from_stored(longer).is_none());
        let mut padded = stored.clone();
        padded.resize(PADDED_LEN, 0);
        let read = Chunk::from_stored(padded).unwrap();
        assert!(read.iter().eq([&b"abc"[..], b"de"]));
        assert_eq!(read.encode(), stored);
        padded = stored.clone();
        padded.extend([0, 0, 7, 0]);
        assert!(Chunk::from_stored(padded).is_none());
        assert!(Chunk::from_stored(vec![0xff, 0xff, 0xff, 0xff, 0x0f]).is_none());
    }
}
