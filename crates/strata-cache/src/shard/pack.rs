//! Moving packed records between segments (`segments` says why): into the
//! main stream when a record enters main or goes round it again, and all
//! of them, in queue order, when removals left the segments mostly empty.

use std::hash::Hash;

use super::{is_at, Shard, UNPACKED};
use crate::segments::Stream;

impl<K: Hash + Eq + Clone, V: Eq> Shard<K, V> {
    /// Copies `key`'s packed value into the main stream's open segment,
    /// leaving its old segment (which may then be freed). Unpacked values
    /// stay where they are.
    pub(super) fn repack(&mut self, key: &K) {
        self.repack_into(key, Stream::Main);
    }

    /// After removals from the middle of the queues (`remove_if`): when
    /// the segments are more than half empty, every packed record is copied
    /// into fresh segments of its stream, in its queue's order, so that
    /// the removed records' bytes go back to the allocator now rather than
    /// when their neighbours leave. O(records), as the removal pass was.
    pub(super) fn compact_segments(&mut self) {
        if !self.segments.sparse() {
            return;
        }
        let map = &self.map;
        let live = |queue: &crate::fifo::Fifo<K>, in_main: bool| -> Vec<K> {
            (queue.iter())
                .filter(|(k, s)| is_at(map, k, *s, in_main))
                .map(|(k, _)| k.clone())
                .collect()
        };
        let (small, main) = (live(&self.small, false), live(&self.main, true));
        self.segments.close();
        small
            .iter()
            .for_each(|k| self.repack_into(k, Stream::Small));
        main.iter().for_each(|k| self.repack_into(k, Stream::Main));
    }

    fn repack_into(&mut self, key: &K, stream: Stream) {
        let Some(entry) = self.map.get_mut(key) else {
            return;
        };
        if entry.seg == UNPACKED {
            return;
        }
        // Packed first: the old segment is released after the copy.
        let (value, seg) = self.segments.pack(stream, &entry.value);
        self.segments.release(entry.seg, entry.value.len());
        (entry.value, entry.seg) = (value, seg);
    }
}
