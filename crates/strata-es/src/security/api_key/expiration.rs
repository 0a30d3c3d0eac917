//! Elasticsearch time values for `expiration`: a non-negative number and
//! a unit (`d`, `h`, `m`, `s`, `ms`, `micros`, `nanos`), e.g. `1d`, `90m`.

use crate::error::{EsError, Result};

/// `text` in milliseconds (sub-millisecond values round down).
pub fn parse_millis(text: &str) -> Result<u64> {
    let bad = || {
        EsError::Parse(format!(
            "failed to parse setting [expiration] with value [{text}] as a time value: unit is missing or unrecognized"
        ))
    };
    let duration = strata_search::parse_time_value(&text.to_ascii_lowercase()).ok_or_else(bad)?;
    u64::try_from(duration.as_millis()).map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse_millis("1d").unwrap(), 86_400_000);
        assert_eq!(parse_millis("2h").unwrap(), 7_200_000);
        assert_eq!(parse_millis("90m").unwrap(), 5_400_000);
        assert_eq!(parse_millis("10s").unwrap(), 10_000);
        assert_eq!(parse_millis("250ms").unwrap(), 250);
        assert_eq!(parse_millis("1500micros").unwrap(), 1);
        for bad in ["", "1", "d", "-1d", "1y", "1.5h"] {
            assert!(parse_millis(bad).is_err(), "{bad}");
        }
    }
}
