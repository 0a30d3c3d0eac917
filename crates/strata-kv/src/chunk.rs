//! The engine's internal namespace: chunk records of large collections.
//!
//! A large collection (see docs/design/kv.md, *Collections*) is a head
//! record under the user's key plus chunk records numbered `0..chunks`.
//! Both kinds are told apart by bits of the stored flags word (which every
//! placement, the log's PUT, snapshots and SSD entries already carry):
//!
//! ```text
//! 63..42 first | 41 LARGE head | 40 CHUNK | 39..32 kind | 31..0 client flags
//! ```
//! A head's low 32 bits are its chunk count (Redis collections carry no
//! client flags) and bits 42..63 the number of its first chunk: its chunks
//! are the [`Ring`] `first, first + 1, ..` modulo [`RING`] (hashes and sets
//! keep `first` 0, so theirs are `0..count`; a list moves `first` to push
//! at its front without renumbering). Deleting, expiring, evicting, renaming
//! or copying a head therefore never reads its value. A chunk's key is its owner's key followed by the chunk number
//! (4 bytes, big-endian); lookups compare (namespace, key), so a user key
//! with the same bytes is a different item. A chunk's hash takes its low 16
//! bits (the shard choice; the index uses bits 16..63) from its owner's
//! hash: a collection lives in one shard, under one lock.

/// Flags-word bit of a chunk record (never visible to users).
pub const CHUNK: u64 = 1 << 40;
/// Flags-word bit of a large collection's head; the low 32 bits count its
/// chunks.
pub const LARGE: u64 = 1 << 41;
/// Chunk numbers of one head wrap modulo this: the 22 flag bits above
/// LARGE hold a head's first chunk, so a collection has fewer chunks.
pub const RING: u32 = 1 << 22;
/// Lowest flags-word bit of a head's first chunk number.
const FIRST_SHIFT: u32 = 42;
/// Every bit of the flags word this build understands above the kind.
pub(crate) const KNOWN_BITS: u64 = CHUNK | LARGE | (RING as u64 - 1) << FIRST_SHIFT;
/// Hash bits taken from the owner's hash (covers every shard count).
const SHARD_BITS: u64 = 0xffff;
/// Bytes of the chunk number at the end of a chunk's key.
const NUMBER_LEN: usize = 4;

/// Which of the two key namespaces an index entry belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Namespace {
    /// Keys users name (every command's keys).
    User,
    /// Chunks of large collections, reached only through their head.
    Chunk,
}

impl Namespace {
    /// The namespace of a record with this stored flags word.
    pub fn of(stored_flags: u64) -> Self {
        match stored_flags & CHUNK {
            0 => Self::User,
            _ => Self::Chunk,
        }
    }
}

/// The chunk count of a head with this stored flags word; `None` if it is
/// not the head of a large collection.
pub fn chunks_of(stored_flags: u64) -> Option<u32> {
    (stored_flags & LARGE != 0).then_some(stored_flags as u32)
}

/// The chunks of a head with this stored flags word; `None` if it is not
/// the head of a large collection.
pub fn ring_of(stored_flags: u64) -> Option<Ring> {
    let first = (stored_flags >> FIRST_SHIFT) as u32 & (RING - 1);
    chunks_of(stored_flags).map(|count| Ring { first, count })
}

/// A head's chunk numbers: `count` of them from `first`, modulo [`RING`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ring {
    /// The number of the first chunk (below [`RING`]).
    pub first: u32,
    /// How many chunks (at most [`RING`]).
    pub count: u32,
}

impl Ring {
    /// Chunks `0..count` (hashes, sets).
    pub fn dense(count: u32) -> Self {
        Self { first: 0, count }
    }

    /// The number of the chunk at position `i` (from the first).
    pub fn number(self, i: u32) -> u32 {
        ((u64::from(self.first) + u64::from(i)) % u64::from(RING)) as u32
    }

    /// Every chunk number, first to last.
    pub fn numbers(self) -> impl Iterator<Item = u32> {
        (0..self.count).map(move |i| self.number(i))
    }

    /// Whether chunk `number` is one of these.
    pub fn holds(self, number: u32) -> bool {
        number < RING && self.offset(number) < self.count
    }

    /// Position of `number` counted from `first` around the ring.
    fn offset(self, number: u32) -> u32 {
        (number.wrapping_sub(self.first)) & (RING - 1)
    }

