//! The ghost queue: keys (no values) of records recently evicted from the
//! small queue, bounded by the bytes those records had. A key found here on
//! insertion goes straight to the main queue.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

/// Remembered keys, oldest first.
pub(super) struct Ghost<K> {
    order: VecDeque<(K, u64)>,
    members: HashMap<K, (u64, usize)>,
    bytes: usize,
    capacity: usize,
    next_stamp: u64,
}

impl<K: Hash + Eq + Clone> Ghost<K> {
    /// Remembers keys of records totalling at most `capacity` bytes.
    pub(super) fn new(capacity: usize) -> Ghost<K> {
        Ghost {
            order: VecDeque::new(),
            members: HashMap::new(),
            bytes: 0,
            capacity,
            next_stamp: 0,
        }
    }

    /// Remembers `key`, whose record charged `charge` bytes, forgetting the
    /// oldest keys beyond the capacity.
    pub(super) fn insert(&mut self, key: K, charge: usize) {
        self.remove(&key);
        let stamp = self.next_stamp;
        self.next_stamp += 1;
        self.members.insert(key.clone(), (stamp, charge));
        self.order.push_back((key, stamp));
        self.bytes += charge;
        while self.bytes > self.capacity {
            let Some((old, stamp)) = self.order.pop_front() else {
                break;
            };
            if self.members.get(&old).is_some_and(|(s, _)| *s == stamp) {
                self.remove(&old);
            }
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
        let mut ghost = Ghost::new(300);
        for key in 0..5u32 {
            ghost.insert(key, 100);
        }
        assert!(!ghost.remove(&0) && !ghost.remove(&1));
        assert!(ghost.remove(&4));
        assert!(!ghost.remove(&4));
        for _ in 0..1000 {
            ghost.insert(7, 10);
            ghost.remove(&7);
        }
        assert!(ghost.order.len() < 100);
    }
}
