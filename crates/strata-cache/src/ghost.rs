//! The ghost queue: keys (no values) of records recently evicted from the
//! small queue, bounded by the bytes those records had. A key found here on
//! insertion goes straight to the main queue. Its own memory (queue and
//! table) is counted by the shard against the budget.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

use super::memory::{deque_bytes, table_bytes};

/// Remembered keys, oldest first.
pub(super) struct Ghost<K> {
    order: VecDeque<(K, u64)>,
    members: HashMap<K, (u64, usize)>,
    bytes: usize,
    next_stamp: u64,
    /// `members`' capacity right after it last grew (its table's size).
    table_capacity: usize,
}

impl<K: Hash + Eq + Clone> Ghost<K> {
    /// An empty ghost.
    pub(super) fn new() -> Ghost<K> {
        Ghost {
            order: VecDeque::new(),
            members: HashMap::new(),
            bytes: 0,
            next_stamp: 0,
            table_capacity: 0,
        }
    }

    /// Remembers `key`, whose record charged `charge` bytes, forgetting the
    /// oldest keys beyond records of `capacity` bytes in all.
    pub(super) fn insert(&mut self, key: K, charge: usize, capacity: usize) {
        self.remove(&key);
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.members.insert(key.clone(), (stamp, charge));
        self.table_capacity = self.table_capacity.max(self.members.capacity());
        self.order.push_back((key, stamp));
        self.bytes += charge;
        while self.bytes > capacity {
            let Some((old, stamp)) = self.order.pop_front() else {
                break;
            };
            if self.members.get(&old).is_some_and(|(s, _)| *s == stamp) {
                self.remove(&old);
            }
        }
    }

    /// Bytes of the ghost's queue and table.
    pub(super) fn resident(&self) -> usize {
        deque_bytes::<(K, u64)>(self.order.capacity())
            + table_bytes::<(K, (u64, usize))>(self.table_capacity)
    }

    /// Bytes a ghost remembering about as many keys as a shard of
    /// `records` records holds (its steady state) occupies.
    pub(super) fn expected(records: usize) -> usize {
        if records == 0 {
            return 0;
        }
        let keys = records.next_power_of_two();
        deque_bytes::<(K, u64)>(keys) + table_bytes::<(K, (u64, usize))>(keys * 7 / 8)
    }

    /// Shrinks the queue and table when more than twice what they hold.
    pub(super) fn trim(&mut self) {
        let len = self.members.len();
        if self.table_capacity > 2 * len + 64 {
            self.members.shrink_to(len + len / 4);
            self.table_capacity = self.members.capacity();
        }
        let positions = self.order.len();
        if self.order.capacity() > 2 * positions + 64 {
            self.order.shrink_to(positions + positions / 4);
        }
    }

    /// Forgets `key`; true if it was remembered.
    pub(super) fn remove(&mut self, key: &K) -> bool {
        let Some((_, charge)) = self.members.remove(key) else {
            return false;
        };
        self.bytes -= charge;
        if self.order.len() > 2 * self.members.len() + 32 {
            let members = &self.members;
            self.order
                .retain(|(k, s)| members.get(k).is_some_and(|(m, _)| m == s));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ghost_forgets_the_oldest_beyond_its_capacity() {
        let mut ghost = Ghost::new();
        for key in 0..5u32 {
            ghost.insert(key, 100, 300);
        }
        assert!(!ghost.remove(&0) && !ghost.remove(&1));
        assert!(ghost.remove(&4));
        assert!(!ghost.remove(&4));
        for _ in 0..1000 {
            ghost.insert(7, 10, 300);
            ghost.remove(&7);
        }
        assert!(ghost.order.len() < 100);
    }
}