    /// The numbers of these chunks that `newer` does not hold (all of them
    /// when `None`): what replacing this head with `newer` drops. Costs the
    /// dropped chunks, not the collection.
    pub fn without(self, newer: Option<Ring>) -> impl Iterator<Item = u32> {
        let had = self.count;
        let (a, b) = match newer.filter(|n| n.count > 0) {
            None => ((0, had), (0, 0)),
            Some(n) => {
                let d = self.offset(n.first);
                let end = u64::from(d) + u64::from(n.count);
                if end <= u64::from(RING) {
                    let end = end as u32;
                    ((0, d.min(had)), (end.min(had), had))
                } else {
                    let wrapped = (end - u64::from(RING)) as u32;
                    ((wrapped.min(had), d.min(had)), (0, 0))
                }
            }
        };
        (a.0..a.1.max(a.0))
            .chain(b.0..b.1.max(b.0))
            .map(move |i| self.number(i))
    }

    /// The stored flags word of a head of `kind` with these chunks.
    pub(crate) fn head_flags(self, kind_bits: u64) -> u64 {
        kind_bits | LARGE | u64::from(self.first) << FIRST_SHIFT | u64::from(self.count)
    }
}

/// The key of chunk `number` of the collection at `owner`.
pub fn chunk_key(owner: &[u8], number: u32) -> Vec<u8> {
    let mut key = Vec::with_capacity(owner.len() + NUMBER_LEN);
    key.extend_from_slice(owner);
    key.extend_from_slice(&number.to_be_bytes());
    key
}

/// The owner's key and the number of a chunk's key; `None` if too short.
pub fn split_chunk_key(key: &[u8]) -> Option<(&[u8], u32)> {
    let cut = key.len().checked_sub(NUMBER_LEN)?;
    let (owner, number) = key.split_at(cut);
    Some((owner, u32::from_be_bytes(number.try_into().ok()?)))
}

/// The hash of `key` in `ns` under the keyspace's `seed`.
pub fn hash_in(seed: u64, ns: Namespace, key: &[u8]) -> u64 {
    let own = xxhash_rust::xxh3::xxh3_64_with_seed(key, seed);
    match (ns, split_chunk_key(key)) {
        (Namespace::Chunk, Some((owner, _))) => {
            let owner_hash = xxhash_rust::xxh3::xxh3_64_with_seed(owner, seed);
            (own & !SHARD_BITS) | (owner_hash & SHARD_BITS)
        }
        _ => own,
    }
}

/// The hash of a record's key, its namespace read from its flags word.
pub fn record_hash(seed: u64, key: &[u8], stored_flags: u64) -> u64 {
    hash_in(seed, Namespace::of(stored_flags), key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_share_their_owners_shard_bits() {
        for owner in [&b""[..], b"h", b"a longer key with bytes \xff\x00"] {
            let owner_hash = hash_in(7, Namespace::User, owner);
            for n in [0, 1, 65_535, u32::MAX] {
                let key = chunk_key(owner, n);
                assert_eq!(split_chunk_key(&key), Some((owner, n)));
                let h = hash_in(7, Namespace::Chunk, &key);
                assert_eq!(h & SHARD_BITS, owner_hash & SHARD_BITS);
                assert_eq!(record_hash(7, &key, CHUNK), h);
            }
        }
        assert_eq!(split_chunk_key(b"abc"), None);
    }

    #[test]
    fn flags_bits() {
        assert_eq!(Namespace::of(CHUNK | 1 << 32), Namespace::Chunk);
        assert_eq!(Namespace::of(LARGE | 9), Namespace::User);
        assert_eq!(chunks_of(LARGE | 1 << 32 | 9), Some(9));
        assert_eq!(chunks_of(1 << 32 | 9), None);
        let ring = Ring {
            first: RING - 2,
            count: 5,
        };
        let flags = ring.head_flags(3 << 32);
        assert_eq!(ring_of(flags), Some(ring));
        assert_eq!(flags & KNOWN_BITS, flags & !(0xff << 32 | 0xffff_ffff));
        let numbers: Vec<u32> = ring.numbers().collect();
        assert_eq!(numbers, [RING - 2, RING - 1, 0, 1, 2]);
    }

    #[test]
    fn without_drops_exactly_what_the_newer_ring_misses() {
        let firsts = [0, 1, 3, RING - 3, RING - 1];
        for old_first in firsts {
            for new_first in firsts {
                for had in 0..6 {
                    for has in 0..6 {
                        let old = Ring {
                            first: old_first,
                            count: had,
                        };
                        let new = Ring {
                            first: new_first,
                            count: has,
                        };
                        let mut got: Vec<u32> = old.without(Some(new)).collect();
                        let mut want: Vec<u32> = old.numbers().filter(|&n| !new.holds(n)).collect();
                        got.sort_unstable();
                        want.sort_unstable();
                        assert_eq!(got, want, "{old:?} -> {new:?}");
                        assert_eq!(old.without(None).count(), had as usize);
                    }
                }
            }
        }
    }
}
