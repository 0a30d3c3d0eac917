//! [`Hashed`]: a large hash or set as chunks addressed by linear hashing.
//!
//! Bucket `b` is chunk `b`, a packed run (`crate::collection`) of the
//! bucket's entries: a hash's fields and values alternating, a set's
//! members. An element's bucket comes from its hash under the collection's
//! seed ([`Meta`]). When the entries' packed bytes pass [`TARGET_CHUNK`]
//! per bucket on average, bucket `split` is split in two (the new one is
//! appended, so chunk numbers stay dense `0..buckets`); buckets are never
//! merged, so a cursor over bucket numbers (`HSCAN`, `SSCAN`) sees every
//! element that stays (a split only moves elements to a later bucket).
//!
//! One command touches the buckets of the elements it names: each is read
//! once, kept decoded while the command runs, and written once at
//! [`finish`](Hashed::finish) with the head. Nothing written grows with
//! the collection (the head is about 25 bytes).

use std::collections::HashMap;

use super::meta::Meta;
use crate::collection;
use crate::item::ValueKind;
use crate::shard::large::LargeEdit;
use crate::shard::large_read::ChunkSource;
use crate::KvError;

/// Average packed bytes per bucket above which a bucket is split.
pub const TARGET_CHUNK: u64 = 2048;

/// Whether entries are field-value pairs (hashes) or single members (sets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A hash: fields and values alternating.
    Pairs,
    /// A set: members.
    Members,
}

impl Shape {
    /// Elements per entry: 2 (field, value) or 1 (member).
    pub fn width(self) -> usize {
        match self {
            Shape::Pairs => 2,
            Shape::Members => 1,
        }
    }

    /// The shape of a hashed collection of `kind`.
    pub fn of(kind: ValueKind) -> Self {
        match kind {
            // A sorted set's buckets map members to their 8-byte scores.
            ValueKind::Hash | ValueKind::SortedSet => Shape::Pairs,
            _ => Shape::Members,
        }
    }
}

/// One bucket's entries, flattened, and whether they changed.
#[derive(Default)]
struct Bucket {
    elements: Vec<Vec<u8>>,
    dirty: bool,
}

/// Packed bytes an element adds to a chunk.
fn packed(e: &[u8]) -> u64 {
    collection::encoded_len([e]) as u64 - 1
}

/// A large hash or set being read (`E`: a [`LargeRead`](crate::LargeRead),
/// shard read-locked) or changed (a [`LargeEdit`], write-locked).
pub struct Hashed<'a, E> {
    edit: &'a mut E,
    kind: ValueKind,
    shape: Shape,
    meta: Meta,
    expires_at: Option<u64>,
    buckets: HashMap<u32, Bucket>,
    head_dirty: bool,
}

impl<'a, E: ChunkSource> Hashed<'a, E> {
    /// The large collection of `kind` at the key; `Ok(None)` when the key
    /// holds anything else.
    pub fn open(edit: &'a mut E, kind: ValueKind) -> Result<Option<Self>, KvError> {
        let Some(current) = edit.current()? else {
            return Ok(None);
        };
        if current.kind != kind || current.chunks.is_none() {
            return Ok(None);
        }
        let meta = Meta::decode(&current.value).ok_or_else(|| KvError::Storage {
            cause: "a large collection's head does not decode".into(),
        })?;
        Ok(Some(Self::with(edit, kind, meta, current.expires_at)))
    }

    pub(crate) fn with(
        edit: &'a mut E,
        kind: ValueKind,
        meta: Meta,
        expires_at: Option<u64>,
    ) -> Self {
        Self {
            edit,
            kind,
            shape: Shape::of(kind),
            meta,
            expires_at,
            buckets: HashMap::new(),
            head_dirty: false,
        }
    }

    /// Elements (fields or members) held.
    pub fn len(&self) -> u64 {
        self.meta.count
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.meta.count == 0
    }

    /// Pairs (a hash) or members (a set).
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Buckets in use: the cursor range of a scan.
    pub fn buckets(&self) -> u32 {
        self.meta.buckets()
    }

    /// The key's expiry.
    pub fn expires_at(&self) -> Option<u64> {
        self.expires_at
    }

