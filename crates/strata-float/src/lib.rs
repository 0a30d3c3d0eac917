//! # strata-float: Redis's floats, read and added by the C library
//!
//! Redis adds `INCRBYFLOAT` and `HINCRBYFLOAT` increments in C's `long
//! double` (on x86-64 the x87 80-bit format, a 64-bit mantissa) and prints
//! the sum with `%.17Lf`, trailing zeros dropped. An `f64` cannot give the
//! same answers: `0.1` plus `0.2` is `0.3` in Redis and
//! `0.30000000000000004` in doubles; `123456789012345678` plus 1 is
//! `123456789012345679`; `1e308` plus `1e308` is a 309-digit number, not
//! infinity. Rust has no `long double`, so the parse (`strtold`), the sum
//! and the print (`snprintf`) are done by the C library, as Redis does them
//! (`csrc/long_double.c`, built by `build.rs`). Where the platform's `long
//! double` is another format, Redis there uses that one too.
//!
//! Redis reads its other floats (scores, weights, coordinates) with C's
//! `strtod`, which takes texts Rust's parser refuses (`0x10`) and refuses
//! ones it takes (`1e400` is out of range, not infinity): [`parse_double`]
//! and [`parse_score_bound`] call it as Redis does.
//!
//! Blocking commands' timeouts are `long double` seconds rounded up to
//! milliseconds ([`timeout_millis`]).
//!
//! The entry points are [`incr_float`], [`parse_double`],
//! [`parse_score_bound`] and [`timeout_millis`]. No Strata dependencies.

use std::ffi::{c_char, c_double, c_int, c_longlong};

/// Longest text a float may have (Redis's `MAX_LONG_DOUBLE_CHARS`); every
/// finite `long double` prints within it.
const MAX_CHARS: usize = 5 * 1024;

extern "C" {
    fn strata_incr_float(
        current: *const u8,
        current_len: usize,
        has_current: c_int,
        increment: *const u8,
        increment_len: usize,
        out: *mut c_char,
        out_cap: usize,
        out_len: *mut usize,
    ) -> c_int;

    fn strata_parse_double(
        text: *const c_char,
        len: usize,
        mode: c_int,
        out: *mut c_double,
    ) -> c_int;

    fn strata_timeout_ms(text: *const u8, len: usize, out: *mut c_longlong) -> c_int;
}

/// A blocking command's timeout in seconds (`BLPOP`, `BLMOVE`, `BZPOPMIN`,
/// ...) as Redis's `getTimeoutFromObjectOrReply` reads it: the text as
/// [`incr_float`] parses one, times 1000 rounded up to whole milliseconds in
/// `long double` (`0.0001` is 1 ms; `-0.0001` is 0, forever), and
/// `i64::MIN` when beyond the `i64` range (`9.3e15`, `inf`), which Redis
/// then refuses as negative. `None` when the text is not a float.
pub fn timeout_millis(text: &[u8]) -> Option<i64> {
    // Whole seconds of up to 15 digits (nearly every client's timeout) are
    // exact in `long double` and far inside the range: times 1000 is what
    // the C path computes, without its parse.
    if (1..=15).contains(&text.len()) && text.iter().all(u8::is_ascii_digit) {
        let secs = text.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
        return Some(secs * 1000);
    }
    long_double_timeout_millis(text)
}

/// [`timeout_millis`] through the C code, for any text.
fn long_double_timeout_millis(text: &[u8]) -> Option<i64> {
    let mut ms: c_longlong = 0;
    // SAFETY: `text` is a live borrowed slice passed with its length (the
    // C code copies at most that many bytes into a buffer of its own);
    // `ms` is a live integer written at most once; no pointer is kept.
    let ok = unsafe { strata_timeout_ms(text.as_ptr(), text.len(), std::ptr::from_mut(&mut ms)) };
    (ok == 1).then_some(ms)
}

/// `strata_parse_double`'s modes.
const DOUBLE_STRICT: c_int = 0;
const DOUBLE_RANGE: c_int = 1;

/// A double as Redis's `string2d` reads one (arguments that must be
/// floats: `ZADD` scores, `ZINCRBY`, weights, coordinates, timeouts): the
/// whole text as C's `strtod` reads it (decimal or hexadecimal, `inf`,
/// `infinity`), no leading space, not NaN, not beyond the `f64` range
/// (neither overflowing nor underflowing to zero).
pub fn parse_double(text: &[u8]) -> Option<f64> {
    parse_with(text, DOUBLE_STRICT)
}

/// A sorted-set score bound without its `(` as Redis's `zslParseRange`
/// reads one: whatever `strtod` reads up to the first NUL byte, leading
/// space allowed, out-of-range values as infinity or zero, the empty text
/// as 0; only NaN and trailing text are refused.
pub fn parse_score_bound(text: &[u8]) -> Option<f64> {
    parse_with(text, DOUBLE_RANGE)
}

