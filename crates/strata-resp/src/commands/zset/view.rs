//! [`Ordered`]: what the sorted-set commands ask of a sorted set, in
//! either encoding: packed ([`Packed`], one record in (score, member)
//! order, Redis's listpack) or large ([`Sorted`], member buckets plus an
//! order tree of chunk records, Redis's skiplist). Every read is by rank,
//! so a large set answers a range reading one tree path and the leaves of
//! the range.

use std::borrow::Cow;
use std::cmp::Ordering;

use strata_kv::large::{compare, Sorted};
use strata_kv::{collection, ChunkSource, LargeEdit};

use crate::reply::{CollectionError, RespError};

/// A member and its score, copied out.
pub type Owned = (f64, Vec<u8>);

/// A packed set's member and score, borrowed from its record until changed.
pub type Entry<'v> = (f64, Cow<'v, [u8]>);

/// A sorted set being read.
pub trait Ordered {
    /// Members held.
    fn len(&self) -> u64;
    /// True when nothing is held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// A member's score.
    fn score(&mut self, member: &[u8]) -> Result<Option<f64>, RespError>;
    /// The rank (from the lowest) of `member` at `score`.
    fn rank(&mut self, score: f64, member: &[u8]) -> Result<Option<u64>, RespError>;
    /// Members before the first for which `before(score, member)` is
    /// false (it must hold for a prefix in order).
    fn count_before(&mut self, before: &dyn Fn(f64, &[u8]) -> bool) -> Result<u64, RespError>;
    /// Members of ranks `start..end` (clamped), in order.
    fn range(&mut self, start: u64, end: u64) -> Result<Vec<Owned>, RespError>;
    /// Every member in order, borrowed, when the set is packed (a reply
    /// is then written without copying them); `None` for a large set.
    fn packed(&self) -> Option<&[Entry<'_>]> {
        None
    }
}

/// A sorted set being changed.
pub trait OrderedMut: Ordered {
    /// Sets a member's score (adding it); returns the old one.
    fn put(&mut self, member: &[u8], score: f64) -> Result<Option<f64>, RespError>;
    /// Removes a member; returns its score if it was there.
    fn remove(&mut self, member: &[u8]) -> Result<Option<f64>, RespError>;
    /// Removes every member (a large set is then deleted whole, without
    /// reading its chunks); nothing but `len` is called after it.
    fn clear(&mut self);
}

/// A packed sorted set, decoded (members borrowed until changed).
pub struct Packed<'v> {
    /// Members and scores in order.
    pub entries: Vec<Entry<'v>>,
    /// Whether a change was made.
    pub dirty: bool,
}

impl<'v> Packed<'v> {
    /// Decodes a packed value (members and scores alternating).
    pub fn decode(value: &'v [u8]) -> Result<Self, RespError> {
        let damaged = |_| RespError::from(CollectionError::Damaged);
        let mut walk = collection::Walk::new(value).map_err(damaged)?;
        if walk.left() % 2 != 0 {
            return Err(CollectionError::Damaged.into());
        }
        let mut entries = Vec::with_capacity(walk.left() / 2);
        while let Some(member) = walk.next_element().map_err(damaged)? {
            let score = walk.next_element().map_err(damaged)?;
            let score = score.and_then(collection::score_of);
            let score = score.ok_or(CollectionError::Damaged)?;
            entries.push((score, Cow::Borrowed(member)));
        }
        if !walk.rest().is_empty() {
            return Err(CollectionError::Damaged.into());
        }
        Ok(Self {
            entries,
            dirty: false,
        })
    }

    fn position(&self, member: &[u8]) -> Option<usize> {
        self.entries.iter().position(|e| *e.1 == *member)
    }
}

/// The packed value of `entries` (in order). A score of -0 is stored as
/// 0, as Redis's listpack stores an integral score as an integer (a large
/// set keeps -0, as Redis's skiplist does).
pub fn encode_packed<M: AsRef<[u8]>>(entries: &[(f64, M)]) -> Vec<u8> {
    if entries.iter().any(|e| e.0 == 0.0 && e.0.is_sign_negative()) {
        let mut unsigned: Vec<(f64, &[u8])> = entries
            .iter()
            .map(|e| (if e.0 == 0.0 { 0.0 } else { e.0 }, e.1.as_ref()))
            .collect();
        unsigned.sort_by(|a, b| compare(*a, *b));
        return encode_packed(&unsigned);
    }
    let scores: Vec<[u8; 8]> = entries
        .iter()
        .map(|e| collection::score_bytes(e.0))
        .collect();
    let flat = entries
        .iter()
        .zip(&scores)
        .flat_map(|(e, s)| [e.1.as_ref(), &s[..]]);
    collection::encode(flat)
}

