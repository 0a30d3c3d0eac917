//! The head value of a hashed large collection (a hash or a set):
//!
//! ```text
//! 0x00 | 0xC5 | seed: u64 LE | level: u8 | split | count | bytes
//! ```
//! varints for the last three. It starts like no packed value can (a
//! packed value whose count is 0 is exactly one byte), so a reader of the
//! packed encoding that meets a head knows it is one ([`is_head`]).
//! `seed` keys the element hash (chosen at random per collection, so
//! nobody can aim many fields at one chunk); `level` and `split` are the
//! linear-hashing state (buckets = 2^level + split); `count` counts
//! elements, `bytes` their packed size (what the split policy watches).
//! About 25 bytes whatever the size of the collection.

use crate::arena::get_varint;

const MAGIC: [u8; 2] = [0x00, 0xC5];

/// Linear-hashing state and sizes of one collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Meta {
    pub seed: u64,
    pub level: u8,
    pub split: u32,
    pub count: u64,
    pub bytes: u64,
}

/// Whether `value` (a collection's stored value) is a large head's.
pub fn is_head(value: &[u8]) -> bool {
    value.starts_with(&MAGIC)
}

pub(crate) fn push_varint(buf: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

impl Meta {
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            level: 0,
            split: 0,
            count: 0,
            bytes: 0,
        }
    }

    /// Buckets (= chunks) in use.
    pub fn buckets(&self) -> u32 {
        (1u32 << self.level) + self.split
    }

    /// The bucket of an element whose hash is `h`.
    pub fn bucket(&self, h: u64) -> u32 {
        let low = (h & ((1u64 << self.level) - 1)) as u32;
        match low < self.split {
            true => (h & ((1u64 << (self.level + 1)) - 1)) as u32,
            false => low,
        }
    }

    /// Advances past one split of bucket `self.split`.
    pub fn advance_split(&mut self) {
        self.split += 1;
        if self.split == 1 << self.level {
            self.level += 1;
            self.split = 0;
        }
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(32);
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&self.seed.to_le_bytes());
        buf.push(self.level);
        push_varint(&mut buf, u64::from(self.split));
        push_varint(&mut buf, self.count);
        push_varint(&mut buf, self.bytes);
        buf
    }

    /// `None` if `value` is not a head this build reads.
    pub fn decode(value: &[u8]) -> Option<Self> {
        let (meta, used) = Self::decode_prefix(value)?;
        (used == value.len()).then_some(meta)
    }

    /// The state at the start of `value` and the bytes it took (a sorted
    /// set's head keeps more after it).
    pub fn decode_prefix(value: &[u8]) -> Option<(Self, usize)> {
        let rest = value.strip_prefix(&MAGIC)?;
        let seed = u64::from_le_bytes(rest.get(..8)?.try_into().ok()?);
        let level = *rest.get(8)?;
        let mut pos = 9;
        let split = u32::try_from(get_varint(rest, &mut pos)?).ok()?;
        let count = get_varint(rest, &mut pos)?;
        let bytes = get_varint(rest, &mut pos)?;
        // Buckets must be numbered in 32 bits.
        let sane = level < 31 && split < 1u32 << level;
        let meta = Self {
            seed,
            level,
            split,
            count,
            bytes,
        };
        sane.then_some((meta, MAGIC.len() + pos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_addressing() {
        let mut meta = Meta::new(42);
        meta.count = 1_000_000;
        meta.bytes = 30_000_000;
        for _ in 0..4 {
            meta.advance_split();
        }
        assert_eq!((meta.level, meta.split, meta.buckets()), (2, 1, 5));
        let bytes = meta.encode();
        assert!(is_head(&bytes) && bytes.len() < 32);
        assert_eq!(Meta::decode(&bytes), Some(meta));
        assert!(crate::collection::decode(&bytes).is_none());
        for h in 0..64u64 {
            assert!(meta.bucket(h) < meta.buckets());
        }
        assert_eq!(meta.bucket(0b100), 4); // bucket 0 was split
        assert_eq!(meta.bucket(0b101), 1); // bucket 1 was not
        assert!(Meta::decode(&bytes[..bytes.len() - 1]).is_none());
    }
}
