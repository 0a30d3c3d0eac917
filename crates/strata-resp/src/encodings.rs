//! Redis's thresholds between a collection's packed encoding (listpack,
//! intset) and its large one (chunk records, `strata_kv::large`), settable
//! with `CONFIG SET`:
//!
//! - a hash is converted when it gets more than `hash-max-listpack-entries`
//!   fields or a field or value longer than `hash-max-listpack-value`
//!   bytes;
//! - a set stays packed while it holds only integers and at most
//!   `set-max-intset-entries` of them (Redis's intset), or at most
//!   `set-max-listpack-entries` members none longer than
//!   `set-max-listpack-value` bytes (Redis 7.2's listpack);
//! - a sorted set is converted when it gets more than
//!   `zset-max-listpack-entries` members or a member longer than
//!   `zset-max-listpack-value` bytes;
//! - a list is converted when it passes `list-max-listpack-size`: a
//!   negative value -1..-5 limits its packed bytes to 4, 8, 16, 32 or 64
//!   KiB (below -5 as -5), a positive one its elements (0 as 1; and its
//!   bytes to 8 KiB, Redis's safety limit).
//!
//! As in Redis, a converted collection stays large until it is deleted.

use std::sync::atomic::{AtomicU64, Ordering};

/// A threshold, by its `CONFIG` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Threshold {
    /// `hash-max-listpack-entries`.
    HashEntries,
    /// `hash-max-listpack-value`.
    HashValue,
    /// `set-max-intset-entries`.
    SetIntsetEntries,
    /// `set-max-listpack-entries`.
    SetEntries,
    /// `set-max-listpack-value`.
    SetValue,
    /// `zset-max-listpack-entries`.
    ZsetEntries,
    /// `zset-max-listpack-value`.
    ZsetValue,
    /// `list-max-listpack-size` (signed, stored as its two's complement).
    ListSize,
}

/// Every threshold with its `CONFIG` name and Redis's default.
const THRESHOLDS: [(Threshold, &str, u64); 8] = [
    (Threshold::HashEntries, "hash-max-listpack-entries", 128),
    (Threshold::HashValue, "hash-max-listpack-value", 64),
    (Threshold::SetIntsetEntries, "set-max-intset-entries", 512),
    (Threshold::SetEntries, "set-max-listpack-entries", 128),
    (Threshold::SetValue, "set-max-listpack-value", 64),
    (Threshold::ZsetEntries, "zset-max-listpack-entries", 128),
    (Threshold::ZsetValue, "zset-max-listpack-value", 64),
    (Threshold::ListSize, "list-max-listpack-size", -2i64 as u64),
];

impl Threshold {
    /// The threshold called `name` in `CONFIG` (lower case).
    pub fn named(name: &str) -> Option<Self> {
        THRESHOLDS
            .iter()
            .find(|(_, n, _)| *n == name)
            .map(|(t, _, _)| *t)
    }

    /// Its `CONFIG` name.
    pub fn name(self) -> &'static str {
        THRESHOLDS[self as usize].1
    }

    /// Whether the value is signed (`list-max-listpack-size`).
    pub fn signed(self) -> bool {
        self == Self::ListSize
    }

    /// Every `CONFIG` name, in declaration order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        THRESHOLDS.iter().map(|(_, n, _)| *n)
    }
}

/// The live thresholds (Redis's defaults until changed).
#[derive(Debug)]
pub struct Encodings {
    values: [AtomicU64; THRESHOLDS.len()],
}

impl Default for Encodings {
    fn default() -> Self {
        Self {
            values: THRESHOLDS.map(|(_, _, default)| AtomicU64::new(default)),
        }
    }
}

/// Limits of a packed collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedLimits {
    /// Most entries (fields, members) a packed collection holds.
    pub entries: u64,
    /// Longest element (field, value, member) it holds, in bytes.
    pub value: u64,
    /// Most entries when every element is an integer (a set's intset;
    /// 0 where there is no such encoding).
    pub integers: u64,
}

impl PackedLimits {
    /// Whether `entries` entries with their longest element of `longest`
    /// bytes stay packed (integers aside).
    pub fn fits(&self, entries: usize, longest: usize) -> bool {
        entries as u64 <= self.entries && longest as u64 <= self.value
    }

    /// Whether `elements`, flattened entries of `width` elements each,
    /// stay packed.
    pub fn fits_elements<E: AsRef<[u8]>>(&self, elements: &[E], width: usize) -> bool {
        let entries = elements.len() / width.max(1);
        let longest = elements.iter().map(|e| e.as_ref().len()).max();
        self.fits(entries, longest.unwrap_or(0)) || self.intset(entries, elements)
    }

    /// Whether a packed set of these members is Redis's intset: only
    /// integers, no more than `integers` of them.
    pub fn intset<E: AsRef<[u8]>>(&self, entries: usize, members: &[E]) -> bool {
        entries as u64 <= self.integers && members.iter().all(|m| is_integer(m.as_ref()))
    }
}

