//! Number parsing exactly as memcached does it (its `safe_strtoul`,
//! `safe_strtol` and `safe_strtoull` over C's `strtoul` family), so odd input
//! such as `+5`, `-0`, `\t7` or out-of-range values is accepted or refused
//! the same way, and values wider than the target are truncated the same way.

/// C's `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// What `strtoull`/`strtoll` saw: sign, magnitude (None on overflow of u64)
/// and where the digits ended. `None` when no digit was found.
struct Scanned {
    negative: bool,
    magnitude: Option<u64>,
    end: usize,
}

fn scan(s: &[u8]) -> Option<Scanned> {
    let mut i = s.iter().take_while(|&&b| is_c_space(b)).count();
    let mut negative = false;
    if let Some(&sign @ (b'+' | b'-')) = s.get(i) {
        negative = sign == b'-';
        i += 1;
    }
    let digits_start = i;
    let mut magnitude = Some(0u64);
    while let Some(&b) = s.get(i) {
        if !b.is_ascii_digit() {
            break;
        }
        magnitude = magnitude
            .and_then(|m| m.checked_mul(10))
            .and_then(|m| m.checked_add(u64::from(b - b'0')));
        i += 1;
    }
    if i == digits_start {
        return None;
    }
    Some(Scanned {
        negative,
        magnitude,
        end: i,
    })
}

/// memcached accepts a number when what follows it is a space or the end.
fn ends_cleanly(s: &[u8], end: usize) -> bool {
    match s.get(end) {
        None | Some(0) => true,
        Some(&b) => is_c_space(b),
    }
}

/// `safe_strtoull`: an unsigned 64-bit number; a `-` sign is refused when
/// the result would look negative as a signed number.
pub fn strtoull(s: &[u8]) -> Option<u64> {
    let sc = scan(s)?;
    let magnitude = sc.magnitude?;
    if !ends_cleanly(s, sc.end) {
        return None;
    }
    let value = if sc.negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    };
    if (value as i64) < 0 && sc.negative {
        return None;
    }
    Some(value)
}

/// `safe_strtoul` into a `uint32_t`: parsed as 64-bit, then truncated.
pub fn strtoul32(s: &[u8]) -> Option<u32> {
    strtoull(s).map(|v| v as u32)
}

/// `safe_strtol` into an `int32_t`: parsed as a 64-bit signed number
/// (refused on overflow), then truncated.
pub fn strtol32(s: &[u8]) -> Option<i32> {
    let sc = scan(s)?;
    let magnitude = sc.magnitude?;
    if !ends_cleanly(s, sc.end) {
        return None;
    }
    let value: i64 = if sc.negative {
        if magnitude > i64::MIN.unsigned_abs() {
            return None;
        }
        (magnitude as i64).wrapping_neg()
    } else {
        i64::try_from(magnitude).ok()?
    };
    Some(value as i32)
}

/// The number stored in an item for `incr`/`decr`: memcached runs
/// `safe_strtoull` over the data followed by its `\r\n`, so trailing spaces
/// are fine, and an empty value is not a number.
pub fn item_number(value: &[u8]) -> Option<u64> {
    if value.is_empty() {
        return None;
    }
    let sc = scan(value)?;
    let magnitude = sc.magnitude?;
    // The value's end is followed by "\r\n" in memcached: a clean end.
    if sc.end < value.len() && !ends_cleanly(value, sc.end) {
        return None;
    }
    let v = if sc.negative {
        magnitude.wrapping_neg()
    } else {
        magnitude
    };
    if (v as i64) < 0 && sc.negative {
        return None;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsigned_like_memcached() {
        assert_eq!(strtoul32(b"5"), Some(5));
        assert_eq!(strtoul32(b"+5"), Some(5));
        assert_eq!(strtoul32(b"-0"), Some(0));
        assert_eq!(strtoul32(b"\t7"), Some(7));
        assert_eq!(strtoul32(b"007"), Some(7));
        assert_eq!(strtoul32(b"4294967295"), Some(u32::MAX));
        // Wider values are truncated, as memcached stores them.
        assert_eq!(strtoul32(b"4294967296"), Some(0));
        assert_eq!(strtoul32(b"-1"), None);
        assert_eq!(strtoul32(b"abc"), None);
        assert_eq!(strtoul32(b""), None);
        assert_eq!(strtoul32(b"12a"), None);
        assert_eq!(strtoul32(b"-"), None);
        assert_eq!(strtoul32(b"18446744073709551616"), None);
    }

    #[test]
    fn unsigned_64() {
        assert_eq!(strtoull(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(strtoull(b"18446744073709551616"), None);
        assert_eq!(strtoull(b"-1"), None);
        // strtoull negates; the result is small and positive, so accepted.
        assert_eq!(strtoull(b"-18446744073709551615"), Some(1));
        assert_eq!(strtoull(b"01"), Some(1));
    }

    #[test]
    fn signed_truncated_to_32_bits() {
        assert_eq!(strtol32(b"-1"), Some(-1));
        assert_eq!(strtol32(b"100"), Some(100));
        assert_eq!(strtol32(b"4294967296"), Some(0));
        assert_eq!(strtol32(b"2147483648"), Some(i32::MIN));
        assert_eq!(strtol32(b"4294967297"), Some(1));
        assert_eq!(strtol32(b"9223372036854775808"), None);
        assert_eq!(strtol32(b"-9223372036854775808"), Some(0));
        assert_eq!(strtol32(b"-9223372036854775809"), None);
        assert_eq!(strtol32(b"x"), None);
    }

    #[test]
    fn item_numbers() {
        assert_eq!(item_number(b"12"), Some(12));
        assert_eq!(item_number(b" 12"), Some(12));
        assert_eq!(item_number(b"12 "), Some(12));
        assert_eq!(item_number(b"1 2"), Some(1));
        assert_eq!(item_number(b"12a"), None);
        assert_eq!(item_number(b"-12"), None);
        assert_eq!(item_number(b""), None);
        assert_eq!(item_number(b"18446744073709551616"), None);
        assert_eq!(item_number(b"18446744073709551615"), Some(u64::MAX));
    }
}
