//! Elasticsearch time values: a non-negative integer and one of the units
//! `nanos`, `micros`, `ms`, `s`, `m`, `h`, `d` (`30s`, `5m`, `1d`). Callers
//! add their own error, naming the setting, and their own special values
//! (`-1` for off, a bare `0`).

use std::time::Duration;

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
}
