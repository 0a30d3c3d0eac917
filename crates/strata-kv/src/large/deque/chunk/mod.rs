//! [`Chunk`]: one chunk of a large list, or a whole packed list, while a
//! command holds it (both are the same packed run: `count | (len |
//! bytes){count}`, [`crate::collection`]).
//!
//! A chunk stays in its stored form (the packed elements, `len | bytes`
//! each, without the leading count) for what queues do all day: a push or
//! a pop at either end edits those bytes and the new value is that buffer
//! again ([`Chunk::value`] writes the count in front of the elements), so
//! a push or pop allocates one element, not one per element of a 2 KiB
//! chunk. Edits inside the chunk (set, insert, remove) and scans from the
//! back decode it once into a deque of elements, which it stays for the
//! rest of the command.
//!
//! Where records are rewritten in place, a push or pop that keeps the end
//! chunk non-empty and within its room edits it where it is stored
//! instead (`stored`), without loading it.
//!
//! Stored chunks of a large list may end in zero padding ([`PADDED_LEN`]),
//! which reading drops ([`Chunk::from_stored`]); so may a packed list's
//! value where records are rewritten in place (`strata-resp`'s
//! `list/either.rs` pads it to a steady length).
//!
//! Invariant: `bytes` is the packed size of the elements (as
//! [`packed`] counts each); in the packed form it is
//! `data.len() - start`.

mod layout;
pub mod stored;

use std::collections::VecDeque;

use crate::arena::put_varint;
use crate::collection::{push_varint, varint_len};

use layout::next_element;
pub use layout::Side;
pub(super) use layout::{packed, PADDED_LEN};

/// One chunk's elements (or a packed list's), and whether they changed.
#[derive(Default)]
pub struct Chunk {
    /// The stored form: from `start` on, `count` packed elements; bytes
    /// before `start` are popped ones (or room for a front push). Unused
    /// (and empty) once `decoded` is set.
    data: Vec<u8>,
    start: usize,
    count: usize,
    /// The elements, once an edit inside the chunk decoded them.
    decoded: Option<VecDeque<Vec<u8>>>,
    /// Packed bytes of the elements.
    pub(super) bytes: u64,
    /// Changed since it was read (written at `finish`).
    pub(super) dirty: bool,
}

impl Chunk {
    /// A chunk as stored (a packed collection value, possibly followed by
    /// zero padding: [`PADDED_LEN`]); `None` if the bytes are not one.
    pub fn from_stored(value: Vec<u8>) -> Option<Self> {
        Self::parse(value, true)
    }

    /// A packed value without padding; `None` if the bytes are not one.
    pub fn from_packed(value: Vec<u8>) -> Option<Self> {
        Self::parse(value, false)
    }

    fn parse(mut value: Vec<u8>, padded: bool) -> Option<Self> {
        let stored::Shape { count, start, end } = stored::shape(&value)?;
        // One OR over the padding (vectorized), not a byte-by-byte search:
        // a push or pop that cannot edit its end chunk where it is stored
        // reads it.
        let rest = &value[end..];
        if !rest.is_empty() && (!padded || rest.iter().fold(0u8, |acc, &b| acc | b) != 0) {
            return None;
        }
        value.truncate(end);
        Some(Self {
            bytes: (end - start) as u64,
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

    /// Changed since it was read.
    pub fn is_dirty(&self) -> bool {
        self.dirty
    }

    /// Bytes of [`value`](Self::value): the count and the packed elements.
    pub fn value_len(&self) -> u64 {
        varint_len(self.len() as u64) as u64 + self.bytes
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
    pub(super) fn elements_mut(&mut self) -> &mut VecDeque<Vec<u8>> {
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

    /// Replaces element `at`; false past the end.
    pub fn set(&mut self, at: usize, element: &[u8]) -> bool {
        let Some(slot) = self.elements_mut().get_mut(at) else {
            return false;
        };
        let old = packed(slot);
        *slot = element.to_vec();
        self.bytes = self.bytes - old + packed(element);
        self.dirty = true;
        true
    }

    /// Inserts `element` at `at` (at most the length).
    pub fn insert(&mut self, at: usize, element: &[u8]) {
        let elements = self.elements_mut();
        elements.insert(at.min(elements.len()), element.to_vec());
        self.bytes += packed(element);
        self.dirty = true;
    }

    /// Removes up to `limit` elements equal to `element`, looking from
    /// `side`; how many went.
    pub fn remove_equal(&mut self, side: Side, limit: u64, element: &[u8]) -> u64 {
        let hits: Vec<usize> = (self.iter().enumerate())
            .filter(|(_, e)| *e == element)
            .map(|(i, _)| i)
            .collect();
        let take = usize::try_from(limit).unwrap_or(usize::MAX).min(hits.len());
        if take == 0 {
            return 0;
        }
        let chosen = match side {
            Side::Front => &hits[..take],
            Side::Back => &hits[hits.len() - take..],
        };
        let mut gone = vec![false; self.len()];
        for &i in chosen {
            gone[i] = true;
        }
        let mut flags = gone.into_iter();
        self.elements_mut()
            .retain(|_| !flags.next().unwrap_or(false));
        self.bytes -= packed(element) * take as u64;
        self.dirty = true;
        take as u64
    }

    /// Removes `n` elements at `side` (all when `n` reaches the length).
    pub fn drop_n(&mut self, side: Side, n: usize) {
        let elements = self.elements_mut();
        let n = n.min(elements.len());
        let range = match side {
            Side::Front => 0..n,
            Side::Back => elements.len() - n..elements.len(),
        };
        let gone: u64 = elements.drain(range).map(|e| packed(&e)).sum();
        self.bytes -= gone;
        self.dirty |= n > 0;
    }

    /// The chunk's stored value (a packed collection value), built in the
    /// chunk's own buffer: the count goes in front of the elements (room
    /// a pop left there, or made once), and a decoded chunk goes back to
    /// the packed form.
    pub fn value(&mut self) -> &[u8] {
        if let Some(elements) = self.decoded.take() {
            self.count = elements.len();
            self.start = varint_len(self.count as u64);
            let mut data = Vec::with_capacity(self.start + self.bytes as usize);
            data.resize(self.start, 0);
            for e in &elements {
                push_varint(&mut data, e.len() as u64);
                data.extend_from_slice(e);
            }
            self.data = data;
        }
        let n = varint_len(self.count as u64);
        if self.start < n {
            let mut grown = Vec::with_capacity(n + self.data.len() - self.start);
            grown.resize(n, 0);
            grown.extend_from_slice(&self.data[self.start..]);
            (self.data, self.start) = (grown, n);
        }
        let mut at = self.start - n;
        put_varint(&mut self.data, &mut at, self.count as u64);
        &self.data[self.start - n..]
    }
}

#[cfg(test)]
mod tests;
