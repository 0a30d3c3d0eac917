//! A weight as numeric `SORT` reads it: C's `strtod` (glibc's, in the C
//! locale) over the value as a C string, refused when anything but the
//! end or a NUL byte follows the number, when it is NaN, or when `strtod`
//! reports `ERANGE` (an overflow to infinity, or a result that underflows
//! to zero or a subnormal and is inexact). Leading white space, a sign,
//! `inf`/`infinity`, `nan(...)` and hexadecimal floats (`0x1.8p3`) are
//! read as `strtod` reads them; a value with no number at all (empty, or
//! a NUL first) weighs 0.

/// The weight of `value`, or `None` when Redis answers "One or more
/// scores can't be converted into double".
pub fn weight(value: &[u8]) -> Option<f64> {
    let end = value.iter().position(|&b| b == 0).unwrap_or(value.len());
    let text = &value[..end];
    let Some(read) = strtod(text) else {
        // No conversion: the end pointer is the start of the text.
        return text.is_empty().then_some(0.0);
    };
    if read.consumed != text.len() || read.out_of_range || read.value.is_nan() {
        return None;
    }
    Some(read.value)
}

/// What `strtod` read.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Read {
    value: f64,
    /// Bytes consumed, leading white space included.
    consumed: usize,
    /// `errno` would be `ERANGE`.
    out_of_range: bool,
}

/// C's `isspace` in the C locale.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn starts_with_ci(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