    /// The linear-hashing state (for a collection that keeps more in its
    /// head, `large::sorted`).
    pub(crate) fn meta(&self) -> &Meta {
        &self.meta
    }

    /// The view the buckets are read through.
    pub(crate) fn source(&self) -> &E {
        self.edit
    }

    /// The view, for writes.
    pub(crate) fn source_mut(&mut self) -> &mut E {
        self.edit
    }

    fn hash(&self, element: &[u8]) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(element, self.meta.seed)
    }

    fn load(&mut self, b: u32) -> Result<&mut Bucket, KvError> {
        if !self.buckets.contains_key(&b) {
            let elements = self.read_bucket(b)?;
            self.buckets.insert(
                b,
                Bucket {
                    elements,
                    dirty: false,
                },
            );
        }
        Ok(self.buckets.entry(b).or_default())
    }

    /// Bucket `b`'s entries as stored (or as changed by this command).
    pub fn bucket(&mut self, b: u32) -> Result<Vec<Vec<u8>>, KvError> {
        match self.buckets.get(&b) {
            Some(bucket) => Ok(bucket.elements.clone()),
            None => self.read_bucket(b),
        }
    }

    fn read_bucket(&self, b: u32) -> Result<Vec<Vec<u8>>, KvError> {
        let damaged = || KvError::Storage {
            cause: format!("chunk {b} of a large collection is missing or damaged"),
        };
        let bytes = self.edit.chunk(b)?.ok_or_else(damaged)?;
        let elements = collection::decode(&bytes).ok_or_else(damaged)?;
        Ok(elements.into_iter().map(<[u8]>::to_vec).collect())
    }

    /// The position of `element` in its bucket's flattened entries.
    fn find(&mut self, element: &[u8]) -> Result<(u32, Option<usize>), KvError> {
        let b = self.meta.bucket(self.hash(element));
        let width = self.shape.width();
        let bucket = self.load(b)?;
        let at = bucket
            .elements
            .chunks_exact(width)
            .position(|e| e[0] == element);
        Ok((b, at.map(|i| i * width)))
    }

    /// A hash field's value (a set member: empty); `None` when absent.
    pub fn get(&mut self, element: &[u8]) -> Result<Option<Vec<u8>>, KvError> {
        let (b, at) = self.find(element)?;
        Ok(at.map(|i| match self.shape {
            Shape::Pairs => self.buckets[&b].elements[i + 1].clone(),
            Shape::Members => Vec::new(),
        }))
    }

    /// A random entry (a field and its value, or a member): from a random
    /// bucket, retrying empty ones, kept loaded for the next pick (so
    /// picking many is one read per bucket). Like Redis's hashtable, an
    /// entry of a fuller bucket is a little less likely. `None` when empty.
    pub fn random(&mut self, rng: &mut impl rand::Rng) -> Result<Option<Vec<Vec<u8>>>, KvError> {
        if self.meta.count == 0 {
            return Ok(None);
        }
        let (width, buckets) = (self.shape.width(), self.meta.buckets());
        // Random buckets first; then (a nearly empty collection, or a
        // damaged count) every bucket from a random one on, so this ends.
        let start = rng.gen_range(0..buckets);
        for i in 0..64 + buckets {
            let b = match i.checked_sub(64) {
                None => rng.gen_range(0..buckets),
                Some(i) => (start + i) % buckets,
            };
            let bucket = self.load(b)?;
            let entries = bucket.elements.len() / width;
            if entries > 0 {
                let at = rng.gen_range(0..entries) * width;
                return Ok(Some(bucket.elements[at..at + width].to_vec()));
            }
        }
        Err(KvError::Storage {
            cause: "a large collection counts elements its chunks do not hold".into(),
        })
    }
}

impl<'a, 's> Hashed<'a, LargeEdit<'s>> {
    /// A new, empty large collection of `kind` at the edit's key (what it
    /// held is replaced at [`finish`](Self::finish)).
    pub fn create(edit: &'a mut LargeEdit<'s>, kind: ValueKind, expires_at: Option<u64>) -> Self {
        let mut hashed = Self::with(edit, kind, Meta::new(rand::random()), expires_at);
        hashed.buckets.insert(
            0,
            Bucket {
                elements: Vec::new(),
                dirty: true,
            },
        );
        hashed.head_dirty = true;
        hashed
    }

