//! [`Deque`]: a large list as a deque of chunks.
//!
//! The chunks are a [`Ring`] of consecutive numbers `first, first + 1, ..`
//! (modulo [`RING`], held in the head's flags word so the engine drops
//! them without reading the head): a push at the front takes number
//! `first - 1`, one at the back `first + count`, so nothing is renumbered.
//! Each chunk is a packed run (`crate::collection`) of elements in order,
//! never empty; a push opens a new end chunk when the end one would pass
//! [`TARGET_CHUNK`] bytes, a pop that empties an end chunk drops it. The
//! head's value ([`ListMeta`]) holds the ring, the element count and the
//! packed bytes: 26 bytes whatever the list's length.
//!
//! A command reads the chunks it needs (finding an index walks chunk
//! counts from the nearer end), keeps them decoded while it runs, and
//! writes the changed ones and the head at [`finish`](Deque::finish): a
//! push or pop writes one chunk and the head.

use std::collections::{HashMap, VecDeque};

use super::hashed::TARGET_CHUNK;
use crate::chunk::{Ring, RING};
use crate::collection;
use crate::item::ValueKind;
use crate::shard::large::LargeEdit;
use crate::shard::large_read::ChunkSource;
use crate::KvError;

const MAGIC: [u8; 2] = [0x00, 0xC6];
const META_LEN: usize = 2 + 4 + 4 + 8 + 8;

/// Whether `value` (a list's stored value) is a large list's head: it
/// starts like no packed value does (a packed value of 0 elements is one
/// byte).
pub fn is_list_head(value: &[u8]) -> bool {
    value.starts_with(&MAGIC)
}

/// A large list's head value: `0x00 0xC6 | first | chunks | count | bytes`
/// (u32, u32, u64, u64, little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct ListMeta {
    ring: Ring,
    count: u64,
    bytes: u64,
}

impl ListMeta {
    fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(META_LEN);
        buf.extend_from_slice(&MAGIC);
        buf.extend_from_slice(&self.ring.first.to_le_bytes());
        buf.extend_from_slice(&self.ring.count.to_le_bytes());
        buf.extend_from_slice(&self.count.to_le_bytes());
        buf.extend_from_slice(&self.bytes.to_le_bytes());
        buf
    }

    fn decode(value: &[u8]) -> Option<Self> {
        let rest = value.strip_prefix(&MAGIC)?;
        if rest.len() != META_LEN - 2 {
            return None;
        }
        let first = u32::from_le_bytes(rest[0..4].try_into().ok()?);
        let count = u32::from_le_bytes(rest[4..8].try_into().ok()?);
        let meta = Self {
            ring: Ring { first, count },
            count: u64::from_le_bytes(rest[8..16].try_into().ok()?),
            bytes: u64::from_le_bytes(rest[16..24].try_into().ok()?),
        };
        (first < RING && count < RING).then_some(meta)
    }
}

/// Which end of the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The head (LEFT, index 0).
    Front,
    /// The tail (RIGHT).
    Back,
}

/// One chunk's elements, decoded, and whether they changed.
#[derive(Default)]
struct Chunk {
    elements: VecDeque<Vec<u8>>,
    bytes: u64,
    dirty: bool,
}

/// Packed bytes an element adds to a chunk.
fn packed(e: &[u8]) -> u64 {
    collection::encoded_len([e]) as u64 - 1
}

fn damaged(what: &str) -> KvError {
    KvError::Storage {
        cause: format!("a large list's {what}"),
    }
}

/// A large list being read (`E`: a [`LargeRead`](crate::LargeRead)) or
/// changed (a [`LargeEdit`]).
pub struct Deque<'a, E> {
    edit: &'a mut E,
    meta: ListMeta,
    expires_at: Option<u64>,
    /// Loaded chunks by number.
    chunks: HashMap<u32, Chunk>,
    head_dirty: bool,
}

impl<'a, E: ChunkSource> Deque<'a, E> {
    /// The large list at the key; `Ok(None)` when the key holds anything
    /// else.
    pub fn open(edit: &'a mut E) -> Result<Option<Self>, KvError> {
        let Some(current) = edit.current()? else {
            return Ok(None);
        };
        if current.kind != ValueKind::List || current.chunks.is_none() {
            return Ok(None);
        }
        let meta = ListMeta::decode(&current.value).ok_or_else(|| damaged("head"))?;
        Ok(Some(Self {
            edit,
            meta,
            expires_at: current.expires_at,
            chunks: HashMap::new(),
            head_dirty: false,
        }))
    }

