//! [`SharedCache`]: one [`Cache`] whose byte budget and eviction order
//! several users share (the SSD tier's records, search's blocks), each
//! through a `UserCache` handle (`handle`) and each counted on its own.
//!
//! A user's keys are namespaced by its [`CacheUser`] ([`SharedKey`]), so
//! keys of different users never collide. Keys and versions are stored as
//! words (the handle's `CacheKey`, `CacheVersion`), which must be
//! one-to-one with the user's own, so that a lookup still hits only its
//! exact version.

use std::fmt;
use std::sync::Arc;

use parking_lot::Mutex;

use super::cache::Cache;
use super::policy::{validate, LimitsError, UserLimits};
use super::stats::CacheStats;
use super::user::{CacheUser, MAX_USERS};

/// A key of a shared cache: its user, then the user's key as words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct SharedKey {
    pub(super) user: CacheUser,
    pub(super) words: [u64; 3],
}

/// A version of a shared cache: the user's version as words.
pub(super) type SharedVersion = [u64; 2];

/// Each shard of a shared cache gets at least this much of the budget,
/// so that large values (search's 64 KiB blocks) fit many times over.
const MIN_SHARE: u64 = 1 << 20;

/// Most shards of a shared cache.
const MAX_SHARDS: u64 = 16;

struct Inner {
    cache: Cache<SharedKey, SharedVersion>,
    /// Names of the users handed out, slot `i` being user `i + 1` (user 0
    /// is the cache's own, unused here).
    names: Mutex<Vec<String>>,
    /// Each user's floor and ceiling (by `CacheUser` index), fixed at
    /// construction.
    limits: [UserLimits; MAX_USERS],
}

/// One byte-budgeted cache that several users share (see the module
/// docs). Cheap to clone: clones are the same cache.
#[derive(Clone)]
pub struct SharedCache {
    inner: Arc<Inner>,
}

impl SharedCache {
    /// A shared cache of `budget` bytes (the budget covers every user's
    /// records and the cache's tables and queues, as [`Cache`]'s does), in
    /// up to 16 shards of at least 1 MiB each.
    pub fn new(budget: u64) -> SharedCache {
        SharedCache::build(budget, Vec::new(), [UserLimits::default(); MAX_USERS])
    }

    /// A shared cache of `budget` bytes ([`new`](Self::new)) whose users
    /// named in `limits` are handed out first, in that order, each with its
    /// floor and ceiling (`policy`: each shard keeps its share of them).
    /// Refused when a floor is over its ceiling, a ceiling over the budget,
    /// the floors add up to more than the budget, or a name repeats.
    pub fn with_limits(
        budget: u64,
        limits: &[(&str, UserLimits)],
    ) -> Result<SharedCache, LimitsError> {
        validate(budget, limits, MAX_USERS - 1)?;
        let names = limits.iter().map(|(name, _)| (*name).to_owned()).collect();
        let mut by_user = [UserLimits::default(); MAX_USERS];
        // Slot `i` is user `i + 1` (see `user`); at most seven, validated.
        for (slot, (_, user)) in by_user.iter_mut().skip(1).zip(limits) {
            *slot = *user;
        }
        Ok(SharedCache::build(budget, names, by_user))
    }

    fn build(budget: u64, names: Vec<String>, limits: [UserLimits; MAX_USERS]) -> SharedCache {
        let fit = (budget / MIN_SHARE).clamp(1, MAX_SHARDS);
        let cache = Cache::with_shards(budget, 1usize << fit.ilog2());
        for (user, limits) in (0u8..).map(CacheUser).zip(limits) {
            if limits != UserLimits::default() {
                cache.set_limits(user, limits);
            }
        }
        SharedCache {
            inner: Arc::new(Inner {
                cache,
                names: Mutex::new(names),
                limits,
            }),
        }
    }

    /// `user`'s floor and ceiling (none unless set by
    /// [`with_limits`](Self::with_limits)).
    pub fn limits(&self, user: CacheUser) -> UserLimits {
        (self.inner.limits.get(user.index()).copied()).unwrap_or_default()
    }

    /// The user called `name`: the one handed out before under that name,
    /// or a new one. `None` once the cache serves its most users (seven).
    pub fn user(&self, name: &str) -> Option<CacheUser> {
        let mut names = self.inner.names.lock();
        let slot = match names.iter().position(|n| n == name) {
            Some(slot) => slot,
            None if names.len() + 1 < MAX_USERS => {
                names.push(name.to_owned());
                names.len() - 1
            }
            None => return None,
        };
        u8::try_from(slot + 1).ok().map(CacheUser)
    }

    /// The byte budget every user shares.
    pub fn budget(&self) -> u64 {
        self.inner.cache.stats().budget
    }

    /// Totals over every user: `bytes` is the cache's resident memory
    /// (records, tables, queues), at most the budget.
    pub fn stats(&self) -> CacheStats {
        self.inner.cache.stats()
    }

    /// Each named user's counters and limits, in the order they were
    /// handed out, from one pass over the cache. A user's `bytes` are its records' plus its
    /// share of the tables and queues (in proportion to its records), so
    /// the users' `bytes` add up to about the total (rounded down); its
    /// `budget` is the shared budget.
    pub fn users(&self) -> Vec<(String, CacheStats)> {
        let names = self.inner.names.lock().clone();
        let (total, users) = self.inner.cache.stats_by_user();
        names
            .into_iter()
            .zip(users.into_iter().skip(1))
            .zip(self.inner.limits.iter().skip(1))
            .map(|((name, user), limits)| (name, with_overhead(user, &total, *limits)))
            .collect()
    }

    /// One user's counters, as [`users`](Self::users) gives them.
    pub fn user_stats(&self, user: CacheUser) -> CacheStats {
        let (total, users) = self.inner.cache.stats_by_user();
        users
            .get(user.index())
            .map(|u| with_overhead(*u, &total, self.limits(user)))
            .unwrap_or_default()
    }

    pub(super) fn cache(&self) -> &Cache<SharedKey, SharedVersion> {
        &self.inner.cache
    }
}

/// `user`'s figures with its share of the memory beyond the records
/// (tables, queues, ghost), in proportion to its records, and its limits.
fn with_overhead(mut user: CacheStats, total: &CacheStats, limits: UserLimits) -> CacheStats {
    user.shared = true;
    (user.floor, user.ceiling) = (limits.floor, limits.ceiling);
    let overhead = total.bytes.saturating_sub(total.value_bytes);
    if total.entries > 0 {
        let share = u128::from(overhead) * u128::from(user.entries) / u128::from(total.entries);
        user.bytes += u64::try_from(share).unwrap_or(overhead);
    }
    user
}

/// Two handles are equal when they are the same cache.
impl PartialEq for SharedCache {
    fn eq(&self, other: &SharedCache) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl Eq for SharedCache {}

impl fmt::Debug for SharedCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedCache")
            .field("budget", &self.budget())
            .field("users", &*self.inner.names.lock())
            .finish()
    }
}