/// `strtod` on `s` (no NUL inside); `None` when nothing converts.
fn strtod(s: &[u8]) -> Option<Read> {
    let mut i = s.iter().take_while(|&&b| is_space(b)).count();
    let negative = s.get(i) == Some(&b'-');
    if matches!(s.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let rest = &s[i..];
    let signed = |v: f64| if negative { -v } else { v };
    if starts_with_ci(rest, b"inf") {
        let len = if starts_with_ci(rest, b"infinity") {
            8
        } else {
            3
        };
        return Some(Read {
            value: signed(f64::INFINITY),
            consumed: i + len,
            out_of_range: false,
        });
    }
    if starts_with_ci(rest, b"nan") {
        let mut len = 3;
        if rest.get(3) == Some(&b'(') {
            let inner = rest[4..]
                .iter()
                .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                .count();
            if rest.get(4 + inner) == Some(&b')') {
                len = 5 + inner;
            }
        }
        return Some(Read {
            value: f64::NAN,
            consumed: i + len,
            out_of_range: false,
        });
    }
    let hex_digit_at = |at: usize| rest.get(at).is_some_and(u8::is_ascii_hexdigit);
    if starts_with_ci(rest, b"0x")
        && (hex_digit_at(2) || (rest.get(2) == Some(&b'.') && hex_digit_at(3)))
    {
        let (value, len, out_of_range) = hexadecimal(&rest[2..]);
        return Some(Read {
            value: signed(value),
            consumed: i + 2 + len,
            out_of_range,
        });
    }
    let (value, len, out_of_range) = decimal(rest)?;
    Some(Read {
        value: signed(value),
        consumed: i + len,
        out_of_range,
    })
}

/// Digits, an optional fraction and exponent, from the start of `s`: the
/// value, the bytes read and `ERANGE`; `None` without a digit.
fn decimal(s: &[u8]) -> Option<(f64, usize, bool)> {
    let int = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let mut len = int;
    if s.get(len) == Some(&b'.') {
        let frac = s[len + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if int + frac == 0 {
            return None;
        }
        len += 1 + frac;
    } else if int == 0 {
        return None;
    }
    let mantissa_nonzero = s[..len].iter().any(|b| (b'1'..=b'9').contains(b));
    if matches!(s.get(len), Some(b'e' | b'E')) {
        let mut at = len + 1;
        if matches!(s.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let digits = s[at.min(s.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits > 0 {
            len = at + digits;
        }
    }
    // ASCII digits, '.', 'e' and a sign: Rust reads it, correctly rounded.
    let value: f64 = std::str::from_utf8(&s[..len]).ok()?.parse().ok()?;
    let tiny = value == 0.0 || value.is_subnormal();
    Some((
        value,
        len,
        value.is_infinite() || (tiny && mantissa_nonzero),
    ))
}

/// Hex digits, an optional fraction and binary exponent (`p`), after the
/// `0x`: the value, the bytes read and `ERANGE`. The first 16 significant
/// digits are kept, later non-zero ones only as a sticky bit, so normal
/// results are correctly rounded.
fn hexadecimal(s: &[u8]) -> (f64, usize, bool) {
    let mut mantissa: u64 = 0;
    let mut sticky = false;
    let mut scale: i64 = 0; // binary exponent of the mantissa's last digit
    let mut significant = 0;
    let mut len = 0;
    let mut seen_point = false;
    while let Some(&b) = s.get(len) {
        if b == b'.' && !seen_point {
            seen_point = true;
            len += 1;
            continue;
        }
        let Some(digit) = (b as char).to_digit(16) else {
            break;
        };
        len += 1;
        if significant == 0 && digit == 0 {
            scale -= if seen_point { 4 } else { 0 };
            continue;
        }
        if significant < 16 {
            mantissa = mantissa << 4 | u64::from(digit);
            significant += 1;
            scale -= if seen_point { 4 } else { 0 };
        } else {
            sticky |= digit != 0;
            scale += if seen_point { 0 } else { 4 };
        }
    }
    if matches!(s.get(len), Some(b'p' | b'P')) {
        let mut at = len + 1;
        let negative = s.get(at) == Some(&b'-');
        if matches!(s.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let digits = s[at.min(s.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits > 0 {
            let exponent = s[at..at + digits]
                .iter()
                .fold(0i64, |e, b| (e * 10 + i64::from(b - b'0')).min(1 << 40));
            scale += if negative { -exponent } else { exponent };
            len = at + digits;
        }
    }
    if mantissa == 0 {
        return (0.0, len, false);
    }
    let bits = 64 - i64::from(mantissa.leading_zeros());
    let low = i64::from(mantissa.trailing_zeros());
    let exact = !sticky && scale + low >= -1074 && bits - low <= 53;
    let value = scaled((mantissa | u64::from(sticky)) as f64, scale);
    let tiny = value == 0.0 || value.is_subnormal();
    (value, len, value.is_infinite() || (tiny && !exact))
}

/// `value * 2^exponent`, in steps that stay representable.
fn scaled(mut value: f64, mut exponent: i64) -> f64 {
    while exponent > 0 && value.is_finite() {
        let step = exponent.min(1000);
        value *= 2f64.powi(step as i32);
        exponent -= step;
    }
    while exponent < 0 && value != 0.0 {
        let step = exponent.max(-1000);
        value *= 2f64.powi(step as i32);
        exponent -= step;
    }
    value
}

#[cfg(test)]
mod tests {
    use super::weight;

    /// Expectations from glibc's `strtod` (see the module doc).
    #[test]
    fn reads_as_strtod_does() {
        let cases: &[(&[u8], Option<f64>)] = &[
            (b"1", Some(1.0)),
            (b"-2.5", Some(-2.5)),
            (b"+.5", Some(0.5)),
            (b"5.", Some(5.0)),
            (b"1e3", Some(1000.0)),
            (b"1E+3", Some(1000.0)),
            (b"  \t\n12", Some(12.0)),
            (b"", Some(0.0)),
            (b"\0abc", Some(0.0)),
            (b"7\0junk", Some(7.0)),
            (b"inf", Some(f64::INFINITY)),
            (b"-Infinity", Some(f64::NEG_INFINITY)),
            (b"0x10", Some(16.0)),
            (b"0X1.8p3", Some(12.0)),
            (b"0x.8", Some(0.5)),
            (b"0x1P-2", Some(0.25)),
            (b"-0", Some(-0.0)),
            (b"0e-999", Some(0.0)),
            (b"0x1p-1070", Some(f64::from_bits(16))),
            (b"1.7976931348623157e308", Some(f64::MAX)),
        ];
        for (text, want) in cases {
            assert_eq!(weight(text), *want, "{:?}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn refusals() {
        let cases: &[&[u8]] = &[
            b"abc",
            b" ",
            b".",
            b"-",
            b"1 ",
            b"1.5e3x",
            b"1e",
            b"1e+",
            b"0x",
            b"0x1p",
            b"infinit",
            b"nan",
            b"nan(12)",
            b"-nan",
            b"1e309",
            b"1e-310",
            b"1e-400",
            b"4.9e-324",
            b"0x1p1024",
            b"0x1p-1080",
            b"0x1.1p-1074",
            b"1_000",
            b"\xff",
        ];
        for text in cases {
            assert_eq!(weight(text), None, "{:?}", String::from_utf8_lossy(text));
        }
    }
}
