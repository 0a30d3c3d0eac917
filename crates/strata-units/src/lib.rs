//! # strata-units: byte sizes as people write them
//!
//! One reading of sizes for every place Strata takes one: the config file
//! and `strata serve`'s flags (`dram_cache_size = "64mb"`), `strata job`
//! and `strata bench analytics` (`--dram-budget 1.5gb`), `strata advise`
//! (`--pmem-budget 0`). Units are binary and case-insensitive: `k`, `kb`
//! and `kib` all mean 1024 bytes, likewise `m`, `g` and `t`; `b` or no
//! unit means bytes; a decimal fraction is allowed (`1.5gb`). Overflowing
//! 64 bits is refused.
//!
//! - [`parse_bytes`]: any size, zero included (a budget of none).
//! - [`ByteSize`]: a size that must not be zero (a cache, a limit), with
//!   serde support for config files (a number of bytes or a string).
//! - [`human`]: a size for reports, `1.5 GiB`.
//!
//! This crate never depends on any other Strata crate.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// Units in the order [`ByteSize`]'s `Display` tries them.
const UNITS: [(&str, u64); 4] = [
    ("tb", 1 << 40),
    ("gb", 1 << 30),
    ("mb", 1 << 20),
    ("kb", 1 << 10),
];

fn multiplier(unit: &str) -> Option<u64> {
    match unit.to_ascii_lowercase().as_str() {
        "" | "b" => Some(1),
        "k" | "kb" | "kib" => Some(1 << 10),
        "m" | "mb" | "mib" => Some(1 << 20),
        "g" | "gb" | "gib" => Some(1 << 30),
        "t" | "tb" | "tib" => Some(1 << 40),
        _ => None,
    }
}

/// `text` as a number of bytes (zero allowed). Errors say what was wrong,
/// quoting `text`.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let unit = unit.trim();
    let invalid = || {
        format!(
            "invalid size `{text}`: expected a number with an optional unit (b, kb, mb, gb, tb), e.g. 64mb"
        )
    };
    if number.is_empty() {
        return Err(invalid());
    }
    let multiplier = multiplier(unit).ok_or_else(|| {
        format!("invalid size `{text}`: unknown unit `{unit}` (use b, kb, mb, gb or tb)")
    })?;
    let bytes = match number.split_once('.') {
        None => number
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(multiplier)),
        Some((whole, fraction)) => {
            let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
            if !digits(whole) || !digits(fraction) {
                return Err(invalid());
            }
            let value: f64 = number.parse().map_err(|_| invalid())?;
            let bytes = value * multiplier as f64;
            // The cast saturates; anything at or above 2^64 is refused.
            (bytes < u64::MAX as f64).then_some(bytes as u64)
        }
    };
    bytes.ok_or_else(|| format!("invalid size `{text}`: the number is too large"))
}

/// A number of bytes that is never zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteSize(u64);

impl ByteSize {
    /// `bytes` as a size; `None` for zero.
    pub const fn new(bytes: u64) -> Option<ByteSize> {
        if bytes == 0 {
            None
        } else {
            Some(ByteSize(bytes))
        }
    }

    /// `n` mebibytes (for defaults). The caller guarantees `n > 0` and no
    /// overflow.
    pub const fn mib(n: u64) -> ByteSize {
        ByteSize(n << 20)
    }

    /// `n` kibibytes (for defaults). The caller guarantees `n > 0` and no
    /// overflow.
    pub const fn kib(n: u64) -> ByteSize {
        ByteSize(n << 10)
    }

    /// The size in bytes.
    pub const fn bytes(self) -> u64 {
        self.0
    }
}

impl FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<ByteSize, String> {
        ByteSize::new(parse_bytes(text)?)
            .ok_or_else(|| format!("invalid size `{text}`: must be greater than zero"))
    }
}

impl fmt::Display for ByteSize {
    /// The largest unit that represents the size exactly (`1gb`, `1536kb`,
    /// `1000b`): what a config file would say.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, unit) in UNITS {
            if self.0 % unit == 0 {
                return write!(f, "{}{name}", self.0 / unit);
            }
        }
        write!(f, "{}b", self.0)
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ByteSize, D::Error> {
        deserializer.deserialize_any(SizeVisitor)
    }
}

struct SizeVisitor;

impl Visitor<'_> for SizeVisitor {
    type Value = ByteSize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a size in bytes (1073741824) or with a unit (\"64mb\", \"1gb\")")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<ByteSize, E> {
        ByteSize::new(v).ok_or_else(|| E::custom("a size must be greater than zero"))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<ByteSize, E> {
        u64::try_from(v)
            .map_err(|_| E::custom("a size cannot be negative"))
            .and_then(|v| self.visit_u64(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<ByteSize, E> {
        v.parse().map_err(E::custom)
    }
}

/// `bytes` for a human, with at most one decimal: `17 B`, `4.0 KiB`,
/// `1.5 GiB`.
pub fn human(bytes: u64) -> String {
    const NAMES: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < NAMES.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ => format!("{value:.1} {}", NAMES[unit]),
    }
}

#[cfg(test)]
mod tests;
