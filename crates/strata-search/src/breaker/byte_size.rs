//! Memory sizes as Elasticsearch writes and reads them: `567.4mb` in
//! messages (one decimal, truncated, `.0` dropped, as `ByteSizeValue`
//! prints), and breaker limits given as bytes with a unit (`512mb`,
//! `1.5gb`) or as a share of the node's memory base (`60%`).

use crate::error::{Result, SearchError};

const UNITS: [(u64, &str); 5] = [
    (1 << 50, "pb"),
    (1 << 40, "tb"),
    (1 << 30, "gb"),
    (1 << 20, "mb"),
    (1 << 10, "kb"),
];

/// `bytes` as Elasticsearch's `ByteSizeValue` prints it: the largest
/// unit it reaches, one decimal truncated and dropped when zero
/// (`0b`, `1023b`, `1kb`, `1.8gb`).
pub fn format(bytes: u64) -> String {
    let Some(&(unit, suffix)) = UNITS.iter().find(|(unit, _)| bytes >= *unit) else {
        return format!("{bytes}b");
    };
    // The shortest decimal that reads back as the value, as Java prints a
    // double, then its first fraction digit only.
    let text = format!("{}", bytes as f64 / unit as f64);
    match text.split_once('.') {
        Some((whole, fraction)) if !fraction.starts_with('0') => {
            format!("{whole}.{}{suffix}", &fraction[..1])
        }
        Some((whole, _)) => format!("{whole}{suffix}"),
        None => format!("{text}{suffix}"),
    }
}

/// `bytes/human` as breaker messages write a size (`1048576/1mb`).
pub(crate) fn both(bytes: u64) -> String {
    format!("{bytes}/{}", format(bytes))
}

/// A memory limit as a setting gives it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MemorySize {
    /// An absolute number of bytes.
    Bytes(u64),
    /// A percentage (0 to 100) of the node's memory base.
    Share(f64),
}

impl MemorySize {
    /// Parses `60%`, `512mb`, `1.5gb`, `100b` or a bare number of bytes
    /// for `setting` (named in the error).
    pub(crate) fn parse(setting: &str, text: &str) -> Result<MemorySize> {
        let text = text.trim();
        if let Some(percent) = text.strip_suffix('%') {
            let share: f64 = percent.trim().parse().map_err(|_| {
                SearchError::illegal(format!(
                    "failed to parse [{text}] as a percentage for setting [{setting}]"
                ))
            })?;
            if !(0.0..=100.0).contains(&share) {
                return Err(SearchError::illegal(format!(
                    "percentage should be in [0-100], got [{percent}]"
                )));
            }
            return Ok(MemorySize::Share(share));
        }
        parse_bytes(text)
            .map(MemorySize::Bytes)
            .ok_or_else(|| {
                SearchError::illegal(format!(
                    "failed to parse setting [{setting}] with value [{text}] as a size in bytes: unit is missing or unrecognized"
                ))
            })
    }

    /// The limit in bytes for a node whose memory base is `base`.
    pub(crate) fn resolve(self, base: u64) -> u64 {
        match self {
            MemorySize::Bytes(b) => b,
            MemorySize::Share(p) => (base as f64 * p / 100.0) as u64,
        }
    }

    /// As written back in settings (`60%`, `536870912b`).
    pub(crate) fn to_setting(self) -> String {
        match self {
            MemorySize::Bytes(b) => format!("{b}b"),
            MemorySize::Share(p) => format!("{p}%"),
        }
    }
}

/// `512mb`, `1.5g`, `100b`, `0` (units case-insensitive; a bare number
/// only for 0 and -1, as Elasticsearch, where -1 is "no limit").
fn parse_bytes(text: &str) -> Option<u64> {
    let lower = text.to_ascii_lowercase();
    if lower == "0" {
        return Some(0);
    }
    if lower == "-1" {
        return Some(u64::MAX);
    }
    parse_with_unit(&lower)
}

/// `512b`, `10kb`, `1.5g`, `1pb`: a number with a unit (`b`, `k`/`kb`,
/// `m`/`mb`, `g`/`gb`, `t`/`tb`, `p`/`pb`, binary, case-insensitive), as
/// Elasticsearch's `ByteSizeValue` parses it. `None` without a unit, or
/// beyond `u64`.
pub(crate) fn parse_with_unit(text: &str) -> Option<u64> {
    let lower = text.to_ascii_lowercase();
    let split = lower.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (number, unit) = lower.split_at(split);
    let multiplier: u64 = match unit.trim() {
        "b" => 1,
        "k" | "kb" => 1 << 10,
        "m" | "mb" => 1 << 20,
        "g" | "gb" => 1 << 30,
        "t" | "tb" => 1 << 40,
        "p" | "pb" => 1 << 50,
        _ => return None,
    };
    let value: f64 = number.parse().ok()?;
    let bytes = value * multiplier as f64;
    (bytes.is_finite() && bytes >= 0.0 && bytes < u64::MAX as f64).then_some(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_as_elasticsearch_prints_sizes() {
        assert_eq!(format(0), "0b");
        assert_eq!(format(1023), "1023b");
        assert_eq!(format(1024), "1kb");
        assert_eq!(format(3494), "3.4kb");
        assert_eq!(format(595_064_631), "567.4mb");
        assert_eq!(format(2_032_293_344), "1.8gb");
        assert_eq!(format(31_621_696_716), "29.4gb");
        assert_eq!(format(2 << 30), "2gb");
        assert_eq!(both(1 << 20), "1048576/1mb");
    }

    #[test]
    fn parses_bytes_and_shares() {
        let p = |t| MemorySize::parse("s", t);
        assert_eq!(p("60%").unwrap(), MemorySize::Share(60.0));
        assert_eq!(p("512mb").unwrap(), MemorySize::Bytes(512 << 20));
        assert_eq!(p("1.5GB").unwrap(), MemorySize::Bytes(3 << 29));
        assert_eq!(p("100b").unwrap(), MemorySize::Bytes(100));
        assert_eq!(p("0").unwrap(), MemorySize::Bytes(0));
        assert!(p("150%").is_err());
        assert!(p("12").is_err());
        assert!(p("lots").is_err());
        assert_eq!(MemorySize::Share(50.0).resolve(1000), 500);
        assert_eq!(MemorySize::Bytes(7).to_setting(), "7b");
    }
}