/// Whether `s` is an integer as Redis's intset holds them: a 64-bit value
/// in its canonical decimal form (no sign `+`, no leading zero).
pub fn is_integer(s: &[u8]) -> bool {
    if s.is_empty() || s.len() > 20 {
        return false;
    }
    let Some(n) = std::str::from_utf8(s)
        .ok()
        .and_then(|t| t.parse::<i64>().ok())
    else {
        return false;
    };
    itoa::Buffer::new().format(n).as_bytes() == s
}

/// Redis's byte limit of a list node when the size is given in entries.
const LIST_SAFETY_BYTES: u64 = 8192;

/// When a packed list is converted (`list-max-listpack-size`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListLimit {
    /// Most packed bytes.
    pub bytes: u64,
    /// Most elements.
    pub entries: u64,
}

impl ListLimit {
    /// The limit `list-max-listpack-size` = `fill` sets.
    pub fn of(fill: i64) -> Self {
        match fill {
            ..=-1 => Self {
                bytes: 4096 << (fill.unsigned_abs().min(5) - 1),
                entries: u64::MAX,
            },
            _ => Self {
                bytes: LIST_SAFETY_BYTES,
                entries: fill.max(1) as u64,
            },
        }
    }

    /// Whether `entries` elements of `bytes` packed bytes stay packed.
    pub fn fits(&self, entries: u64, bytes: u64) -> bool {
        entries <= self.entries && bytes <= self.bytes
    }
}

impl Encodings {
    /// A threshold's value as `CONFIG GET` shows it.
    pub fn shown(&self, t: Threshold) -> String {
        match t.signed() {
            true => (self.get(t) as i64).to_string(),
            false => self.get(t).to_string(),
        }
    }

    /// `list-max-listpack-size`.
    pub fn list_limit(&self) -> ListLimit {
        ListLimit::of(self.get(Threshold::ListSize) as i64)
    }

    /// A threshold's value.
    pub fn get(&self, t: Threshold) -> u64 {
        self.values[t as usize].load(Ordering::Relaxed)
    }

    /// Sets a threshold.
    pub fn set(&self, t: Threshold, n: u64) {
        self.values[t as usize].store(n, Ordering::Relaxed);
    }

    /// `hash-max-listpack-entries` and `hash-max-listpack-value`.
    pub fn hash(&self) -> PackedLimits {
        PackedLimits {
            entries: self.get(Threshold::HashEntries),
            value: self.get(Threshold::HashValue),
            integers: 0,
        }
    }

    /// `set-max-listpack-entries`, `set-max-listpack-value` and
    /// `set-max-intset-entries`.
    pub fn set_limits(&self) -> PackedLimits {
        PackedLimits {
            entries: self.get(Threshold::SetEntries),
            value: self.get(Threshold::SetValue),
            integers: self.get(Threshold::SetIntsetEntries),
        }
    }

    /// `zset-max-listpack-entries` and `zset-max-listpack-value`.
    pub fn zset(&self) -> PackedLimits {
        PackedLimits {
            entries: self.get(Threshold::ZsetEntries),
            value: self.get(Threshold::ZsetValue),
            integers: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_canonical_64_bit_decimals() {
        for yes in [
            "0",
            "-1",
            "42",
            "9223372036854775807",
            "-9223372036854775808",
        ] {
            assert!(is_integer(yes.as_bytes()), "{yes}");
        }
        for no in [
            "",
            "+1",
            "01",
            "-0",
            "1.0",
            " 1",
            "9223372036854775808",
            "x",
        ] {
            assert!(!is_integer(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn sets_stay_packed_as_intset_or_listpack() {
        let limits = PackedLimits {
            entries: 2,
            value: 3,
            integers: 4,
        };
        assert!(limits.fits_elements(&["1", "2", "3", "4"], 1)); // intset
        assert!(!limits.fits_elements(&["1", "2", "3", "4", "5"], 1));
        assert!(limits.fits_elements(&["a", "2"], 1)); // listpack
        assert!(!limits.fits_elements(&["a", "2", "3"], 1));
        assert!(!limits.fits_elements(&["abcd"], 1));
        assert!(limits.fits_elements(&["12345"], 1)); // a long integer
        assert_eq!(ListLimit::of(-2).bytes, 8192);
        assert_eq!(ListLimit::of(-9).bytes, 65536);
        assert_eq!(ListLimit::of(0).entries, 1);
        assert!(ListLimit::of(3).fits(3, 100) && !ListLimit::of(3).fits(4, 100));
        let shown = Encodings::default().shown(Threshold::ListSize);
        assert_eq!(shown, "-2");
        let names: Vec<&str> = Threshold::names().collect();
        assert_eq!(
            Threshold::named(names[2]).map(Threshold::name),
            Some(names[2])
        );
    }
}