    /// A new, empty large list (written at [`finish`](Deque::finish)).
    pub fn create(edit: &'a mut E, expires_at: Option<u64>) -> Self {
        Self {
            edit,
            meta: ListMeta::default(),
            expires_at,
            chunks: HashMap::new(),
            head_dirty: true,
        }
    }

    /// Elements held.
    pub fn len(&self) -> u64 {
        self.meta.count
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.meta.count == 0
    }

    /// Packed bytes of the elements (each one's length prefix and bytes,
    /// as [`collection::encoded_len`] counts them, less the count).
    pub fn bytes(&self) -> u64 {
        self.meta.bytes
    }

    /// The key's expiry.
    pub fn expires_at(&self) -> Option<u64> {
        self.expires_at
    }

    /// The view the deque was opened on, for the caller to write something
    /// else at the key instead (nothing the deque changed is written).
    pub fn into_edit(self) -> &'a mut E {
        self.edit
    }

    /// Chunks in use.
    pub fn chunk_count(&self) -> u32 {
        self.meta.ring.count
    }

    fn load(&mut self, pos: u32) -> Result<&mut Chunk, KvError> {
        use std::collections::hash_map::Entry;
        let number = self.meta.ring.number(pos);
        match self.chunks.entry(number) {
            Entry::Occupied(loaded) => Ok(loaded.into_mut()),
            Entry::Vacant(slot) => {
                let value = self
                    .edit
                    .chunk(number)?
                    .ok_or_else(|| damaged("chunk is missing"))?;
                let decoded =
                    collection::decode(&value).ok_or_else(|| damaged("chunk is damaged"))?;
                Ok(slot.insert(Chunk {
                    bytes: decoded.iter().map(|e| packed(e)).sum(),
                    elements: decoded.into_iter().map(<[u8]>::to_vec).collect(),
                    dirty: false,
                }))
            }
        }
    }

    /// The chunk position and the offset in it of element `i` (< len),
    /// walking chunk counts from the nearer end.
    fn locate(&mut self, i: u64) -> Result<(u32, usize), KvError> {
        let chunks = self.meta.ring.count;
        if i < self.meta.count / 2 {
            let mut rest = i;
            for pos in 0..chunks {
                let len = self.load(pos)?.elements.len() as u64;
                if rest < len {
                    return Ok((pos, rest as usize));
                }
                rest -= len;
            }
        } else {
            let mut rest = self.meta.count - 1 - i;
            for pos in (0..chunks).rev() {
                let len = self.load(pos)?.elements.len() as u64;
                if rest < len {
                    return Ok((pos, (len - 1 - rest) as usize));
                }
                rest -= len;
            }
        }
        Err(damaged("chunk counts disagree with its head"))
    }

    /// Element `i` (from the front); `None` past the end.
    pub fn get(&mut self, i: u64) -> Result<Option<Vec<u8>>, KvError> {
        if i >= self.meta.count {
            return Ok(None);
        }
        let (pos, at) = self.locate(i)?;
        Ok(self.load(pos)?.elements.get(at).cloned())
    }

    /// Elements `start..=stop` (`stop` < len).
    pub fn range(&mut self, start: u64, stop: u64) -> Result<Vec<Vec<u8>>, KvError> {
        let mut want = stop.saturating_sub(start) + 1;
        if start > stop || stop >= self.meta.count {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let (mut pos, mut at) = self.locate(start)?;
        while want > 0 && pos < self.meta.ring.count {
            let chunk = self.load(pos)?;
            for e in chunk.elements.iter().skip(at) {
                if want == 0 {
                    break;
                }
                out.push(e.clone());
                want -= 1;
            }
            (pos, at) = (pos + 1, 0);
        }
        Ok(out)
    }

    /// Calls `f` with each element's index and bytes, from `side`, until
    /// it returns false.
    pub fn scan(
        &mut self,
        side: Side,
        mut f: impl FnMut(u64, &[u8]) -> bool,
    ) -> Result<(), KvError> {
        let chunks = self.meta.ring.count;
        let count = self.meta.count;
        let mut seen = 0u64;
        for step in 0..chunks {
            let pos = match side {
                Side::Front => step,
                Side::Back => chunks - 1 - step,
            };
            let chunk = self.load(pos)?;
            let keep_going = match side {
                Side::Front => chunk.elements.iter().all(|e| {
                    seen += 1;
                    f(seen - 1, e)
                }),
                Side::Back => chunk.elements.iter().rev().all(|e| {
                    seen += 1;
                    f(count - seen, e)
                }),
            };
            if !keep_going {
                break;
            }
        }
        Ok(())
    }

    /// Adds `element` at `side`.
    pub fn push(&mut self, side: Side, element: &[u8]) -> Result<(), KvError> {
        let size = packed(element);
        let ring = self.meta.ring;
        let end = match side {
            Side::Front => 0,
            Side::Back => ring.count.saturating_sub(1),
        };
        let room = ring.count > 0 && {
            let chunk = self.load(end)?;
            chunk.bytes + size <= TARGET_CHUNK
        };
        let pos = if room {
            end
        } else {
            if ring.count + 1 >= RING {
                return Err(KvError::TooLarge {
                    size: ring.count as usize,
                    limit: RING as usize - 1,
                });
            }
            self.meta.ring.count += 1;
            match side {
                Side::Front => {
                    self.meta.ring.first = ring.number(RING - 1);
                    0
                }
                Side::Back => ring.count,
            }
        };
        let number = self.meta.ring.number(pos);
        let chunk = self.chunks.entry(number).or_default();
        match side {
            Side::Front => chunk.elements.push_front(element.to_vec()),
            Side::Back => chunk.elements.push_back(element.to_vec()),
        }
        chunk.bytes += size;
        chunk.dirty = true;
        self.meta.count += 1;
        self.meta.bytes += size;
        self.head_dirty = true;
        Ok(())
    }

    /// Removes the element at `side`; `None` when empty.
    pub fn pop(&mut self, side: Side) -> Result<Option<Vec<u8>>, KvError> {
        if self.meta.count == 0 {
            return Ok(None);
        }
        let ring = self.meta.ring;
        let pos = match side {
            Side::Front => 0,
            Side::Back => ring.count - 1,
        };
        let chunk = self.load(pos)?;
        let element = match side {
            Side::Front => chunk.elements.pop_front(),
            Side::Back => chunk.elements.pop_back(),
        }
        .ok_or_else(|| damaged("chunk is empty"))?;
        let size = packed(&element);
        chunk.bytes -= size;
        chunk.dirty = true;
        if chunk.elements.is_empty() {
            self.chunks.remove(&ring.number(pos));
            self.meta.ring.count -= 1;
            if side == Side::Front {
                self.meta.ring.first = ring.number(1);
            }
        }
        self.meta.count -= 1;
        self.meta.bytes -= size;
        self.head_dirty = true;
        Ok(Some(element))
    }

    /// Replaces element `i`; false past the end.
    pub fn set(&mut self, i: u64, element: &[u8]) -> Result<bool, KvError> {
        if i >= self.meta.count {
            return Ok(false);
        }
        let (pos, at) = self.locate(i)?;
        let chunk = self.load(pos)?;
        let (old, new) = (packed(&chunk.elements[at]), packed(element));
        chunk.elements[at] = element.to_vec();
        chunk.bytes = chunk.bytes - old + new;
        chunk.dirty = true;
        self.meta.bytes = self.meta.bytes - old + new;
        self.head_dirty = true;
        Ok(true)
    }

    /// Replaces the chunks from position `pos` on with `elements`, packed
    /// into new chunks (what an edit inside the list rewrites).
    fn rewrite_from(&mut self, pos: u32, elements: Vec<Vec<u8>>) -> Result<(), KvError> {
        for p in pos..self.meta.ring.count {
            let chunk = self.load(p)?;
            let (n, bytes) = (chunk.elements.len() as u64, chunk.bytes);
            self.meta.count -= n;
            self.meta.bytes -= bytes;
            let number = self.meta.ring.number(p);
            self.chunks.remove(&number);
        }
        self.meta.ring.count = pos;
        self.head_dirty = true;
        for e in elements {
            self.push(Side::Back, &e)?;
        }
        Ok(())
    }

    /// The elements of the chunks from position `pos` on.
    fn elements_from(&mut self, pos: u32) -> Result<Vec<Vec<u8>>, KvError> {
        let mut out = Vec::new();
        for p in pos..self.meta.ring.count {
            out.extend(self.load(p)?.elements.iter().cloned());
        }
        Ok(out)
    }

    /// Inserts `element` before (or, `after`, behind) the first `pivot`
    /// from the front; false when there is none. A chunk that grows past
    /// twice the target is split, rewriting the chunks after it.
    pub fn insert(&mut self, pivot: &[u8], after: bool, element: &[u8]) -> Result<bool, KvError> {
        for pos in 0..self.meta.ring.count {
            let chunk = self.load(pos)?;
            let Some(at) = chunk.elements.iter().position(|e| e == pivot) else {
                continue;
            };
            let size = packed(element);
            chunk
                .elements
                .insert(at + usize::from(after), element.to_vec());
            chunk.bytes += size;
            chunk.dirty = true;
            let oversized = chunk.bytes > 2 * TARGET_CHUNK && chunk.elements.len() > 1;
            self.meta.count += 1;
            self.meta.bytes += size;
            self.head_dirty = true;
            if oversized {
                let rest = self.elements_from(pos)?;
                self.rewrite_from(pos, rest)?;
            }
            return Ok(true);
        }
        Ok(false)
    }

    /// Removes up to `limit` elements equal to `element`, from `side`;
    /// how many were removed. Chunks from the first one changed on are
    /// rewritten (no chunk is left empty).
    pub fn remove(&mut self, side: Side, limit: u64, element: &[u8]) -> Result<u64, KvError> {
        let chunks = self.meta.ring.count;
        let mut removed = 0u64;
        let mut touched = None::<u32>;
        for step in 0..chunks {
            if removed >= limit {
                break;
            }
            let pos = match side {
                Side::Front => step,
                Side::Back => chunks - 1 - step,
            };
            let chunk = self.load(pos)?;
            let mut keep = vec![true; chunk.elements.len()];
            let order: Box<dyn Iterator<Item = usize>> = match side {
                Side::Front => Box::new(0..keep.len()),
                Side::Back => Box::new((0..keep.len()).rev()),
            };
            let before = removed;
            for i in order {
                if removed < limit && chunk.elements[i] == element {
                    keep[i] = false;
                    removed += 1;
                }
            }
            if removed > before {
                let mut k = keep.iter();
                chunk.elements.retain(|_| *k.next().unwrap_or(&true));
                let size = packed(element) * (removed - before);
                chunk.bytes -= size;
                chunk.dirty = true;
                self.meta.count -= removed - before;
                self.meta.bytes -= size;
                self.head_dirty = true;
                touched = Some(touched.map_or(pos, |t: u32| t.min(pos)));
            }
        }
        if let Some(pos) = touched {
            let rest = self.elements_from(pos)?;
            self.rewrite_from(pos, rest)?;
        }
        Ok(removed)
    }

    /// Removes `n` elements at `side` (all of them when `n` reaches the
    /// length), dropping whole chunks where it can.
    pub fn drop_n(&mut self, side: Side, mut n: u64) -> Result<(), KvError> {
        while n > 0 && self.meta.count > 0 {
            let pos = match side {
                Side::Front => 0,
                Side::Back => self.meta.ring.count - 1,
            };
            let ring = self.meta.ring;
            let chunk = self.load(pos)?;
            let (len, bytes) = (chunk.elements.len() as u64, chunk.bytes);
            if len <= n {
                self.chunks.remove(&ring.number(pos));
                self.meta.ring.count -= 1;
                if side == Side::Front {
                    self.meta.ring.first = ring.number(1);
                }
                self.meta.count -= len;
                self.meta.bytes -= bytes;
                self.head_dirty = true;
                n -= len;
            } else {
                self.pop(side)?;
                n -= 1;
            }
        }
        Ok(())
    }
}