fn order(a: (f64, &[u8]), b: (f64, &[u8])) -> Ordering {
    compare(a, b)
}

impl Ordered for Packed<'_> {
    fn len(&self) -> u64 {
        self.entries.len() as u64
    }

    fn score(&mut self, member: &[u8]) -> Result<Option<f64>, RespError> {
        Ok(self.position(member).map(|at| self.entries[at].0))
    }

    fn rank(&mut self, score: f64, member: &[u8]) -> Result<Option<u64>, RespError> {
        let at = self
            .entries
            .binary_search_by(|e| order((e.0, &e.1), (score, member)));
        Ok(at.ok().map(|at| at as u64))
    }

    fn count_before(&mut self, before: &dyn Fn(f64, &[u8]) -> bool) -> Result<u64, RespError> {
        Ok(self.entries.partition_point(|e| before(e.0, &e.1)) as u64)
    }

    fn packed(&self) -> Option<&[Entry<'_>]> {
        Some(&self.entries)
    }

    fn range(&mut self, start: u64, end: u64) -> Result<Vec<Owned>, RespError> {
        let len = self.entries.len();
        let end = usize::try_from(end).unwrap_or(usize::MAX).min(len);
        let start = usize::try_from(start).unwrap_or(usize::MAX).min(end);
        Ok(self.entries[start..end]
            .iter()
            .map(|e| (e.0, e.1.to_vec()))
            .collect())
    }
}

impl OrderedMut for Packed<'_> {
    fn put(&mut self, member: &[u8], score: f64) -> Result<Option<f64>, RespError> {
        let old = self.position(member).map(|at| (at, self.entries[at].0));
        if let Some((_, o)) = old {
            if o.to_bits() == score.to_bits() {
                return Ok(Some(o));
            }
        }
        let owned = match old {
            Some((at, _)) => self.entries.remove(at).1,
            None => Cow::Owned(member.to_vec()),
        };
        let at = self
            .entries
            .partition_point(|e| order((e.0, &e.1), (score, member)).is_lt());
        self.entries.insert(at, (score, owned));
        self.dirty = true;
        Ok(old.map(|(_, o)| o))
    }

    fn remove(&mut self, member: &[u8]) -> Result<Option<f64>, RespError> {
        let Some(at) = self.position(member) else {
            return Ok(None);
        };
        self.dirty = true;
        Ok(Some(self.entries.remove(at).0))
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.dirty = true;
    }
}

impl<E: ChunkSource> Ordered for Sorted<'_, E> {
    fn len(&self) -> u64 {
        Sorted::len(self)
    }

    fn score(&mut self, member: &[u8]) -> Result<Option<f64>, RespError> {
        Ok(Sorted::score(self, member)?)
    }

    fn rank(&mut self, score: f64, member: &[u8]) -> Result<Option<u64>, RespError> {
        Ok(Sorted::rank(self, score, member)?)
    }

    fn count_before(&mut self, before: &dyn Fn(f64, &[u8]) -> bool) -> Result<u64, RespError> {
        Ok(Sorted::count_before(self, before)?)
    }

    fn range(&mut self, start: u64, end: u64) -> Result<Vec<Owned>, RespError> {
        Ok(Sorted::range(self, start, end)?)
    }
}

impl OrderedMut for Sorted<'_, LargeEdit<'_>> {
    fn put(&mut self, member: &[u8], score: f64) -> Result<Option<f64>, RespError> {
        Ok(Sorted::put(self, member, score)?)
    }

    fn remove(&mut self, member: &[u8]) -> Result<Option<f64>, RespError> {
        Ok(Sorted::remove(self, member)?)
    }

    fn clear(&mut self) {
        Sorted::clear(self)
    }
}