/// Texts shorter than this are copied to the stack, not the heap (a score
/// is usually a few bytes; ZADD parses one per member).
const STACK_TEXT: usize = 64;

fn parse_with(text: &[u8], mode: c_int) -> Option<f64> {
    let mut stack = [0u8; STACK_TEXT];
    let mut heap = Vec::new();
    let terminated: &[u8] = if text.len() < STACK_TEXT {
        stack[..text.len()].copy_from_slice(text);
        &stack[..=text.len()]
    } else {
        heap.reserve_exact(text.len() + 1);
        heap.extend_from_slice(text);
        heap.push(0);
        &heap
    };
    let mut value: c_double = 0.0;
    // SAFETY: `terminated` is a live buffer of `text.len() + 1` bytes
    // whose last is NUL (the stack buffer is zeroed past the copy), so `strtod` (which reads up to a NUL) stays
    // inside it; `value` is a live double the function writes at most
    // once. It keeps no pointer and touches only the thread's `errno`.
    let ok = unsafe {
        strata_parse_double(
            terminated.as_ptr().cast::<c_char>(),
            text.len(),
            mode,
            std::ptr::from_mut(&mut value),
        )
    };
    (ok == 1).then_some(value)
}

/// Why an increment was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncrFloatError {
    /// The stored value is not a float (Redis's `string2ld` refuses it).
    CurrentNotFloat,
    /// The increment is not a float.
    IncrementNotFloat,
    /// The sum is NaN or infinite.
    NotFinite,
}