impl Deque<'_, LargeEdit<'_>> {
    /// Writes the changed chunks and the head; deletes the key (and its
    /// chunks) when the list became empty.
    pub fn finish(self) -> Result<(), KvError> {
        if self.meta.count == 0 {
            if self.head_dirty && self.edit.current()?.is_some() {
                self.edit.delete()?;
            }
            return Ok(());
        }
        let ring = self.meta.ring;
        let mut changed: Vec<(u32, Chunk)> = self
            .chunks
            .into_iter()
            .filter(|(n, c)| c.dirty && ring.holds(*n))
            .collect();
        changed.sort_unstable_by_key(|(n, _)| *n);
        for (n, chunk) in &changed {
            let value = collection::encode(chunk.elements.iter().map(Vec::as_slice));
            self.edit.put_chunk(*n, ValueKind::List, &value)?;
        }
        if self.head_dirty {
            self.edit
                .put_ring_head(ValueKind::List, ring, &self.meta.encode(), self.expires_at)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_round_trips_and_is_not_packed() {
        let meta = ListMeta {
            ring: Ring {
                first: RING - 1,
                count: 3,
            },
            count: 1 << 40,
            bytes: 7,
        };
        let bytes = meta.encode();
        assert!(is_list_head(&bytes) && !super::super::is_head(&bytes));
        assert_eq!(ListMeta::decode(&bytes), Some(meta));
        assert!(collection::decode(&bytes).is_none());
        assert!(ListMeta::decode(&bytes[..bytes.len() - 1]).is_none());
    }
}