    /// Sets a hash field (`value`) or adds a set member (`value` ignored);
    /// true when the element is new.
    pub fn put(&mut self, element: &[u8], value: &[u8]) -> Result<bool, KvError> {
        let (b, at) = self.find(element)?;
        let shape = self.shape;
        let bucket = self.buckets.entry(b).or_default();
        let added = match (at, shape) {
            (Some(_), Shape::Members) => return Ok(false),
            (Some(i), Shape::Pairs) => {
                let old = std::mem::replace(&mut bucket.elements[i + 1], value.to_vec());
                self.meta.bytes = self.meta.bytes + packed(value) - packed(&old);
                false
            }
            (None, _) => {
                bucket.elements.push(element.to_vec());
                self.meta.bytes += packed(element);
                if shape == Shape::Pairs {
                    bucket.elements.push(value.to_vec());
                    self.meta.bytes += packed(value);
                }
                self.meta.count += 1;
                true
            }
        };
        bucket.dirty = true;
        self.head_dirty = true;
        while self.meta.bytes > TARGET_CHUNK * u64::from(self.meta.buckets()) {
            self.split()?;
        }
        Ok(added)
    }

    /// Removes an element; true if it was there.
    pub fn remove(&mut self, element: &[u8]) -> Result<bool, KvError> {
        let (b, at) = self.find(element)?;
        let Some(i) = at else {
            return Ok(false);
        };
        let width = self.shape.width();
        let bucket = self.buckets.entry(b).or_default();
        let gone: Vec<Vec<u8>> = bucket.elements.drain(i..i + width).collect();
        bucket.dirty = true;
        self.meta.bytes -= gone.iter().map(|e| packed(e)).sum::<u64>();
        self.meta.count -= 1;
        self.head_dirty = true;
        Ok(true)
    }

    /// Splits bucket `split` into itself and a new last bucket.
    fn split(&mut self) -> Result<(), KvError> {
        if self.meta.level >= 30 {
            return Ok(()); // 2^30 buckets: never reached within a shard
        }
        let (from, to) = (self.meta.split, self.meta.buckets());
        let bit = 1u64 << self.meta.level;
        let width = self.shape.width();
        let entries = std::mem::take(&mut self.load(from)?.elements);
        let (mut stay, mut go) = (Vec::new(), Vec::new());
        for entry in entries.chunks_exact(width) {
            let side = match self.hash(&entry[0]) & bit {
                0 => &mut stay,
                _ => &mut go,
            };
            side.extend(entry.iter().cloned());
        }
        self.buckets.insert(
            from,
            Bucket {
                elements: stay,
                dirty: true,
            },
        );
        self.buckets.insert(
            to,
            Bucket {
                elements: go,
                dirty: true,
            },
        );
        self.meta.advance_split();
        Ok(())
    }

    /// Writes the changed buckets and the head; deletes the key when the
    /// collection became empty (Redis keeps no empty collection).
    pub fn finish(mut self) -> Result<(), KvError> {
        if self.meta.count == 0 {
            if self.head_dirty {
                self.edit.delete()?;
            }
            return Ok(());
        }
        self.write_buckets()?;
        if self.head_dirty {
            let chunks = self.meta.buckets();
            self.edit
                .put_head(self.kind, chunks, &self.meta.encode(), self.expires_at)?;
        }
        Ok(())
    }

    /// Writes the buckets changed so far (the head is the caller's).
    pub(crate) fn write_buckets(&mut self) -> Result<(), KvError> {
        let mut changed: Vec<u32> = self
            .buckets
            .iter()
            .filter(|(_, b)| b.dirty)
            .map(|(n, _)| *n)
            .collect();
        changed.sort_unstable();
        for n in changed {
            let Some(bucket) = self.buckets.get_mut(&n) else {
                continue;
            };
            bucket.dirty = false;
            let value = collection::encode(bucket.elements.iter().map(Vec::as_slice));
            self.edit.put_chunk(n, self.kind, &value)?;
        }
        Ok(())
    }
}
