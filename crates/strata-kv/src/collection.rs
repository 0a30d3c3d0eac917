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
    let mut pos = 0;
    let count = get_varint(bytes, &mut pos)?;
    if count > MAX_COUNT || count > bytes.len() as u64 {
        return None;
    }
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let len = usize::try_from(get_varint(bytes, &mut pos)?).ok()?;
        let end = pos.checked_add(len)?;
        out.push(bytes.get(pos..end)?);
        pos = end;
    }
    Some((out, &bytes[pos..]))
}

/// Bytes that are not a packed value (damage, or a string under a
/// collection's kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotPacked;

/// Where the value paired with `field` lies in a packed value of pairs
/// (a hash's fields and values alternating): `Ok(None)` when no field is
/// `field`. Walks the pairs in place, allocating nothing, and stops at the
/// first match, so bytes after it are not checked; trailing padding is
/// never reached (the walk stops at the count).
pub fn pair_value(bytes: &[u8], field: &[u8]) -> Result<Option<Range<usize>>, NotPacked> {
    let mut pos = 0;
    let count = get_varint(bytes, &mut pos).ok_or(NotPacked)?;
    if count % 2 != 0 || count > bytes.len() as u64 {
        return Err(NotPacked);
    }
    let mut element = || -> Result<Range<usize>, NotPacked> {
        let len = get_varint(bytes, &mut pos).ok_or(NotPacked)?;
        let len = usize::try_from(len).map_err(|_| NotPacked)?;
        let start = pos;
        pos = pos
            .checked_add(len)
            .filter(|&end| end <= bytes.len())
            .ok_or(NotPacked)?;
        Ok(start..pos)
    };
    for _ in 0..count / 2 {
        let name = element()?;
        let value = element()?;
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
    }
}
