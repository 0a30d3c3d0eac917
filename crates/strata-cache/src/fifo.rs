//! One FIFO queue of keys. Positions are `(key, stamp)`; a position whose
//! stamp no longer matches the cached record (invalidated, or moved to
//! another queue) is stale and skipped when it reaches the head, so removal
//! from the middle costs nothing.

use std::collections::VecDeque;

use super::memory::deque_bytes;

/// A FIFO of stamped keys and the bytes of the live records in it.
pub(super) struct Fifo<K> {
    positions: VecDeque<(K, u64)>,
    /// Bytes charged by the records this queue holds (stale ones excluded).
    pub(super) bytes: usize,
}

impl<K> Fifo<K> {
    pub(super) fn new() -> Fifo<K> {
        Fifo {
            positions: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Adds a position at the tail.
    pub(super) fn push(&mut self, key: K, stamp: u64) {
        self.positions.push_back((key, stamp));
    }

    /// Takes the position at the head, stale or not.
    pub(super) fn pop(&mut self) -> Option<(K, u64)> {
        self.positions.pop_front()
    }

    /// Positions held, stale ones included.
    pub(super) fn positions(&self) -> usize {
        self.positions.len()
    }

    /// Bytes of the queue's ring buffer.
    pub(super) fn resident(&self) -> usize {
        deque_bytes::<(K, u64)>(self.positions.capacity())
    }

    /// Shrinks the ring buffer when it is more than twice the positions.
    pub(super) fn trim(&mut self) {
        let len = self.positions.len();
        if self.positions.capacity() > 2 * len + 64 {
            self.positions.shrink_to(len + len / 4);
        }
    }

    /// Drops the positions `live` rejects.
    pub(super) fn retain(&mut self, mut live: impl FnMut(&K, u64) -> bool) {
        self.positions.retain(|(key, stamp)| live(key, *stamp));
    }
}
