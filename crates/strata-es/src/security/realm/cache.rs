//! [`CredentialCache`]: remembers passwords that passed bcrypt, as
//! Elasticsearch's realm cache does (bcrypt costs tens of milliseconds at
//! the default cost; a client sends the same credentials with every
//! request). An entry holds a salted SHA-256 of the password, never the
//! password, and the stored hash it was checked against, so a changed
//! password misses. Entries live `ttl` (20 minutes, Elasticsearch's
//! `cache.ttl`); the cache holds at most `capacity` users.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// Elasticsearch's default `cache.ttl`.
pub const DEFAULT_TTL: Duration = Duration::from_secs(20 * 60);
/// Most users remembered at once.
pub const DEFAULT_CAPACITY: usize = 10_000;

struct Entry {
    stored_hash: String,
    digest: [u8; 32],
    at: Instant,
}

/// See the module docs.
pub struct CredentialCache {
    salt: [u8; 16],
    ttl: Duration,
    capacity: usize,
    entries: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for CredentialCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CredentialCache")
            .field("ttl", &self.ttl)
            .field("entries", &self.entries.lock().len())
            .finish_non_exhaustive()
    }
}

impl CredentialCache {
    /// An empty cache.
    pub fn new(ttl: Duration, capacity: usize) -> CredentialCache {
        let mut salt = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut salt);
        CredentialCache {
            salt,
            ttl,
            capacity: capacity.max(1),
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn digest(&self, user: &str, password: &[u8]) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.salt);
        h.update(user.as_bytes());
        h.update([0]);
        h.update(password);
        h.finalize().into()
    }

    /// Whether `password` passed bcrypt against `stored_hash` within the ttl.
    pub fn verified(&self, user: &str, password: &[u8], stored_hash: &str) -> bool {
        let digest = self.digest(user, password);
        let entries = self.entries.lock();
        entries.get(user).is_some_and(|e| {
            e.stored_hash == stored_hash
                && e.at.elapsed() < self.ttl
                && constant_time_eq(&e.digest, &digest)
        })
    }

    /// Remembers that `password` passed bcrypt against `stored_hash`.
    pub fn remember(&self, user: &str, password: &[u8], stored_hash: &str) {
        let digest = self.digest(user, password);
        let mut entries = self.entries.lock();
        if entries.len() >= self.capacity && !entries.contains_key(user) {
            let ttl = self.ttl;
            entries.retain(|_, e| e.at.elapsed() < ttl);
            if entries.len() >= self.capacity {
                // Still full of live entries: start over rather than grow.
                entries.clear();
            }
        }
        entries.insert(
            user.to_string(),
            Entry {
                stored_hash: stored_hash.to_string(),
                digest,
                at: Instant::now(),
            },
        );
    }

    /// Forgets everything (the users file changed).
    pub fn clear(&self) {
        self.entries.lock().clear();
    }

    /// Users remembered.
    pub fn len(&self) -> usize {
        self.entries.lock().len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Compares without stopping at the first difference.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_until_the_hash_changes_or_the_ttl_passes() {
        let cache = CredentialCache::new(DEFAULT_TTL, 2);
        assert!(!cache.verified("ann", b"pw", "h1"));
        cache.remember("ann", b"pw", "h1");
        assert!(cache.verified("ann", b"pw", "h1"));
        assert!(!cache.verified("ann", b"other", "h1"));
        assert!(!cache.verified("ann", b"pw", "h2"));
        cache.remember("bob", b"pw", "h1");
        cache.remember("cid", b"pw", "h1");
        assert!(cache.len() <= 2, "bounded");
        let short = CredentialCache::new(Duration::ZERO, 10);
        short.remember("ann", b"pw", "h1");
        assert!(!short.verified("ann", b"pw", "h1"));
        cache.clear();
        assert!(cache.is_empty());
        assert!(constant_time_eq(b"ab", b"ab") && !constant_time_eq(b"ab", b"ac"));
    }
}
