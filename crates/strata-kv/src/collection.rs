//! The packed encoding of a collection's value (Redis hashes, lists, sets
//! and sorted sets), kept in one record like a string, as Redis's listpack:
//!
//! ```text
//! count | (len | bytes){count}
//! ```
//! varints for `count` and each `len`. A hash is its fields and values
//! alternating, a list its elements in order, a set its members, a sorted
//! set its members and scores alternating (the score as 8 little-endian
//! bytes of an `f64`), in (score, member) order. Decoding borrows from the
//! record: nothing is copied until the new value is encoded.
//!
//! Why one record: every placement (DRAM, persistent memory, the SSD tier),
//! the command log, checkpoints, eviction (a collection goes as one item)
//! and `used_memory` then hold collections as they hold strings.

use std::ops::Range;

use crate::arena::get_varint;

/// Most elements a packed value may claim; a larger count is damage (it
/// could not fit in a record anyway), so decoding never allocates for it.
const MAX_COUNT: u64 = 1 << 28;

pub(crate) fn push_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

pub(crate) fn varint_len(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// The elements of a packed value, borrowed from it; `None` if the bytes
/// are not a packed value (damage, or a string under a collection's kind).
pub fn decode(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let (elements, rest) = decode_front(bytes)?;
    rest.is_empty().then_some(elements)
}

/// The elements of a packed value that may end in zero padding (a packed
/// list's value, stored padded to a steady length where records are
/// rewritten in place: see `strata-resp`'s `list/either.rs`), as
/// [`decode`] gives them.
pub fn decode_padded(bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let (elements, rest) = decode_front(bytes)?;
    rest.iter().all(|&b| b == 0).then_some(elements)
}

/// The elements at the front of `bytes` and the bytes after them.
fn decode_front(bytes: &[u8]) -> Option<(Vec<&[u8]>, &[u8])> {
    let mut walk = Walk::new(bytes).ok()?;
    let mut out = Vec::with_capacity(walk.left());
    while let Some(element) = walk.next_element().ok()? {
        out.push(element);
    }
    Some((out, walk.rest()))
}

/// Bytes that are not a packed value (damage, or a string under a
/// collection's kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotPacked;

/// A walk over a packed value's elements where they lie, allocating
/// nothing: for readers that stop early or build their own shape.
pub struct Walk<'b> {
    bytes: &'b [u8],
    pos: usize,
    left: u64,
}

impl<'b> Walk<'b> {
    /// Starts after the count; refuses bytes without one, or whose count
    /// claims more elements than the bytes could hold (so that a caller
    /// sizing a buffer by [`left`](Self::left) never allocates for damage).
    pub fn new(bytes: &'b [u8]) -> Result<Self, NotPacked> {
        let mut pos = 0;
        let left = get_varint(bytes, &mut pos).ok_or(NotPacked)?;
        if left > MAX_COUNT || left > bytes.len() as u64 {
            return Err(NotPacked);
        }
        Ok(Self { bytes, pos, left })
    }

    /// Elements not walked yet.
    pub fn left(&self) -> usize {
        self.left as usize
    }

    /// Where the next element lies in the bytes; `Ok(None)` past the last.
    pub fn next_range(&mut self) -> Result<Option<Range<usize>>, NotPacked> {
        if self.left == 0 {
            return Ok(None);
        }
        let len = get_varint(self.bytes, &mut self.pos).ok_or(NotPacked)?;
        let len = usize::try_from(len).map_err(|_| NotPacked)?;
        let start = self.pos;
        self.pos = (start.checked_add(len))
            .filter(|&end| end <= self.bytes.len())
            .ok_or(NotPacked)?;
        self.left -= 1;
        Ok(Some(start..self.pos))
    }

    /// The next element, borrowed; `Ok(None)` past the last.
    pub fn next_element(&mut self) -> Result<Option<&'b [u8]>, NotPacked> {
        let bytes = self.bytes;
        Ok(self.next_range()?.map(|at| &bytes[at]))
    }

    /// The bytes after the elements walked (padding, once all are).
    pub fn rest(&self) -> &'b [u8] {
        &self.bytes[self.pos..]
    }
}

