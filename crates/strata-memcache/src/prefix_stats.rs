//! [`PrefixStats`]: memcached's `stats detail` — gets, hits, sets and
//! deletes counted per key prefix (the part of a key before the first
//! `:`), recorded only while `stats detail on` is in force, shown by
//! `stats detail dump`, cleared by `stats reset`.
//!
//! Keys without the delimiter are not counted, as in memcached. Unlike
//! memcached, the number of prefixes is bounded ([`MAX_PREFIXES`]): once
//! full, new prefixes are not counted (and `stats detail dump` says how
//! many were left out), so a client cannot grow the table without limit.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use bytes::{BufMut, BytesMut};
use parking_lot::Mutex;

use crate::reply;

/// The prefix delimiter (memcached's `-D` default).
pub const DELIMITER: u8 = b':';

/// Most prefixes counted at once.
pub const MAX_PREFIXES: usize = 10_000;

#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    gets: u64,
    hits: u64,
    sets: u64,
    deletes: u64,
}

/// See the module docs.
#[derive(Debug, Default)]
pub struct PrefixStats {
    enabled: AtomicBool,
    prefixes: Mutex<HashMap<Vec<u8>, Counts>>,
    /// Records dropped because the table was full.
    left_out: AtomicU64,
}

impl PrefixStats {
    /// `stats detail on|off`.
    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
    }

    /// Whether recording is on.
    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// A retrieval of `key` (found or not).
    pub fn record_get(&self, key: &[u8], hit: bool) {
        self.record(key, |c| {
            c.gets += 1;
            c.hits += u64::from(hit);
        });
    }

    /// A storage request for `key`.
    pub fn record_set(&self, key: &[u8]) {
        self.record(key, |c| c.sets += 1);
    }

    /// A delete request for `key`.
    pub fn record_delete(&self, key: &[u8]) {
        self.record(key, |c| c.deletes += 1);
    }

    fn record(&self, key: &[u8], count: impl FnOnce(&mut Counts)) {
        if !self.enabled() {
            return;
        }
        let Some(end) = key.iter().position(|&b| b == DELIMITER) else {
            return;
        };
        let prefix = &key[..end];
        let mut prefixes = self.prefixes.lock();
        let full = prefixes.len() >= MAX_PREFIXES;
        match prefixes.get_mut(prefix) {
            Some(c) => count(c),
            None if !full => {
                let mut c = Counts::default();
                count(&mut c);
                prefixes.insert(prefix.to_vec(), c);
            }
            None => {
                self.left_out.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// `stats detail dump`: a `PREFIX` line per prefix (in byte order),
    /// then `END`.
    pub fn dump(&self, out: &mut BytesMut) {
        let mut rows: Vec<(Vec<u8>, Counts)> = self
            .prefixes
            .lock()
            .iter()
            .map(|(p, c)| (p.clone(), *c))
            .collect();
        rows.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        for (prefix, c) in rows {
            out.put_slice(b"PREFIX ");
            out.put_slice(&prefix);
            for (name, n) in [
                (&b" get "[..], c.gets),
                (b" hit ", c.hits),
                (b" set ", c.sets),
                (b" del ", c.deletes),
            ] {
                out.put_slice(name);
                reply::put_u64(out, n);
            }
            out.put_slice(b"\r\n");
        }
        let left_out = self.left_out.load(Ordering::Relaxed);
        if left_out > 0 {
            out.put_slice(b"STAT prefixes_left_out ");
            reply::put_u64(out, left_out);
            out.put_slice(b"\r\n");
        }
        out.put_slice(b"END\r\n");
    }

    /// `stats reset`: forgets every prefix.
    pub fn clear(&self) {
        self.prefixes.lock().clear();
        self.left_out.store(0, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump(s: &PrefixStats) -> String {
        let mut out = BytesMut::new();
        s.dump(&mut out);
        String::from_utf8(out.to_vec()).unwrap()
    }

    #[test]
    fn counts_per_prefix_only_while_enabled() {
        let s = PrefixStats::default();
        s.record_get(b"user:1", true);
        assert_eq!(dump(&s), "END\r\n", "off by default");
        s.set_enabled(true);
        s.record_get(b"user:1", true);
        s.record_get(b"user:2", false);
        s.record_set(b"user:3");
        s.record_delete(b"sess:a:b");
        s.record_set(b"nodelimiter");
        assert_eq!(
            dump(&s),
            "PREFIX sess get 0 hit 0 set 0 del 1\r\n\
             PREFIX user get 2 hit 1 set 1 del 0\r\n\
             END\r\n"
        );
        s.set_enabled(false);
        s.record_set(b"user:4");
        assert!(dump(&s).contains("user get 2 hit 1 set 1 del 0"));
        s.clear();
        assert_eq!(dump(&s), "END\r\n");
    }

    #[test]
    fn the_table_is_bounded() {
        let s = PrefixStats::default();
        s.set_enabled(true);
        for i in 0..MAX_PREFIXES + 5 {
            s.record_set(format!("p{i}:k").as_bytes());
        }
        s.record_set(b"p0:k");
        let out = dump(&s);
        assert_eq!(out.matches("PREFIX ").count(), MAX_PREFIXES);
        assert!(
            out.contains("STAT prefixes_left_out 5\r\n"),
            "{}",
            &out[out.len() - 80..]
        );
        assert!(out.contains("PREFIX p0 get 0 hit 0 set 2 del 0\r\n"));
    }
}
