//! Elasticsearch time values: a non-negative integer and one of the units
//! `nanos`, `micros`, `ms`, `s`, `m`, `h`, `d` (`30s`, `5m`, `1d`). Callers
//! add their own error, naming the setting, and their own special values
//! (`-1` for off, a bare `0`).
//!
//! [`parse_interval`] is the index settings' own form (`refresh_interval`,
//! advisory time settings, rollover's `max_age`): here, a leaf, so both
//! `settings` and `advisory_settings` use it without naming each other.

use std::time::Duration;

use serde_json::Value;

use crate::error::{Result, SearchError};

/// `text` as a duration; `None` if the number or the unit is missing or
/// not one of Elasticsearch's. Large values saturate.
pub fn parse(text: &str) -> Option<Duration> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = t.split_at(split);
    let n: u64 = number.parse().ok()?;
    Some(match unit {
        "nanos" => Duration::from_nanos(n),
        "micros" => Duration::from_micros(n),
        "ms" => Duration::from_millis(n),
        "s" => Duration::from_secs(n),
        "m" => Duration::from_secs(n.saturating_mul(60)),
        "h" => Duration::from_secs(n.saturating_mul(3600)),
        "d" => Duration::from_secs(n.saturating_mul(86_400)),
        _ => return None,
    })
}

/// An index setting's interval: `1s`, `500ms`, `2m`, `1h`, `1d`, or `-1`
/// (none); the error names the setting `index.{key}`.
pub fn parse_interval(key: &str, v: &Value) -> Result<Option<Duration>> {
    let text = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let text = text.trim();
    if text == "-1" {
        return Ok(None);
    }
    let bad = || {
        SearchError::illegal(format!(
            "failed to parse setting [index.{key}] with value [{text}] as a time value: unit is missing or unrecognized"
        ))
    };
    let split = text.find(|c: char| !c.is_ascii_digit()).ok_or_else(bad)?;
    let (num, unit) = text.split_at(split);
    let n: u64 = num.parse().map_err(|_| bad())?;
    let scale = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(bad()),
    };
    // A number that overflows in milliseconds is refused, never wrapped.
    let millis = n.checked_mul(scale).ok_or_else(|| {
        SearchError::illegal(format!(
            "failed to parse setting [index.{key}] with value [{text}] as a time value: too large"
        ))
    })?;
    Ok(Some(Duration::from_millis(millis)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_refusals() {
        assert_eq!(parse("1d"), Some(Duration::from_secs(86_400)));
        assert_eq!(parse(" 90m "), Some(Duration::from_secs(5_400)));
        assert_eq!(parse("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(parse("1500micros"), Some(Duration::from_micros(1500)));
        assert_eq!(parse("7nanos"), Some(Duration::from_nanos(7)));
        for bad in ["", "1", "d", "-1d", "1y", "1.5h", "1 s"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_interval_too_large_is_refused_not_wrapped() {
        let interval = |v: &str| parse_interval("refresh_interval", &Value::from(v));
        assert_eq!(interval("30s").unwrap(), Some(Duration::from_secs(30)));
        assert_eq!(interval("-1").unwrap(), None);
        let err = interval("18446744073709551615d").unwrap_err().to_string();
        assert!(err.contains("too large"), "{err}");
        assert!(interval("213503982334601d").is_err());
        assert!(interval("1x").is_err());
    }
}