/// Where the value paired with `field` lies in a packed value of pairs
/// (a hash's fields and values alternating, a sorted set's members and
/// scores): `Ok(None)` when no field is `field`. Stops at the first match,
/// so bytes after it are not checked; trailing padding is never reached.
pub fn pair_value(bytes: &[u8], field: &[u8]) -> Result<Option<Range<usize>>, NotPacked> {
    let mut walk = Walk::new(bytes)?;
    if walk.left() % 2 != 0 {
        return Err(NotPacked);
    }
    while let Some(name) = walk.next_range()? {
        let value = walk.next_range()?.ok_or(NotPacked)?;
        if bytes[name] == *field {
            return Ok(Some(value));
        }
    }
    Ok(None)
}

/// The number of elements of a packed value without decoding the rest.
pub fn count(bytes: &[u8]) -> Option<usize> {
    let mut pos = 0;
    get_varint(bytes, &mut pos).and_then(|n| usize::try_from(n).ok())
}

/// Bytes [`encode`] writes for `elements`.
pub fn encoded_len<'e>(elements: impl IntoIterator<Item = &'e [u8]>) -> usize {
    let (mut n, mut len) = (0u64, 0usize);
    for e in elements {
        n += 1;
        len += varint_len(e.len() as u64) + e.len();
    }
    varint_len(n) + len
}

/// The packed value holding `elements` in order.
pub fn encode<'e, I>(elements: I) -> Vec<u8>
where
    I: IntoIterator<Item = &'e [u8]>,
    I::IntoIter: Clone,
{
    let iter = elements.into_iter();
    let mut buf = Vec::with_capacity(encoded_len(iter.clone()));
    push_varint(&mut buf, iter.clone().count() as u64);
    for e in iter {
        push_varint(&mut buf, e.len() as u64);
        buf.extend_from_slice(e);
    }
    buf
}

/// A sorted set's score as stored.
pub fn score_bytes(score: f64) -> [u8; 8] {
    score.to_le_bytes()
}

/// A stored score; `None` if the element is not 8 bytes.
pub fn score_of(bytes: &[u8]) -> Option<f64> {
    Some(f64::from_le_bytes(bytes.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let elements: Vec<&[u8]> = vec![b"", b"a", &[7u8; 300], b"field"];
        let bytes = encode(elements.iter().copied());
        assert_eq!(bytes.len(), encoded_len(elements.iter().copied()));
        assert_eq!(decode(&bytes), Some(elements));
        assert_eq!(count(&bytes), Some(4));
        assert_eq!(decode(&encode(std::iter::empty())), Some(vec![]));
    }

    #[test]
    fn damage_is_refused() {
        let bytes = encode([&b"abc"[..], b"de"]);
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_none(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_none());
        // A huge count never allocates.
        assert!(decode(&[0xff, 0xff, 0xff, 0xff, 0x0f]).is_none());
    }

    #[test]
    fn pair_values_are_found_in_place() {
        let pairs: Vec<&[u8]> = vec![b"f1", b"one", b"", &[9u8; 200], b"f3", b""];
        let bytes = encode(pairs.iter().copied());
        for (i, pair) in pairs.chunks_exact(2).enumerate() {
            let range = pair_value(&bytes, pair[0]).unwrap().unwrap();
            assert_eq!(&bytes[range], pair[1], "pair {i}");
        }
        assert_eq!(pair_value(&bytes, b"f4"), Ok(None));
        // An odd count is no hash; a cut value is damage, never a panic.
        assert_eq!(pair_value(&encode([&b"f"[..]]), b"f"), Err(NotPacked));
        for cut in 0..bytes.len() {
            assert!(pair_value(&bytes[..cut], b"f4").is_err(), "cut at {cut}");
        }
        // Padding after the pairs is never reached.
        let mut padded = bytes.clone();
        padded.extend_from_slice(&[0; 7]);
        assert_eq!(pair_value(&padded, b"f4"), Ok(None));
        let mut walk = Walk::new(&padded).unwrap();
        assert_eq!(walk.left(), 6);
        assert_eq!(walk.next_element(), Ok(Some(&b"f1"[..])));
        while walk.next_element().unwrap().is_some() {}
        assert_eq!((walk.left(), walk.rest()), (0, &[0u8; 7][..]));
    }
}