/// `current` (a missing value counts as 0) plus `increment`, both parsed
/// as Redis's `string2ld` parses (the whole text as C's `strtold` reads
/// it: decimal or hexadecimal, `inf`; no leading space, not NaN, not
/// beyond the `long double` range), added in `long double` and printed as
/// Redis's `INCRBYFLOAT` replies: `%.17Lf` without trailing zeros or a
/// bare point, `-0` as `0`.
pub fn incr_float(current: Option<&[u8]>, increment: &[u8]) -> Result<String, IncrFloatError> {
    let mut out = vec![0u8; MAX_CHARS];
    let mut len = 0usize;
    let (cur_ptr, cur_len) = current.map_or((std::ptr::null(), 0), |c| (c.as_ptr(), c.len()));
    // SAFETY: every pointer is valid for the length passed with it for the
    // whole call (`current` and `increment` are borrowed slices, a null
    // `current` goes with length 0 and `has_current` 0 and is not read;
    // `out` is a live buffer of `out.len()` bytes, `len` a live usize). The
    // C function reads only within those lengths (it copies each input
    // into a NUL-terminated buffer of its own), writes at most `out_cap`
    // bytes to `out` and one usize to `out_len`, keeps no pointer, and
    // touches no state but the calling thread's `errno`.
    let code = unsafe {
        strata_incr_float(
            cur_ptr,
            cur_len,
            c_int::from(current.is_some()),
            increment.as_ptr(),
            increment.len(),
            out.as_mut_ptr().cast::<c_char>(),
            out.len(),
            std::ptr::from_mut(&mut len),
        )
    };
    match code {
        0 => {
            out.truncate(len.min(MAX_CHARS));
            // snprintf of a number writes ASCII only.
            Ok(String::from_utf8_lossy(&out).into_owned())
        }
        1 => Err(IncrFloatError::CurrentNotFloat),
        2 => Err(IncrFloatError::IncrementNotFloat),
        // 3, and 4 (no room: no finite long double prints that long).
        _ => Err(IncrFloatError::NotFinite),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incr(current: Option<&str>, by: &str) -> Result<String, IncrFloatError> {
        incr_float(current.map(str::as_bytes), by.as_bytes())
    }

    #[test]
    fn sums_are_long_double_sums_printed_as_redis_prints_them() {
        // Each expected text is what Redis 7.0.15 replied on x86-64.
        assert_eq!(incr(Some("0.1"), "0.2").unwrap(), "0.3");
        assert_eq!(
            incr(Some("123456789012345678"), "1").unwrap(),
            "123456789012345679"
        );
        assert_eq!(incr(Some("10.50"), "0.1").unwrap(), "10.6");
        assert_eq!(incr(None, "3.0").unwrap(), "3");
        assert_eq!(incr(Some("3.0"), "-3").unwrap(), "0");
        assert_eq!(incr(Some("0"), "-0.0").unwrap(), "0");
        assert_eq!(incr(Some("1.5e-7"), "0").unwrap(), "0.00000015");
        assert_eq!(incr(Some("1e-20"), "0").unwrap(), "0");
        assert_eq!(incr(Some("1"), "1e-18").unwrap(), "1");
        assert_eq!(incr(Some("0x10"), "1").unwrap(), "17");
        assert_eq!(incr(Some("5"), "0x1p3").unwrap(), "13");
        assert_eq!(incr(Some("5"), ".5").unwrap(), "5.5");
        assert_eq!(incr(Some("5"), "+1").unwrap(), "6");
        let big = incr(Some("1e308"), "1e308").unwrap();
        assert_eq!(big.len(), 309);
        assert!(big.starts_with("19999999999999999999337175931169129132112019969483113"));
        assert_eq!(incr(None, "1e4900").unwrap().len(), 4901);
    }

    #[test]
    fn doubles_read_as_redis_reads_them() {
        let strict = |t: &str| parse_double(t.as_bytes());
        let bound = |t: &str| parse_score_bound(t.as_bytes());
        // Each as Redis 7.0.15 answered ZADD and ZRANGEBYSCORE on x86-64.
        assert_eq!(strict("1.5"), Some(1.5));
        assert_eq!(strict("0x10"), Some(16.0));
        assert_eq!(strict("inf"), Some(f64::INFINITY));
        assert_eq!(strict("-infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(strict("5e-324"), Some(5e-324));
        // Past the stack copy's length, on the heap.
        let long = format!("0.{}1", "0".repeat(STACK_TEXT + 10));
        let tiny: f64 = format!("1e-{}", STACK_TEXT + 11).parse().unwrap();
        assert_eq!(strict(&long), Some(tiny));
        assert_eq!(strict(&format!("{long} ")), None);
        assert_eq!(bound(&format!("({long}")[1..]), strict(&long));
        for refused in [
            "1e400", "-1e400", "1e-400", "nan", " 1", "1 ", "", "1\0", "abc", "1e",
        ] {
            assert_eq!(strict(refused), None, "{refused:?}");
        }
        assert_eq!(bound("1e400"), Some(f64::INFINITY));
        assert_eq!(bound("1e-400"), Some(0.0));
        assert_eq!(bound(" 5"), Some(5.0));
        assert_eq!(bound(""), Some(0.0));
        assert_eq!(bound("0x10"), Some(16.0));
        assert_eq!(bound("5\0x"), Some(5.0));
        for refused in ["5 ", "nan", "-nan", "abc"] {
            assert_eq!(bound(refused), None, "{refused:?}");
        }
    }

    #[test]
    fn timeouts_round_up_to_milliseconds_as_redis_s() {
        let ms = |t: &str| timeout_millis(t.as_bytes());
        // Each as Redis 7.0.15's BLPOP took it on x86-64.
        assert_eq!(ms("0"), Some(0));
        assert_eq!(ms("1.5"), Some(1500));
        assert_eq!(ms("0.0001"), Some(1));
        assert_eq!(ms("-0.0001"), Some(0));
        assert_eq!(ms("1e-400"), Some(1));
        assert_eq!(ms("0x1p-20"), Some(1));
        assert_eq!(ms("-1"), Some(-1000));
        assert_eq!(ms("9.2e15"), Some(9_200_000_000_000_000_000));
        for beyond in ["9.3e15", "1e20", "inf", "-inf"] {
            assert_eq!(ms(beyond), Some(i64::MIN), "{beyond}");
        }
        for refused in ["abc", " 1", "nan", "1e5000", ""] {
            assert_eq!(ms(refused), None, "{refused}");
        }
    }

    #[test]
    fn whole_seconds_skip_the_c_parse_with_its_answer() {
        for text in [
            "0",
            "1",
            "007",
            "86400",
            "999999999999999",
            "9223372036854",
            "000000000000001",
            "1000000000000000",
            "99999999999999999999",
        ] {
            assert_eq!(
                timeout_millis(text.as_bytes()),
                long_double_timeout_millis(text.as_bytes()),
                "{text}"
            );
        }
    }

    #[test]
    fn texts_redis_refuses_are_refused() {
        use IncrFloatError::*;
        assert_eq!(incr(Some(" 1"), "1"), Err(CurrentNotFloat));
        assert_eq!(incr(Some("1e5000"), "0"), Err(CurrentNotFloat));
        assert_eq!(incr(Some("abc"), "1"), Err(CurrentNotFloat));
        assert_eq!(incr(Some(""), "1"), Err(CurrentNotFloat));
        assert_eq!(incr(Some("1"), "1e"), Err(IncrementNotFloat));
        assert_eq!(incr(Some("1"), "nan"), Err(IncrementNotFloat));
        assert_eq!(incr(Some("1"), "1 "), Err(IncrementNotFloat));
        assert_eq!(incr(Some("1"), "1\0"), Err(IncrementNotFloat));
        assert_eq!(incr(None, &"1".repeat(MAX_CHARS)), Err(IncrementNotFloat));
        assert_eq!(incr(None, "inf"), Err(NotFinite));
        assert_eq!(incr(Some("1"), "infinity"), Err(NotFinite));
        assert_eq!(incr(Some("inf"), "-inf"), Err(NotFinite));
        assert_eq!(incr(Some("1e4932"), "1e4932"), Err(NotFinite));
    }
}
