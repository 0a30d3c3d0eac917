//! Human-readable byte sizes (`64mb`, `1gb`, `1073741824`) for limits given on
//! the command line or in the config file.
//!
//! Units are binary and case-insensitive: `k`, `kb` and `kib` all mean 1024
//! bytes, likewise `m`/`mb`/`mib`, `g`/`gb`/`gib` and `t`/`tb`/`tib`; `b` or no
//! unit means bytes. Zero and values that overflow 64 bits are refused.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// A number of bytes, parsed from a human-readable size. Always non-zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteSize(u64);

const UNITS: [(&str, u64); 4] = [
    ("tb", 1 << 40),
    ("gb", 1 << 30),
    ("mb", 1 << 20),
    ("kb", 1 << 10),
];

impl ByteSize {
    /// `bytes` as a size; `None` for zero.
    pub const fn new(bytes: u64) -> Option<Self> {
        if bytes == 0 {
            None
        } else {
            Some(Self(bytes))
        }
    }

    /// `n` mebibytes. The caller guarantees `n > 0` and no overflow.
    pub(crate) const fn mib(n: u64) -> Self {
        Self(n << 20)
    }

    /// `n` kibibytes. The caller guarantees `n > 0` and no overflow.
    pub(crate) const fn kib(n: u64) -> Self {
        Self(n << 10)
    }

    /// The size in bytes.
    pub const fn bytes(self) -> u64 {
        self.0
    }
}

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

impl FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let trimmed = text.trim();
        let split = trimmed
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(trimmed.len());
        let (digits, unit) = trimmed.split_at(split);
        if digits.is_empty() {
            return Err(format!(
                "invalid size `{text}`: expected a number with an optional unit (b, kb, mb, gb, tb), e.g. 64mb"
            ));
        }
        let unit = unit.trim();
        let Some(multiplier) = multiplier(unit) else {
            return Err(format!(
                "invalid size `{text}`: unknown unit `{unit}` (use b, kb, mb, gb or tb)"
            ));
        };
        let number: u64 = digits
            .parse()
            .map_err(|_| format!("invalid size `{text}`: the number is too large"))?;
        let bytes = number
            .checked_mul(multiplier)
            .ok_or_else(|| format!("invalid size `{text}`: the number is too large"))?;
        Self::new(bytes).ok_or_else(|| format!("invalid size `{text}`: must be greater than zero"))
    }
}

impl fmt::Display for ByteSize {
    /// The largest unit that represents the size exactly (`1gb`, `1536kb`, `1000b`).
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
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(SizeVisitor)
    }
}

struct SizeVisitor;

impl Visitor<'_> for SizeVisitor {
    type Value = ByteSize;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a size in bytes (1073741824) or with a unit (\"64mb\", \"1gb\")")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        ByteSize::new(v).ok_or_else(|| E::custom("a size must be greater than zero"))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        u64::try_from(v)
            .ok()
            .and_then(ByteSize::new)
            .ok_or_else(|| E::custom("a size must be greater than zero"))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        v.parse().map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::ByteSize;

    fn parse(text: &str) -> Result<u64, String> {
        text.parse::<ByteSize>().map(ByteSize::bytes)
    }

    #[test]
    fn plain_numbers_are_bytes() {
        assert_eq!(parse("1073741824"), Ok(1 << 30));
        assert_eq!(parse("1"), Ok(1));
        assert_eq!(parse("512b"), Ok(512));
    }

    #[test]
    fn units_are_binary_and_case_insensitive() {
        assert_eq!(parse("64mb"), Ok(64 << 20));
        assert_eq!(parse("64MB"), Ok(64 << 20));
        assert_eq!(parse("64m"), Ok(64 << 20));
        assert_eq!(parse("64MiB"), Ok(64 << 20));
        assert_eq!(parse("1gb"), Ok(1 << 30));
        assert_eq!(parse("4k"), Ok(4096));
        assert_eq!(parse("2tb"), Ok(2 << 40));
        assert_eq!(parse(" 16 kb "), Ok(16 << 10));
    }

    #[test]
    fn bad_sizes_are_refused_with_a_reason() {
        assert!(parse("0").unwrap_err().contains("greater than zero"));
        assert!(parse("0mb").unwrap_err().contains("greater than zero"));
        assert!(parse("abc").unwrap_err().contains("expected a number"));
        assert!(parse("").unwrap_err().contains("expected a number"));
        assert!(parse("10xb").unwrap_err().contains("unknown unit `xb`"));
        assert!(parse("-5mb").is_err());
        assert!(parse("1.5gb").is_err());
        assert!(parse("99999999999999999999")
            .unwrap_err()
            .contains("too large"));
        assert!(parse("20000000tb").unwrap_err().contains("too large"));
    }

    #[test]
    fn display_uses_the_largest_exact_unit() {
        assert_eq!(ByteSize::mib(1024).to_string(), "1gb");
        assert_eq!(ByteSize::kib(1536).to_string(), "1536kb");
        assert_eq!(
            ByteSize::new(1000).map(|s| s.to_string()),
            Some("1000b".into())
        );
    }
}
