//! Meta-protocol item marks the engine does not store: "stale" (set by
//! `md I` / `ms I`) and "recache token sent" (the `W` a client won through
//! `mg N`/`R` or a stale hit, after which others see `Z`).
//!
//! A mark belongs to one version of an item, identified by its CAS: any
//! later write gives the item a new CAS and so silently clears the mark,
//! which is exactly memcached's behaviour (a new item starts unmarked). The
//! table is bounded: when full, an arbitrary mark is dropped, which at worst
//! lets a second client win a recache token or forgets a staleness flag.
//! Lock order: a shard lock may be held when this table's lock is taken,
//! never the reverse.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

/// Marks kept at most.
const MAX_MARKS: usize = 64 * 1024;

/// The marks of one item version.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mark {
    /// The item was invalidated; readers get `X`.
    pub stale: bool,
    /// A client already won the recache token; others get `Z`.
    pub token_sent: bool,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    cas: u64,
    mark: Mark,
}

/// The bounded table of marks, shared by all sessions.
#[derive(Debug, Default)]
pub struct MetaMarks {
    map: Mutex<HashMap<Vec<u8>, Entry>>,
    /// Lets readers skip the lock while no mark was ever set.
    used: AtomicBool,
}

/// What a reader should report for an item version, decided atomically.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Verdict {
    /// Report `Z`: another client holds the token.
    pub token_sent: bool,
    /// Report `X`.
    pub stale: bool,
    /// Report `W`: this client just won the token.
    pub won: bool,
}

impl MetaMarks {
    /// The mark of `key` at version `cas` (unmarked if none).
    pub fn get(&self, key: &[u8], cas: u64) -> Mark {
        if !self.used.load(Ordering::Relaxed) {
            return Mark::default();
        }
        match self.map.lock().get(key) {
            Some(e) if e.cas == cas => e.mark,
            _ => Mark::default(),
        }
    }

    /// Sets the mark of `key` at version `cas`, replacing any older one.
    pub fn set(&self, key: &[u8], cas: u64, mark: Mark) {
        let mut map = self.map.lock();
        if mark == Mark::default() {
            map.remove(key);
            return;
        }
        if map.len() >= MAX_MARKS && !map.contains_key(key) {
            if let Some(victim) = map.keys().next().cloned() {
                map.remove(&victim);
            }
        }
        map.insert(key.to_vec(), Entry { cas, mark });
        self.used.store(true, Ordering::Relaxed);
    }

    /// Decides the recache flags for a reader of `key` at version `cas`:
    /// the first reader of a stale item, or of one whose remaining TTL is
    /// below its `R` threshold (`wants_token`), wins the token; later
    /// readers see that it was sent.
    pub fn read(&self, key: &[u8], cas: u64, wants_token: bool) -> Verdict {
        if !wants_token && !self.used.load(Ordering::Relaxed) {
            return Verdict::default();
        }
        let mut map = self.map.lock();
        let mark = match map.get(key) {
            Some(e) if e.cas == cas => e.mark,
            _ => Mark::default(),
        };
        let won = !mark.token_sent && (mark.stale || wants_token);
        if won {
            if map.len() >= MAX_MARKS && !map.contains_key(key) {
                if let Some(victim) = map.keys().next().cloned() {
                    map.remove(&victim);
                }
            }
            let sent = Mark {
                token_sent: true,
                ..mark
            };
            map.insert(key.to_vec(), Entry { cas, mark: sent });
            self.used.store(true, Ordering::Relaxed);
        }
        Verdict {
            token_sent: mark.token_sent,
            stale: mark.stale,
            won,
        }
    }

    /// Number of marks held.
    pub fn len(&self) -> usize {
        self.map.lock().len()
    }

    /// True when no mark is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_belong_to_one_version() {
        let marks = MetaMarks::default();
        assert_eq!(marks.get(b"k", 1), Mark::default());
        marks.set(
            b"k",
            1,
            Mark {
                stale: true,
                token_sent: false,
            },
        );
        assert!(marks.get(b"k", 1).stale);
        assert!(!marks.get(b"k", 2).stale, "a new CAS is a new item");
    }

    #[test]
    fn first_reader_of_stale_item_wins_once() {
        let marks = MetaMarks::default();
        marks.set(
            b"k",
            7,
            Mark {
                stale: true,
                token_sent: false,
            },
        );
        assert_eq!(
            marks.read(b"k", 7, false),
            Verdict {
                token_sent: false,
                stale: true,
                won: true
            }
        );
        assert_eq!(
            marks.read(b"k", 7, false),
            Verdict {
                token_sent: true,
                stale: true,
                won: false
            }
        );
        assert_eq!(marks.read(b"k", 8, false), Verdict::default());
    }

    #[test]
    fn recache_threshold_wins_once() {
        let marks = MetaMarks::default();
        assert_eq!(marks.read(b"k", 3, false), Verdict::default());
        assert!(marks.read(b"k", 3, true).won);
        let again = marks.read(b"k", 3, true);
        assert!(!again.won && again.token_sent);
    }

    #[test]
    fn table_is_bounded() {
        let marks = MetaMarks::default();
        for i in 0..(MAX_MARKS + 10) {
            marks.set(
                format!("k{i}").as_bytes(),
                1,
                Mark {
                    stale: true,
                    token_sent: false,
                },
            );
        }
        assert_eq!(marks.len(), MAX_MARKS);
    }
}
