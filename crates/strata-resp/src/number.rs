//! Number parsing and formatting exactly as Redis does it for strings:
//! strict integers (`string2ll`), floats (`string2d`; `INCRBYFLOAT`'s long
//! double sums are `strata_float`'s, re-exported here), SCAN cursors,
//! memory sizes with units (`memtoull`) and human-readable sizes.

pub use strata_float::{incr_float, parse_score_bound, IncrFloatError};

/// Parses a signed 64-bit integer the way Redis's `string2ll` does: optional
/// `-`, no `+`, no spaces, no leading zeros, at most 20 characters.
pub fn parse_i64(s: &[u8]) -> Option<i64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    if s == b"0" {
        return Some(0);
    }
    let (negative, digits) = match s {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, s),
    };
    match digits.first() {
        Some(b'1'..=b'9') => {}
        _ => return None,
    }
    let mut magnitude: u64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        magnitude = magnitude
            .checked_mul(10)?
            .checked_add(u64::from(c - b'0'))?;
    }
    if negative {
        if magnitude > i64::MAX as u64 + 1 {
            return None;
        }
        Some((magnitude as i64).wrapping_neg())
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// Parses a SCAN cursor as `strtoul` does (optional sign, leading zeros
/// allowed; a negative number wraps around).
pub fn parse_cursor(s: &[u8]) -> Option<u64> {
    let (negative, digits) = match s {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, s),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut value: u64 = 0;
    for &c in digits {
        value = value.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    Some(if negative {
        value.wrapping_neg()
    } else {
        value
    })
}

/// Parses a float as Redis's `string2d` does (C's `strtod` over the whole
/// text: `0x10` reads, `1e400` and `1e-400` are out of range, no leading
/// space, not NaN; infinity reads, and callers refuse it where a result
/// must be finite).
pub fn parse_f64(s: &[u8]) -> Option<f64> {
    strata_float::parse_double(s)
}

/// Redis's "human" long double text (`ld2string` with `LD_STR_HUMAN`) of
/// an `f64`: `%.17Lf`, trailing zeros and a bare point dropped, `-0` as
/// `0` (`GEOPOS`'s coordinates).
pub fn format_human(value: f64) -> String {
    let mut text = format!("{value:.17}");
    if text.contains('.') {
        let kept = text.trim_end_matches('0').trim_end_matches('.').len();
        text.truncate(kept);
    }
    if text == "-0" {
        text = "0".into();
    }
    text
}

/// Formats a double as Redis 7.0's `addReplyDouble` does (scores, `ZINCRBY`,
/// `GEODIST`, `MEMORY STATS`, ...): C's `%.17g`, that is 17 significant
/// digits of the exact value, trailing zeros dropped, an exponent
/// (`1e+17`, `1.4999999999999999e-07`) when it is below -4 or at least 17;
/// `inf`, `-inf` and `nan` spelled so.
pub fn format_double(value: f64) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf" } else { "-inf" }.into();
    }
    // Rust's `{:.16e}` rounds the exact value to 17 significant digits.
    let scientific = format!("{:.16e}", value.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let trimmed = |s: &str| s.trim_end_matches('0').trim_end_matches('.').to_string();
    if !(-4..17).contains(&exponent) {
        let mantissa = trimmed(&format!("{}.{}", &digits[..1], &digits[1..]));
        let e_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{e_sign}{:02}", exponent.unsigned_abs());
    }
    let text = match usize::try_from(exponent) {
        Ok(point) => format!("{}.{}", &digits[..=point], &digits[point + 1..]),
        Err(_) => {
            let zeros = "0".repeat(exponent.unsigned_abs() as usize - 1);
            format!("0.{zeros}{digits}")
        }
    };
    format!("{sign}{}", trimmed(&text))
}

/// A score as Redis 7.0's `d2string` writes it into a listpack, which
/// `ZSCAN` returns: an integer value within ±`LLONG_MAX / 2` as an
/// integer (`100000000000000000`, `0` for `-0`), anything else as
/// [`format_double`].
pub fn format_score_text(value: f64) -> String {
    const HALF_LLONG: f64 = (i64::MAX / 2) as f64;
    if value.is_finite() && value.fract() == 0.0 && value.abs() <= HALF_LLONG {
        return format!("{}", value as i64);
    }
    format_double(value)
}

/// Parses a memory size as Redis's `memtoull`: digits followed by an optional
/// unit `b`, `k` (1000), `kb` (1024), `m`, `mb`, `g`, `gb`, case-insensitive.
pub fn parse_memory(s: &[u8]) -> Option<u64> {
    let split = s
        .iter()
        .position(|c| !c.is_ascii_digit())
        .unwrap_or(s.len());
    let (digits, unit) = s.split_at(split);
    if digits.is_empty() {
        return None;
    }
    let multiplier: u64 = match unit.to_ascii_lowercase().as_slice() {
        b"" | b"b" => 1,
        b"k" => 1000,
        b"kb" => 1024,
        b"m" => 1000 * 1000,
        b"mb" => 1024 * 1024,
        b"g" => 1000 * 1000 * 1000,
        b"gb" => 1024 * 1024 * 1024,
        _ => return None,
    };
    let mut value: u64 = 0;
    for &c in digits {
        value = value.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
    }
    value.checked_mul(multiplier)
}

/// Formats a byte count as Redis's `bytesToHuman` (`512B`, `1.50K`, `2.00M`, ...).
pub fn human_bytes(n: u64) -> String {
    const UNITS: [(&str, f64); 5] = [
        ("P", 1024f64 * 1024.0 * 1024.0 * 1024.0 * 1024.0),
        ("T", 1024f64 * 1024.0 * 1024.0 * 1024.0),
        ("G", 1024f64 * 1024.0 * 1024.0),
        ("M", 1024f64 * 1024.0),
        ("K", 1024f64),
    ];
    let value = n as f64;
    for (unit, size) in UNITS {
        if value >= size {
            return format!("{:.2}{unit}", value / size);
        }
    }
    format!("{n}B")
}

/// `n` as C's `printf("%.{precision}g")` (glibc): the shortest of fixed
/// or exponent notation for that many significant digits, trailing zeros
/// dropped; `inf`, `-inf`, `nan`, `-nan`. Lua prints numbers so at 14
/// digits, Redis passes a script's numbers to commands at 17.
pub fn format_g(n: f64, precision: usize) -> String {
    if n.is_nan() {
        return if n.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if n == 0.0 {
        return if n.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let precision = precision.max(1);
    let scientific = format!("{:.*e}", precision - 1, n);
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if exponent < -4 || exponent >= precision as i32 {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!(
            "{}e{sign}{:02}",
            trim_zeros(mantissa),
            exponent.unsigned_abs()
        )
    } else {
        let decimals = (precision as i32 - 1 - exponent).max(0) as usize;
        trim_zeros(&format!("{n:.decimals$}")).to_string()
    }
}

fn trim_zeros(text: &str) -> &str {
    match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.'),
        false => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_integers() {
        assert_eq!(parse_i64(b"0"), Some(0));
        assert_eq!(parse_i64(b"-1"), Some(-1));
        assert_eq!(parse_i64(b"9223372036854775807"), Some(i64::MAX));
        assert_eq!(parse_i64(b"-9223372036854775808"), Some(i64::MIN));
        for bad in [
            &b""[..],
            b"-0",
            b"01",
            b"+1",
            b" 1",
            b"1 ",
            b"1.0",
            b"-",
            b"9223372036854775808",
            b"-9223372036854775809",
            b"123456789012345678901",
        ] {
            assert_eq!(parse_i64(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn cursors_wrap_like_strtoul() {
        assert_eq!(parse_cursor(b"0"), Some(0));
        assert_eq!(parse_cursor(b"007"), Some(7));
        assert_eq!(parse_cursor(b"-1"), Some(u64::MAX));
        assert_eq!(parse_cursor(b"18446744073709551616"), None);
        assert_eq!(parse_cursor(b"x"), None);
        assert_eq!(parse_cursor(b""), None);
    }

    #[test]
    fn floats() {
        assert_eq!(parse_f64(b"1.5"), Some(1.5));
        assert_eq!(parse_f64(b"5.0e3"), Some(5000.0));
        assert_eq!(parse_f64(b"-.5"), Some(-0.5));
        assert_eq!(parse_f64(b" 1"), None);
        assert_eq!(parse_f64(b"1 "), None);
        assert_eq!(parse_f64(b"abc"), None);
        assert_eq!(parse_f64(b"nan"), None);
        assert_eq!(parse_f64(b"inf"), Some(f64::INFINITY));
    }

    #[test]
    fn doubles_print_as_percent_17g() {
        let cases: &[(f64, &str)] = &[
            (1e300, "1.0000000000000001e+300"),
            (1.5e-7, "1.4999999999999999e-07"),
            (0.1, "0.10000000000000001"),
            (123456789012345678.0, "1.2345678901234568e+17"),
            (1e16, "10000000000000000"),
            (1e17, "1e+17"),
            (-0.0, "-0"),
            (0.0, "0"),
            (3.0, "3"),
            (-1.5, "-1.5"),
            (12345.678, "12345.678"),
            (0.0001, "0.0001"),
            (0.00001, "1.0000000000000001e-05"),
            (5e-324, "4.9406564584124654e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ];
        for &(value, want) in cases {
            assert_eq!(format_double(value), want, "{value:e}");
        }
        assert_eq!(format_score_text(1e17), "100000000000000000");
        assert_eq!(format_score_text(-0.0), "0");
        assert_eq!(format_score_text(1e19), "1e+19");
        assert_eq!(format_score_text(0.1), "0.10000000000000001");
    }

    #[test]
    fn memory_units() {
        assert_eq!(parse_memory(b"100"), Some(100));
        assert_eq!(parse_memory(b"1k"), Some(1000));
        assert_eq!(parse_memory(b"1KB"), Some(1024));
        assert_eq!(parse_memory(b"100mb"), Some(100 << 20));
        assert_eq!(parse_memory(b"2g"), Some(2_000_000_000));
        assert_eq!(parse_memory(b"1gb"), Some(1 << 30));
        assert_eq!(parse_memory(b"abc"), None);
        assert_eq!(parse_memory(b"-1"), None);
        assert_eq!(parse_memory(b"1tb"), None);
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(512), "512B");
        assert_eq!(human_bytes(1536), "1.50K");
        assert_eq!(human_bytes(1 << 30), "1.00G");
    }

    /// What Redis 7.0.15's `cjson.encode` wrote for these numbers.
    #[test]
    fn numbers_print_as_c_printf_g_with_14_digits() {
        for (n, text) in [
            (0.1, "0.1"),
            (1.0 / 3.0, "0.33333333333333"),
            (1e20, "1e+20"),
            (123456789012345678.0, "1.2345678901235e+17"),
            (-0.0, "-0"),
            (1e-5, "1e-05"),
            (100.0, "100"),
            (1e15, "1e+15"),
            (1e14, "1e+14"),
            (123.456e-7, "1.23456e-05"),
            (9007199254740992.0, "9.007199254741e+15"),
            (-1e-300, "-1e-300"),
            (12345678901234.0, "12345678901234"),
            (0.0001, "0.0001"),
        ] {
            assert_eq!(format_g(n, 14), text, "{n}");
        }
    }

    #[test]
    fn non_finite_numbers_print_as_glibc() {
        assert_eq!(format_g(f64::INFINITY, 17), "inf");
        assert_eq!(format_g(f64::NEG_INFINITY, 17), "-inf");
        assert_eq!(format_g(-f64::NAN, 17), "-nan");
        assert_eq!(format_g(0.1, 17), "0.10000000000000001");
    }
}
