//! Time zones of aggregations and date math: fixed offsets (`+02:00`,
//! `-05:30`, `Z`, `UTC`) and IANA names (`Europe/Paris`, with daylight
//! saving through `chrono-tz`'s bundled database).
//!
//! Local times are "wall-clock" epoch milliseconds (the UTC instant whose
//! calendar fields equal the local ones). A local time that does not exist
//! (a spring-forward gap) maps to the first instant after the gap; one
//! that exists twice (fall-back) maps to the earlier instant, as
//! Elasticsearch's rounding does.

use std::str::FromStr;

use chrono::{NaiveDateTime, Offset, TimeZone as _};
use chrono_tz::Tz;

use crate::error::{Result, SearchError};

/// A parsed `time_zone` parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum TimeZone {
    /// A constant offset from UTC, in seconds east.
    Fixed(i32),
    /// An IANA zone.
    Named(Tz),
}

impl TimeZone {
    /// UTC.
    pub const UTC: TimeZone = TimeZone::Fixed(0);

    /// Parses `UTC`, `Z`, `+02:00`, `-0530`, `+02` or an IANA name.
    pub fn parse(text: &str) -> Result<TimeZone> {
        let t = text.trim();
        if matches!(t, "Z" | "z" | "UTC" | "utc" | "GMT" | "Etc/UTC" | "Etc/GMT") {
            return Ok(TimeZone::UTC);
        }
        if let Some(offset) = parse_offset(t) {
            return Ok(TimeZone::Fixed(offset));
        }
        let rest = t
            .strip_prefix("UTC")
            .or_else(|| t.strip_prefix("GMT"))
            .filter(|r| r.starts_with(['+', '-']));
        if let Some(offset) = rest.and_then(parse_offset) {
            return Ok(TimeZone::Fixed(offset));
        }
        match Tz::from_str(t) {
            Ok(tz) => Ok(TimeZone::Named(tz)),
            Err(_) => Err(SearchError::illegal(format!(
                "Unknown time-zone ID: {text}"
            ))),
        }
    }

    /// True when the offset never changes.
    pub fn is_fixed(&self) -> bool {
        matches!(self, TimeZone::Fixed(_))
    }

    /// True for UTC.
    pub fn is_utc(&self) -> bool {
        *self == TimeZone::UTC
    }

    /// The offset in force at the UTC instant `utc_ms`, in milliseconds.
    pub fn offset_millis(&self, utc_ms: i64) -> i64 {
        match self {
            TimeZone::Fixed(secs) => i64::from(*secs) * 1000,
            TimeZone::Named(tz) => match chrono::DateTime::from_timestamp_millis(utc_ms) {
                Some(dt) => {
                    let off = tz.offset_from_utc_datetime(&dt.naive_utc());
                    i64::from(off.fix().local_minus_utc()) * 1000
                }
                None => 0,
            },
        }
    }

    /// The local wall-clock time of `utc_ms`.
    pub fn to_local(self, utc_ms: i64) -> i64 {
        utc_ms.saturating_add(self.offset_millis(utc_ms))
    }

    /// The UTC instant of the local wall-clock time `local_ms` (gaps move
    /// forward, overlaps take the earlier instant).
    pub fn to_utc(self, local_ms: i64) -> i64 {
        let TimeZone::Named(tz) = self else {
            return local_ms.saturating_sub(self.offset_millis(0));
        };
        let Some(naive) = naive(local_ms) else {
            return local_ms;
        };
        match tz.from_local_datetime(&naive) {
            chrono::LocalResult::Single(dt) => dt.timestamp_millis(),
            chrono::LocalResult::Ambiguous(a, b) => a.timestamp_millis().min(b.timestamp_millis()),
            chrono::LocalResult::None => {
                // In a gap: the first instant (to the minute) whose local
                // time is at or past `local_ms`, which is the transition.
                let before = self.offset_millis(local_ms - 86_400_000);
                let after = self.offset_millis(local_ms + 86_400_000);
                let mut t = (local_ms - before).min(local_ms - after);
                let limit = (local_ms - before).max(local_ms - after);
                while t < limit && self.to_local(t) < local_ms {
                    t = t.saturating_add(60_000);
                }
                t
            }
        }
    }

    /// The offset as Elasticsearch prints it (`Z`, `+02:00`).
    pub fn offset_suffix(&self, utc_ms: i64) -> String {
        let secs = self.offset_millis(utc_ms) / 1000;
        if secs == 0 {
            return "Z".into();
        }
        let sign = if secs < 0 { '-' } else { '+' };
        let secs = secs.abs();
        format!("{sign}{:02}:{:02}", secs / 3600, secs / 60 % 60)
    }
}

fn naive(local_ms: i64) -> Option<NaiveDateTime> {
    chrono::DateTime::from_timestamp_millis(local_ms).map(|d| d.naive_utc())
}

/// `+02:00`, `-0530`, `+02`: seconds east.
fn parse_offset(t: &str) -> Option<i32> {
    let sign = match t.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = t[1..].chars().filter(|c| *c != ':').collect();
    if !digits.chars().all(|c| c.is_ascii_digit()) || !matches!(digits.len(), 1 | 2 | 4) {
        return None;
    }
    let (h, m) = if digits.len() == 4 {
        (
            digits[..2].parse::<i32>().ok()?,
            digits[2..].parse::<i32>().ok()?,
        )
    } else {
        (digits.parse::<i32>().ok()?, 0)
    };
    (h <= 18 && m < 60).then_some(sign * (h * 3600 + m * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_converts() {
        assert_eq!(TimeZone::parse("+02:00").unwrap(), TimeZone::Fixed(7200));
        assert_eq!(TimeZone::parse("-05:30").unwrap(), TimeZone::Fixed(-19800));
        assert_eq!(TimeZone::parse("+0530").unwrap(), TimeZone::Fixed(19800));
        assert_eq!(TimeZone::parse("UTC").unwrap(), TimeZone::UTC);
        assert!(TimeZone::parse("Mars/Olympus").is_err());
        assert!(TimeZone::parse("+25:00").is_err());
        let paris = TimeZone::parse("Europe/Paris").unwrap();
        // 2024-03-31 01:00Z is the spring-forward instant (+01:00 -> +02:00).
        let switch = 1_711_846_800_000;
        assert_eq!(paris.offset_millis(switch - 1), 3_600_000);
        assert_eq!(paris.offset_millis(switch), 7_200_000);
        // Local 02:30 does not exist that day: it maps to the switch.
        let local_0230 = 1_711_852_200_000; // 2024-03-31T02:30 as wall clock
        assert_eq!(paris.to_utc(local_0230), switch);
        // Local midnight of 2024-03-31 is 23:00Z the day before.
        assert_eq!(paris.to_utc(1_711_843_200_000), 1_711_839_600_000);
        assert_eq!(paris.offset_suffix(switch), "+02:00");
        assert_eq!(TimeZone::UTC.offset_suffix(0), "Z");
    }
}
