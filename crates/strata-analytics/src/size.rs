//! Byte sizes on the command line (`--dram-budget 512mb`, `--spill-limit
//! 20gb`): the units of `strata serve`, binary and case-insensitive (`k`,
//! `kb` and `kib` are 1024 bytes; likewise `m`, `g`, `t`), with an optional
//! fraction (`1.5gb`). Zero is refused.

use std::fmt;
use std::str::FromStr;

/// A non-zero number of bytes.
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

    fn from_str(text: &str) -> Result<ByteSize, String> {
        let trimmed = text.trim();
        let split = trimmed
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(trimmed.len());
        let (number, unit) = trimmed.split_at(split);
        let unit = unit.trim();
        let invalid = || {
            format!("invalid size `{text}`: expected a number with an optional unit (b, kb, mb, gb, tb), e.g. 512mb")
        };
        let multiplier = multiplier(unit).ok_or_else(|| {
            format!("invalid size `{text}`: unknown unit `{unit}` (use b, kb, mb, gb or tb)")
        })?;
        let bytes = match number.split_once('.') {
            None => number
                .parse::<u64>()
                .ok()
                .and_then(|n| n.checked_mul(multiplier)),
            Some((whole, fraction)) => {
                let value: f64 = number.parse().map_err(|_| invalid())?;
                let bytes = value * multiplier as f64;
                let whole_ok = !whole.is_empty() && whole.chars().all(|c| c.is_ascii_digit());
                let fraction_ok =
                    !fraction.is_empty() && fraction.chars().all(|c| c.is_ascii_digit());
                (whole_ok && fraction_ok && bytes < u64::MAX as f64).then_some(bytes as u64)
            }
        };
        match bytes {
            _ if number.is_empty() => Err(invalid()),
            None => Err(format!("invalid size `{text}`: too large")),
            Some(0) => Err(format!("invalid size `{text}`: must be more than zero")),
            Some(bytes) => Ok(ByteSize(bytes)),
        }
    }
}

impl fmt::Display for ByteSize {
    /// The largest unit that shows the size with at most one decimal, as
    /// `strata` prints sizes in reports: `512.0 MiB`, `1.5 GiB`, `17 B`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&human(self.0))
    }
}

/// `bytes` for a human: `17 B`, `4.0 KiB`, `1.5 GiB`.
pub fn human(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match unit {
        0 => format!("{bytes} B"),
        _ => format!("{value:.1} {}", UNITS[unit]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units_and_fractions() {
        let parse = |s: &str| s.parse::<ByteSize>().map(ByteSize::bytes);
        assert_eq!(parse("512"), Ok(512));
        assert_eq!(parse("64kb"), Ok(64 << 10));
        assert_eq!(parse("512MiB"), Ok(512 << 20));
        assert_eq!(parse(" 2g "), Ok(2 << 30));
        assert_eq!(parse("1.5gb"), Ok(3 << 29));
        assert_eq!(parse("0.5k"), Ok(512));
        for bad in [
            "",
            "mb",
            "0",
            "0kb",
            "12xb",
            "1.",
            ".5g",
            "1.2.3g",
            "99999999999tb",
        ] {
            assert!(parse(bad).is_err(), "{bad} should be refused");
        }
        assert_eq!(human(17), "17 B");
        assert_eq!(human(3 << 29), "1.5 GiB");
    }
}
