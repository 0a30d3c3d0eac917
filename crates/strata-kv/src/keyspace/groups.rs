//! [`Keyspace::group_keys`], [`Keyspace::group_len`] and
//! [`Keyspace::keys_in_group`]: turning key groups on and reading them
//! (see `groups` for what they are and why they are exact).

use std::ops::Deref;
use std::sync::Arc;

use super::core::Keyspace;
use crate::chunk::Namespace;
use crate::context::Ctx;
use crate::groups::{Classify, GroupCounts, ShardGroups};
use crate::shard::ShardInner;

impl Keyspace {
    /// Turns key groups on: `classify` gives each user key a group below
    /// `groups`. Indexes every user key held now with every shard
    /// write-locked (in ascending order, as every multi-shard lock is
    /// taken), so readers see all of it or none, then follows every
    /// change. False, with nothing changed, when they were already on.
    pub fn group_keys(&self, classify: Classify, groups: u16) -> bool {
        let ctx = &self.ctx;
        let mut shards: Vec<_> = (0..self.shard_count())
            .map(|i| self.shard_at(i).write())
            .collect();
        if ctx.groups.get().is_some() {
            return false;
        }
        let counts = Arc::new(GroupCounts::new(classify, groups));
        for shard in &mut shards {
            let built = index_shard(ctx, shard, counts.clone());
            shard.groups = Some(built);
        }
        ctx.groups.set(counts).is_ok()
    }

    /// How many keys `group` holds (expired ones not yet reclaimed
    /// included); `None` while key groups are off. One relaxed load.
    pub fn group_len(&self, group: u16) -> Option<u64> {
        self.ctx.groups.get().map(|counts| counts.len(group))
    }

    /// Calls `f` with at most `count` keys of `group` (expired ones not
    /// yet reclaimed included), taking each shard's read lock in turn;
    /// false, calling nothing, while key groups are off. MUST NOT be
    /// called while holding a shard lock.
    pub fn keys_in_group(&self, group: u16, count: usize, f: &mut dyn FnMut(&[u8])) -> bool {
        if self.ctx.groups.get().is_none() {
            return false;
        }
        // Each read lock is taken as the walk comes to its shard.
        let shards = (0..self.shard_count()).map(|i| self.shard_at(i).read());
        keys_from(&self.ctx, shards, group, count, f);
        true
    }
}

/// Calls `f` with at most `count` keys of `group` from `shards`, in turn.
pub(crate) fn keys_from<G: Deref<Target = ShardInner>>(
    ctx: &Ctx,
    shards: impl Iterator<Item = G>,
    group: u16,
    count: usize,
    f: &mut dyn FnMut(&[u8]),
) {
    let mut left = count;
    for shard in shards {
        if left == 0 {
            return;
        }
        shard_keys(ctx, &shard, group, &mut |key| {
            f(key);
            left -= 1;
            left > 0
        });
    }
}

/// The groups of every user key `shard` holds, added to `counts`.
fn index_shard(ctx: &Ctx, shard: &ShardInner, counts: Arc<GroupCounts>) -> ShardGroups {
    let mut built = ShardGroups::new(counts);
    for (_, loc) in shard.index.items_in(0, shard.index.capacity()) {
        let rec = shard.arena.record(loc);
        if Namespace::of(rec.header.flags) == Namespace::User {
            built.add(rec.key(), ctx.record_hash(&rec));
        }
    }
    built
}

/// Calls `f` with each user key of `group` in `shard` until it returns
/// false; false when it did.
fn shard_keys(ctx: &Ctx, shard: &ShardInner, group: u16, f: &mut dyn FnMut(&[u8]) -> bool) -> bool {
    let Some(groups) = &shard.groups else {
        return true;
    };
    let mut more = true;
    for hash in groups.hashes_in(group) {
        // Every entry with this hash: the probe goes on while the
        // predicate says no. Entries sharing only the hash's tag, or a
        // hash with another group's key, are not this (group, hash)'s.
        shard.index.find(hash, |loc| {
            let rec = shard.arena.record(loc);
            let ours = Namespace::of(rec.header.flags) == Namespace::User
                && ctx.record_hash(&rec) == hash
                && groups.counts().group_of(rec.key()) == Some(group);
            if ours {
                more = f(rec.key());
            }
            !more
        });
        if !more {
            return false;
        }
    }
    true
}

#[cfg(test)]
#[path = "groups_tests.rs"]
mod tests;
