//! The global eviction of a shard: S3-FIFO over every user's records, in
//! one order, sparing the records of users at their floor while another
//! user has records to give (`policy`).
//!
//! How the floor is kept without giving up O(1) steps: a spared record at
//! the head of small moves to main (as a record read since it came in
//! does), once per insertion; one at the head of main with frequency zero
//! goes back to main's tail. A call visits each of main's positions at
//! most once (`spare` starts at their number), so it always ends: it
//! either takes a step (an eviction, a promotion or a lowered frequency,
//! of which there are at most as many as insertions and hits) or finds
//! that main has nothing to give. Spared records moved to the tail are not
//! visited again before every record ahead of them has been, so a run of
//! evictions passes over each spared record at most once per turn of
//! main: O(1) amortised while the givers' records are a fixed share of
//! main, O(records) for one call in the worst case (main all spared but
//! for its tail). Without floors nothing is spared and the steps are
//! S3-FIFO's own.

use std::hash::Hash;

use super::{is_entry, Shard};

impl<K: Hash + Eq + Clone, V: Eq> Shard<K, V> {
    /// Evicts until the shard is within its budget (or holds no record).
    pub(super) fn evict(&mut self) {
        self.clean_segments();
        while self.resident() > self.budget && self.evict_one() {}
        self.trim();
    }

    /// One step of S3-FIFO: from small while it holds more than 10% of
    /// the records' bytes (or main is empty), else from main. False if
    /// the shard holds no record. Floors are kept while some user gives;
    /// when none does, the budget wins.
    pub(super) fn evict_one(&mut self) -> bool {
        let floors = self.someone_gives();
        let small_target = (self.small.bytes + self.main.bytes) / 10;
        if self.small.bytes > small_target || self.main.bytes == 0 {
            // Never false while small holds a record: a spared one moves.
            return self.evict_small(floors);
        }
        // Main may hold only spared records while small holds a giver's.
        self.evict_main(floors) || self.evict_small(floors) || self.evict_main(false)
    }

    /// True when some user holds records above its floor here.
    fn someone_gives(&self) -> bool {
        self.users
            .iter()
            .zip(&self.limits)
            .any(|(user, limits)| user.entries > 0 && !limits.spares(user.value_bytes))
    }

    /// True when `floors` apply and `user` is at or below its floor.
    fn spared(&self, floors: bool, user: u8) -> bool {
        let user = usize::from(user);
        floors && self.limits[user].spares(self.users[user].value_bytes)
    }

    /// The head of small goes to main if it was read since insertion or
    /// its user is spared, otherwise out (its key to the ghost). False if
    /// small is empty.
    fn evict_small(&mut self, floors: bool) -> bool {
        while let Some((key, stamp)) = self.small.pop() {
            let Some(entry) = self.map.get(&key).filter(|e| is_entry(e, stamp, false)) else {
                continue;
            };
            let (charge, freq) = (entry.charge(), entry.freq);
            let spared = self.spared(floors, entry.user);
            self.small.bytes -= charge;
            if freq > 0 || spared {
                if let Some(entry) = self.map.get_mut(&key) {
                    entry.freq = 0;
                    entry.in_main = true;
                }
                self.repack(&key);
                self.main.bytes += charge;
                self.main.push(key, stamp);
            } else if let Some(entry) = self.take(&key) {
                self.users[usize::from(entry.user)].evictions += 1;
                // As many bytes of keys as main's share of the records.
                let capacity = (self.small.bytes + self.main.bytes) * 9 / 10;
                self.ghost.insert(key, charge, capacity);
            }
            return true;
        }
        false
    }

    /// The head of main goes back to the tail with its frequency lowered
    /// if it is not zero, or as it is if its user is spared, otherwise out.
    /// False if main is empty or every record in it is spared.
    fn evict_main(&mut self, floors: bool) -> bool {
        // Each position is passed over at most once (see the module docs).
        let mut spare = self.main.positions();
        while let Some((key, stamp)) = self.main.pop() {
            let Some(entry) = self.map.get(&key).filter(|e| is_entry(e, stamp, true)) else {
                continue;
            };
            let (freq, user) = (entry.freq, entry.user);
            if freq > 0 {
                if let Some(entry) = self.map.get_mut(&key) {
                    entry.freq -= 1;
                }
                self.repack(&key);
                self.main.push(key, stamp);
                return true;
            }
            if self.spared(floors, user) {
                self.main.push(key, stamp);
                if spare == 0 {
                    return false;
                }
                spare -= 1;
                continue;
            }
            if let Some(entry) = self.take(&key) {
                self.main.bytes -= entry.charge();
                self.users[usize::from(user)].evictions += 1;
            }
            return true;
        }
        false
    }
}
