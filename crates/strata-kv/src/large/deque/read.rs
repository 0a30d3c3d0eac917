//! Reading a [`Deque`]: an element by index, a range, and a scan from
//! either end that stops when its visitor says so.

use super::{Deque, Side};
use crate::shard::large_read::ChunkSource;
use crate::KvError;

impl<E: ChunkSource> Deque<'_, E> {
    /// Element `i` (from the front); `None` past the end.
    pub fn get(&mut self, i: u64) -> Result<Option<Vec<u8>>, KvError> {
        if i >= self.meta.count {
            return Ok(None);
        }
        let (pos, at) = self.locate(i)?;
        Ok(self.load(pos)?.get(at).map(<[u8]>::to_vec))
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
            for e in chunk.iter().skip(at) {
                if want == 0 {
                    break;
                }
                out.push(e.to_vec());
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
                Side::Front => chunk.iter().all(|e| {
                    seen += 1;
                    f(seen - 1, e)
                }),
                // Read-only, so the chunk is not marked changed.
                Side::Back => chunk.elements_mut().iter().rev().all(|e| {
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
}
