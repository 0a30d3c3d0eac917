//! Moving packed records between segments (`segments` says why): into the
//! main stream when a record enters main or goes round it again, and out
//! of the segment with the most holes when holes pass a tenth of the
//! budget.

use std::hash::Hash;

use super::{Shard, UNPACKED};
use crate::segments::Stream;

impl<K: Hash + Eq + Clone, V: Eq> Shard<K, V> {
    /// Copies `key`'s packed value into the main stream's open segment,
    /// leaving its old segment (which may then be freed). Unpacked values
    /// stay where they are.
    pub(super) fn repack(&mut self, key: &K) {
        self.repack_into(key, Stream::Main);
    }

    /// While the bytes of records gone from segments still charged exceed
    /// a tenth of the budget, the closed segment with the most of them is
    /// emptied: its live records are copied into their queue's stream, and
    /// it is freed. Each pass frees a segment, so this ends; a copied
    /// record leaves no hole.
    pub(super) fn clean_segments(&mut self) {
        while self.segments.holes() > self.budget / 10 {
            let Some((id, keys)) = self.segments.take_sparsest() else {
                return;
            };
            for key in &keys {
                // A key written twice into the segment moves once.
                let Some(entry) = self.map.get(key).filter(|e| e.seg == id) else {
                    continue;
                };
                let stream = match entry.in_main {
                    true => Stream::Main,
                    false => Stream::Small,
                };
                self.repack_into(key, stream);
            }
        }
    }

    fn repack_into(&mut self, key: &K, stream: Stream) {
        let Some(entry) = self.map.get_mut(key) else {
            return;
        };
        if entry.seg == UNPACKED {
            return;
        }
        // Packed first: the old segment is released after the copy.
        let (value, seg) = self.segments.pack(stream, key, &entry.value);
        self.segments.release(entry.seg, entry.value.len());
        (entry.value, entry.seg) = (value, seg);
    }
}
