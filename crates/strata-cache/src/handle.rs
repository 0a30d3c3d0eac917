//! [`UserCache`]: what an engine caches through: a cache of its own, or its
//! share of a [`SharedCache`] under its [`CacheUser`], with one API and one
//! set of counters either way.
//!
//! In a shared cache a key is stored as three words and a version as two
//! ([`CacheKey`], [`CacheVersion`]); both conversions must be one-to-one,
//! so that a lookup hits only its own key's exact version there as well.

use std::hash::Hash;
use std::marker::PhantomData;

use bytes::Bytes;

use super::cache::Cache;
use super::shared::{SharedCache, SharedKey};
use super::stats::CacheStats;
use super::user::CacheUser;

/// A key a [`UserCache`] can keep in a shared cache: three words, one to
/// one with the key.
pub trait CacheKey: Hash + Eq + Clone {
    /// The key as words; distinct keys give distinct words.
    fn to_words(&self) -> [u64; 3];
    /// The key [`to_words`](Self::to_words) gave `words` for.
    fn from_words(words: [u64; 3]) -> Self;
}

/// A version a [`UserCache`] can keep in a shared cache: two words, one to
/// one with the version.
pub trait CacheVersion: Eq {
    /// The version as words; distinct versions give distinct words.
    fn to_words(&self) -> [u64; 2];
}

/// A value that is one word, one to one (a part of a version).
pub trait Word: Copy + Eq {
    /// The value as a word; distinct values give distinct words.
    fn word(self) -> u64;
}

impl Word for u64 {
    fn word(self) -> u64 {
        self
    }
}

impl CacheKey for u64 {
    fn to_words(&self) -> [u64; 3] {
        [*self, 0, 0]
    }

    fn from_words(words: [u64; 3]) -> u64 {
        words[0]
    }
}

impl CacheKey for (u64, u64, u64) {
    fn to_words(&self) -> [u64; 3] {
        [self.0, self.1, self.2]
    }

    fn from_words([a, b, c]: [u64; 3]) -> (u64, u64, u64) {
        (a, b, c)
    }
}

impl CacheVersion for () {
    fn to_words(&self) -> [u64; 2] {
        [0, 0]
    }
}

impl<A: Word, B: Word> CacheVersion for (A, B) {
    fn to_words(&self) -> [u64; 2] {
        [self.0.word(), self.1.word()]
    }
}

/// A user's view of a cache (see the module docs). Thread-safe.
pub struct UserCache<K, V = ()> {
    backend: Backend<K, V>,
}

enum Backend<K, V> {
    /// A cache of its own: the user is the cache's own.
    Own(Cache<K, V>),
    /// Its share of a shared cache, its keys namespaced by `user`.
    Shared {
        cache: SharedCache,
        user: CacheUser,
        types: PhantomData<fn() -> (K, V)>,
    },
}

impl<K: CacheKey, V: CacheVersion> UserCache<K, V> {
    /// A cache of `budget` bytes of its own ([`Cache::new`]).
    pub fn new(budget: u64) -> UserCache<K, V> {
        UserCache {
            backend: Backend::Own(Cache::new(budget)),
        }
    }

    /// A cache of `budget` bytes of its own, in `shards` shards
    /// ([`Cache::with_shards`]).
    pub fn own(budget: u64, shards: usize) -> UserCache<K, V> {
        UserCache {
            backend: Backend::Own(Cache::with_shards(budget, shards)),
        }
    }

    /// The user `name`'s share of `cache` ([`SharedCache::user`]); `None`
    /// once the cache serves its most users.
    pub fn shared(cache: &SharedCache, name: &str) -> Option<UserCache<K, V>> {
        let user = cache.user(name)?;
        Some(UserCache {
            backend: Backend::Shared {
                cache: cache.clone(),
                user,
                types: PhantomData,
            },
        })
    }

    /// [`Cache::get`]: the record `version` of `key`, counted as a hit or a
    /// miss.
    pub fn get(&self, key: &K, version: &V) -> Option<Bytes> {
        self.lookup(key, version, true)
    }

    /// [`Cache::get_again`]: a look not counted.
    pub fn get_again(&self, key: &K, version: &V) -> Option<Bytes> {
        self.lookup(key, version, false)
    }

    fn lookup(&self, key: &K, version: &V, count: bool) -> Option<Bytes> {
        match &self.backend {
            Backend::Own(cache) => cache.get_for(CacheUser::OWN, key, version, count),
            Backend::Shared { cache, user, .. } => {
                cache
                    .cache()
                    .get_for(*user, &named(*user, key), &version.to_words(), count)
            }
        }
    }

    /// Counts the miss [`get`](Self::get) counted on `key` as a hit: a
    /// second look ([`get_again`](Self::get_again)) found the record,
    /// which another thread read while this one waited for it.
    pub fn recount_as_hit(&self, key: &K) {
        match &self.backend {
            Backend::Own(cache) => cache.recount_as_hit(CacheUser::OWN, key),
            Backend::Shared { cache, user, .. } => {
                cache.cache().recount_as_hit(*user, &named(*user, key));
            }
        }
    }

    /// [`Cache::insert`], the record counted on this user.
    pub fn insert(&self, key: K, version: V, value: Bytes) -> bool {
        match &self.backend {
            Backend::Own(cache) => cache.insert_for(CacheUser::OWN, key, version, value),
            Backend::Shared { cache, user, .. } => {
                let key = named(*user, &key);
                cache
                    .cache()
                    .insert_for(*user, key, version.to_words(), value)
            }
        }
    }

    /// [`Cache::revise`].
    pub fn revise(&self, key: &K, from: &V, to: V) -> bool {
        match &self.backend {
            Backend::Own(cache) => cache.revise(key, from, to),
            Backend::Shared { cache, user, .. } => {
                cache
                    .cache()
                    .revise(&named(*user, key), &from.to_words(), to.to_words())
            }
        }
    }

    /// [`Cache::invalidate`].
    pub fn invalidate(&self, key: &K, version: &V) {
        match &self.backend {
            Backend::Own(cache) => cache.invalidate(key, version),
            Backend::Shared { cache, user, .. } => cache
                .cache()
                .invalidate(&named(*user, key), &version.to_words()),
        }
    }

    /// [`Cache::remove_if`] over this user's records only.
    pub fn remove_if(&self, doomed: impl Fn(&K) -> bool) {
        match &self.backend {
            Backend::Own(cache) => cache.remove_if(doomed),
            Backend::Shared { cache, user, .. } => cache
                .cache()
                .remove_if(|k| k.user == *user && doomed(&K::from_words(k.words))),
        }
    }

    /// This user's counters. Of a cache of its own: the cache's
    /// ([`Cache::stats`]); of a shared one: [`SharedCache::user_stats`],
    /// whose `budget` is the shared budget.
    pub fn stats(&self) -> CacheStats {
        match &self.backend {
            Backend::Own(cache) => cache.stats(),
            Backend::Shared { cache, user, .. } => cache.user_stats(*user),
        }
    }

    /// The shared cache this user draws from, if it does.
    pub fn shared_cache(&self) -> Option<&SharedCache> {
        match &self.backend {
            Backend::Own(_) => None,
            Backend::Shared { cache, .. } => Some(cache),
        }
    }
}

/// `key` in `user`'s namespace of a shared cache.
fn named<K: CacheKey>(user: CacheUser, key: &K) -> SharedKey {
    SharedKey {
        user,
        words: key.to_words(),
    }
}
