//! Elasticsearch date math: an anchor (`now`, or a date followed by `||`)
//! and operations `+N<unit>`, `-N<unit>`, `/<unit>` with units `y M w d h
//! H m s`, applied in a time zone (months, years and rounding follow the
//! local calendar). A plain date without math is parsed with the format;
//! one without its own offset is read in the time zone.

use crate::error::{Result, SearchError};
use crate::mapping::date::{has_explicit_offset, DateFormat};
use crate::search::calendar::{add_units, floor_local, CalendarUnit};
use crate::search::time_zone::TimeZone;

/// Evaluates `expr` to epoch milliseconds. `round_up` makes `/unit` round
/// to the last millisecond of the unit (for `lte`/`gt` bounds).
pub fn eval(
    expr: &str,
    now: i64,
    tz: TimeZone,
    format: &DateFormat,
    round_up: bool,
) -> Result<i64> {
    let bad = || {
        SearchError::parsing(format!(
            "failed to parse date field [{expr}] with format [{}]",
            format.as_str()
        ))
    };
    let (anchor, ops) = if let Some(rest) = expr.strip_prefix("now") {
        (now, rest)
    } else if let Some((date, rest)) = expr.split_once("||") {
        (parse_date(date, tz, format)?, rest)
    } else {
        return parse_date(expr, tz, format);
    };
    let mut local = tz.to_local(anchor);
    let chars: Vec<char> = ops.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let op = chars[i];
        i += 1;
        let start = i;
        while chars.get(i).is_some_and(char::is_ascii_digit) {
            i += 1;
        }
        let digits: String = chars[start..i].iter().collect();
        let unit = chars
            .get(i)
            .copied()
            .and_then(CalendarUnit::from_math_letter)
            .ok_or_else(bad)?;
        i += 1;
        match op {
            '/' if digits.is_empty() => {
                local = floor_local(unit, local);
                if round_up {
                    local = add_units(unit, local, 1) - 1;
                }
            }
            '+' | '-' => {
                let n: i64 = if digits.is_empty() {
                    1
                } else {
                    digits.parse().map_err(|_| bad())?
                };
                let n = if op == '-' { -n } else { n };
                local = add_units(unit, local, n);
            }
            _ => return Err(bad()),
        }
    }
    Ok(tz.to_utc(local))
}

/// A date string (or epoch number) in `format`, read in `tz` unless it
/// names its own offset.
pub fn parse_date(text: &str, tz: TimeZone, format: &DateFormat) -> Result<i64> {
    let millis = format
        .parse_str(text)
        .map_err(|e| SearchError::parsing(e.to_string()))?;
    let numeric = text.trim().parse::<f64>().is_ok();
    if tz.is_utc() || has_explicit_offset(text) || numeric {
        return Ok(millis);
    }
    Ok(tz.to_utc(millis))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::date::DEFAULT_DATE_FORMAT;

    #[test]
    fn math_forms() {
        let f = DateFormat::parse(DEFAULT_DATE_FORMAT).unwrap();
        let now = f.parse_str("2024-03-15T10:20:30Z").unwrap();
        let at = |s: &str| f.parse_str(s).unwrap();
        let e = |x: &str| eval(x, now, TimeZone::UTC, &f, false).unwrap();
        assert_eq!(e("now"), now);
        assert_eq!(e("now-1d/d"), at("2024-03-14T00:00:00Z"));
        assert_eq!(e("now/M"), at("2024-03-01T00:00:00Z"));
        assert_eq!(e("now-1M"), at("2024-02-15T10:20:30Z"));
        assert_eq!(e("now+1y/y"), at("2025-01-01T00:00:00Z"));
        assert_eq!(e("2024-01-31||+1M"), at("2024-02-29T00:00:00Z"));
        assert_eq!(e("2024-01-31"), at("2024-01-31T00:00:00Z"));
        assert_eq!(
            eval("now/d", now, TimeZone::UTC, &f, true).unwrap(),
            at("2024-03-15T23:59:59.999Z")
        );
        let plus2 = TimeZone::parse("+02:00").unwrap();
        assert_eq!(
            eval("now/d", now, plus2, &f, false).unwrap(),
            at("2024-03-15T00:00:00+02:00")
        );
        assert_eq!(
            eval("2024-03-01", now, plus2, &f, false).unwrap(),
            at("2024-03-01T00:00:00+02:00")
        );
        assert_eq!(
            eval("2024-03-01T00:00:00Z", now, plus2, &f, false).unwrap(),
            at("2024-03-01T00:00:00Z")
        );
        for bad in ["now-1x", "now+", "now/2d", "yesterday", "2024-13-01||+1d"] {
            assert!(eval(bad, now, TimeZone::UTC, &f, false).is_err(), "{bad}");
        }
    }
}
