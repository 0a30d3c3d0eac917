//! [`DecimalFormat`]: a number written as Java's `DecimalFormat` writes
//! it with a pattern, as Elasticsearch writes a numeric metric's
//! `value_as_string` when the aggregation names a `format` (`"0.00"`,
//! `"#,##0.0"`, `"0.#%"`, `"$0"`).
//!
//! Supported: literal prefix and suffix text (quoted with `'` or not),
//! `#` and `0` digits with `,` grouping before the `.`, `0` (required)
//! and `#` (optional) fraction digits after it, and `%` (the value times
//! 100). Rounding is Java's default, half-even on the double's exact
//! value. Scientific patterns (`E`), per-mille and currency signs and a
//! separate negative pattern (`;`) are refused with Elasticsearch's
//! "Invalid format" error rather than written differently.

use crate::error::{Result, SearchError};

/// A parsed pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct DecimalFormat {
    prefix: String,
    suffix: String,
    /// Digits written before the point at least (`0`s).
    min_int: usize,
    /// Digits between grouping separators (0: no grouping).
    group: usize,
    /// Fraction digits written at least (`0`s) and at most (`0`s and `#`s).
    min_frac: usize,
    max_frac: usize,
    /// `%`: the value is written times 100.
    percent: bool,
}

impl DecimalFormat {
    /// Parses `pattern`; an unsupported one is refused.
    pub fn parse(pattern: &str) -> Result<DecimalFormat> {
        let invalid = || SearchError::illegal(format!("Invalid format: [{pattern}]"));
        let mut out = DecimalFormat {
            prefix: String::new(),
            suffix: String::new(),
            min_int: 0,
            group: 0,
            min_frac: 0,
            max_frac: 0,
            percent: false,
        };
        // 0: prefix, 1: integer digits, 2: fraction digits, 3: suffix.
        let (mut part, mut quoted, mut since_comma) = (0, false, None::<usize>);
        for c in pattern.chars() {
            if quoted {
                if c == '\'' {
                    quoted = false;
                } else {
                    out.literal(part, c);
                }
                continue;
            }
            match c {
                '\'' => quoted = true,
                '#' | '0' if part <= 1 => {
                    part = 1;
                    out.min_int += usize::from(c == '0');
                    since_comma = since_comma.map(|n| n + 1);
                }
                ',' if part == 1 => since_comma = Some(0),
                '.' if part <= 1 => part = 2,
                '0' if part == 2 && out.max_frac == out.min_frac => {
                    out.min_frac += 1;
                    out.max_frac += 1;
                }
                '#' if part == 2 => out.max_frac += 1,
                '%' if !out.percent => {
                    out.percent = true;
                    out.literal(part, c);
                }
                'E' | ';' | '\u{2030}' | '\u{a4}' | '0' | '#' | ',' | '.' | '%' => {
                    return Err(invalid())
                }
                c => out.literal(part, c),
            }
            if part >= 1 && !matches!(c, '#' | '0' | ',' | '.' | '%' | '\'') {
                part = 3;
            }
        }
        if quoted || (out.min_int == 0 && out.max_frac == 0 && part < 1) {
            return Err(invalid());
        }
        out.group = since_comma.unwrap_or(0);
        Ok(out)
    }

    /// Adds `c` to the prefix (before any digit) or the suffix.
    fn literal(&mut self, part: u8, c: char) {
        if part == 0 {
            self.prefix.push(c);
        } else {
            self.suffix.push(c);
        }
    }

    /// `value` written with the pattern (`NaN` and infinities as Java's
    /// symbols: `NaN`, `∞`).
    pub fn format(&self, value: f64) -> String {
        let value = if self.percent { value * 100.0 } else { value };
        if value.is_nan() {
            return "NaN".into();
        }
        // Java keeps the sign of a negative value that rounds to zero
        // (`-0.0`), and of -0.0 itself.
        let sign = if value.is_sign_negative() { "-" } else { "" };
        if value.is_infinite() {
            return format!("{sign}{}\u{221e}{}", self.prefix, self.suffix);
        }
        let fixed = format!("{:.*}", self.max_frac, value.abs());
        let (int, frac) = fixed.split_once('.').unwrap_or((&fixed, ""));
        let frac = frac.trim_end_matches('0');
        let frac = format!("{frac:0<width$}", width = self.min_frac);
        let int = int.trim_start_matches('0');
        let int = format!("{int:0>width$}", width = self.min_int);
        let int = self.grouped(&int);
        let point = if frac.is_empty() { "" } else { "." };
        format!("{sign}{}{int}{point}{frac}{}", self.prefix, self.suffix)
    }

    /// `digits` with a `,` every `group` digits from the right.
    fn grouped(&self, digits: &str) -> String {
        if self.group == 0 || digits.len() <= self.group {
            return digits.to_string();
        }
        let mut out = String::with_capacity(digits.len() + digits.len() / self.group);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % self.group == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(pattern: &str, v: f64) -> String {
        DecimalFormat::parse(pattern).unwrap().format(v)
    }

    #[test]
    fn patterns_write_as_java_does() {
        assert_eq!(write("0.00", 26.0), "26.00");
        assert_eq!(write("0.00", 63.456), "63.46");
        assert_eq!(write("#.##", 0.5), ".5");
        assert_eq!(write("0.##", 2.0), "2");
        assert_eq!(write("#,##0.0", 1234567.25), "1,234,567.2");
        assert_eq!(write("0", -3.7), "-4");
        assert_eq!(write("0.0", -0.01), "-0.0");
        assert_eq!(write("0.#%", 0.256), "25.6%");
        assert_eq!(write("'#'0", 7.0), "#7");
        assert_eq!(write("$0.00 USD", 1.5), "$1.50 USD");
        assert_eq!(write("000", 5.0), "005");
        assert_eq!(write("0.0", 1e20), "100000000000000000000.0");
    }

    #[test]
    fn unsupported_patterns_are_refused() {
        for bad in ["0.0E0", "0;(0)", "", "'0", "0.0.0", "abc"] {
            let e = DecimalFormat::parse(bad).unwrap_err();
            assert!(e.to_string().contains("Invalid format"), "{bad}: {e}");
        }
    }
}
