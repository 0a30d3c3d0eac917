//! Changing a [`Deque`]: pushes and pops at either end, `set`, `insert`
//! before or after a pivot, `remove` of equal elements from either end,
//! and dropping `n` elements at once; each keeps the chunks non-empty and
//! near [`TARGET_CHUNK`] bytes.

use super::chunk::packed;
use super::{damaged, Deque, Side};
use crate::chunk::RING;
use crate::large::hashed::TARGET_CHUNK;
use crate::shard::large_read::ChunkSource;
use crate::KvError;

impl<E: ChunkSource> Deque<'_, E> {
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
        self.chunks.entry(number).or_default().push(side, element);
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
        let element = chunk.pop(side).ok_or_else(|| damaged("chunk is empty"))?;
        let size = packed(&element);
        if chunk.is_empty() {
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
        let old = chunk.bytes;
        if !chunk.set(at, element) {
            return Err(damaged("chunk counts disagree with its head"));
        }
        let new = chunk.bytes;
        self.meta.bytes = self.meta.bytes - old + new;
        self.head_dirty = true;
        Ok(true)
    }

    /// Replaces the chunks from position `pos` on with `elements`, packed
    /// into new chunks (what an edit inside the list rewrites).
    fn rewrite_from(&mut self, pos: u32, elements: Vec<Vec<u8>>) -> Result<(), KvError> {
        for p in pos..self.meta.ring.count {
            let chunk = self.load(p)?;
            let (n, bytes) = (chunk.len() as u64, chunk.bytes);
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
            out.extend(self.load(p)?.iter().map(<[u8]>::to_vec));
        }
        Ok(out)
    }

    /// Inserts `element` before (or, `after`, behind) the first `pivot`
    /// from the front; false when there is none. A chunk that grows past
    /// twice the target is split, rewriting the chunks after it.
    pub fn insert(&mut self, pivot: &[u8], after: bool, element: &[u8]) -> Result<bool, KvError> {
        for pos in 0..self.meta.ring.count {
            let chunk = self.load(pos)?;
            let Some(at) = chunk.iter().position(|e| e == pivot) else {
                continue;
            };
            let size = packed(element);
            chunk.insert(at + usize::from(after), element);
            let oversized = chunk.bytes > 2 * TARGET_CHUNK && chunk.len() > 1;
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
            let bytes = chunk.bytes;
            let n = chunk.remove_equal(side, limit - removed, element);
            let gone = bytes - chunk.bytes;
            if n > 0 {
                removed += n;
                self.meta.count -= n;
                self.meta.bytes -= gone;
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
            let (len, bytes) = (chunk.len() as u64, chunk.bytes);
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
