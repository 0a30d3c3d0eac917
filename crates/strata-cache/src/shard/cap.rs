//! Ceilings: a user with a ceiling keeps a capped queue, the positions of
//! its records in the order they came in, from which an insert that takes
//! it over its ceiling evicts its own records before the global eviction
//! runs (`policy`). Only users with a ceiling pay for the queue.
//!
//! At the head of the capped queue a record read since (frequency above
//! zero) has its frequency lowered and goes round once more, as in main;
//! one at zero leaves. Each step lowers a frequency or evicts, so a call
//! ends after at most `MAX_FREQ + 1` passes over the user's records, and
//! the steps are O(1) amortised over insertions and hits. Positions of
//! records that left by another path are stale (`is_capped_at`) and
//! dropped when met, or by `compact_capped` once they outnumber the live.

use std::hash::Hash;

use super::{is_capped_at, Shard};
use crate::fifo::Fifo;
use crate::policy::ShareLimits;
use crate::user::CacheUser;

impl<K: Hash + Eq + Clone, V: Eq> Shard<K, V> {
    /// Sets `user`'s share of its floor and ceiling here. A user gaining a
    /// ceiling gets a capped queue of the records it holds (oldest first)
    /// and loses what is over the ceiling; one losing it, its queue.
    pub(crate) fn set_limits(&mut self, user: CacheUser, limits: ShareLimits) {
        let index = user.index();
        self.limits[index] = limits;
        if !limits.capped() {
            self.capped[index] = None;
            return;
        }
        let mut held: Vec<(K, u64)> = (self.map.iter())
            .filter(|(_, e)| e.user == user.0)
            .map(|(k, e)| (k.clone(), e.stamp))
            .collect();
        held.sort_unstable_by_key(|(_, stamp)| *stamp);
        let mut queue = Fifo::new();
        held.into_iter().for_each(|(k, s)| queue.push(k, s));
        self.capped[index] = Some(queue);
        self.cap(user);
        self.trim();
    }

    /// Adds a position of `key`'s record to `user`'s capped queue, if the
    /// user has one.
    pub(super) fn push_capped(&mut self, user: CacheUser, key: &K, stamp: u64) {
        if let Some(queue) = &mut self.capped[user.index()] {
            queue.push(key.clone(), stamp);
        }
    }

    /// Evicts `user`'s own records, oldest first, until it is within its
    /// ceiling here.
    pub(super) fn cap(&mut self, user: CacheUser) {
        let index = user.index();
        while self.limits[index].over(self.users[index].value_bytes) {
            let Some((key, stamp)) = self.capped[index].as_mut().and_then(Fifo::pop) else {
                return;
            };
            let Some(entry) = self.map.get_mut(&key) else {
                continue;
            };
            if entry.stamp != stamp || entry.user != user.0 {
                continue;
            }
            if entry.freq > 0 {
                entry.freq -= 1;
                self.push_capped(user, &key, stamp);
                continue;
            }
            if self.drop_record(&key).is_some() {
                self.users[index].evictions += 1;
            }
        }
    }

    /// Drops the stale positions of `user`'s capped queue once they
    /// outnumber its records (plus 32): O(1) amortised over the removals
    /// that made them stale.
    pub(super) fn compact_capped(&mut self, user: u8) {
        let live = self.users[usize::from(user)].entries;
        let Some(queue) = &mut self.capped[usize::from(user)] else {
            return;
        };
        if queue.positions() as u64 > 2 * live + 32 {
            let map = &self.map;
            queue.retain(|k, s| is_capped_at(map, k, s, user));
        }
    }
}
