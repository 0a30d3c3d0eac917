//! Timestamps of the simulated log: milliseconds since the Unix epoch (UTC), written as
//! ISO 8601 for `@timestamp` and in nginx's `[dd/Mon/yyyy:HH:MM:SS +0000]` form for `message`.
//!
//! Only the proleptic Gregorian calendar in UTC is needed, so the conversion is the
//! days-from-civil arithmetic, without a date library.

use std::fmt::Write as _;

const MS_PER_DAY: i64 = 86_400_000;
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// A calendar date and time of day in UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// Year, e.g. 2026.
    pub year: i64,
    /// Month, 1 to 12.
    pub month: u32,
    /// Day of the month, 1 to 31.
    pub day: u32,
    /// Milliseconds since midnight.
    pub ms_of_day: u32,
}

/// Days since 1970-01-01 of a date (any month and day in range).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(month) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

impl Civil {
    /// The date and time of `ms` milliseconds since the epoch.
    pub fn from_epoch_ms(ms: i64) -> Self {
        let days = ms.div_euclid(MS_PER_DAY);
        let ms_of_day = ms.rem_euclid(MS_PER_DAY) as u32;
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = yoe + era * 400 + i64::from(month <= 2);
        Self {
            year,
            month,
            day,
            ms_of_day,
        }
    }

    fn hms(self) -> (u32, u32, u32, u32) {
        let secs = self.ms_of_day / 1000;
        (
            secs / 3600,
            secs / 60 % 60,
            secs % 60,
            self.ms_of_day % 1000,
        )
    }
}

/// Appends `ms` as `2026-01-01T00:00:00.000Z` (`strict_date_optional_time`).
pub fn write_iso(out: &mut String, ms: i64) {
    let c = Civil::from_epoch_ms(ms);
    let (h, m, s, milli) = c.hms();
    // Writing to a String cannot fail.
    let _ = write!(
        out,
        "{:04}-{:02}-{:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z",
        c.year, c.month, c.day
    );
}

/// `ms` as an ISO 8601 string.
pub fn iso(ms: i64) -> String {
    let mut out = String::with_capacity(24);
    write_iso(&mut out, ms);
    out
}

/// Appends `ms` as nginx's access-log time, `01/Jan/2026:00:00:00 +0000`.
pub fn write_nginx(out: &mut String, ms: i64) {
    let c = Civil::from_epoch_ms(ms);
    let (h, m, s, _) = c.hms();
    let month = MONTHS[(c.month - 1) as usize];
    let _ = write!(
        out,
        "{:02}/{month}/{:04}:{h:02}:{m:02}:{s:02} +0000",
        c.day, c.year
    );
}

/// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SS` (optionally ending in `Z`) as UTC, or a plain
/// number of epoch milliseconds.
pub fn parse_start(text: &str) -> Result<i64, String> {
    if let Ok(ms) = text.parse::<i64>() {
        return Ok(ms);
    }
    let bad = || format!("{text:?} is not YYYY-MM-DD[THH:MM:SS[Z]] nor epoch milliseconds");
    let trimmed = text.strip_suffix('Z').unwrap_or(text);
    let (date, time) = trimmed.split_once('T').unwrap_or((trimmed, "00:00:00"));
    let numbers = |s: &str, sep: char| -> Option<Vec<i64>> {
        s.split(sep).map(|p| p.parse::<i64>().ok()).collect()
    };
    let (Some(d), Some(t)) = (numbers(date, '-'), numbers(time, ':')) else {
        return Err(bad());
    };
    let (&[year, month, day], &[h, m, s]) = (&d[..], &t[..]) else {
        return Err(bad());
    };
    let valid = (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && (0..24).contains(&h)
        && (0..60).contains(&m)
        && (0..60).contains(&s)
        && (1..=9999).contains(&year);
    if !valid {
        return Err(bad());
    }
    let days = days_from_civil(year, month as u32, day as u32);
    Ok(days * MS_PER_DAY + (h * 3600 + m * 60 + s) * 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(iso(0), "1970-01-01T00:00:00.000Z");
        // 2024-02-29T13:45:30.250Z, a leap day.
        assert_eq!(iso(1_709_214_330_250), "2024-02-29T13:45:30.250Z");
        let mut line = String::new();
        write_nginx(&mut line, 1_709_214_330_250);
        assert_eq!(line, "29/Feb/2024:13:45:30 +0000");
    }

    #[test]
    fn parse_and_format_round_trip() {
        for text in ["2026-01-01", "2024-02-29T13:45:30Z", "1999-12-31T23:59:59"] {
            let ms = parse_start(text).unwrap();
            let back = iso(ms);
            assert!(
                back.starts_with(text.trim_end_matches('Z')),
                "{text} -> {back}"
            );
        }
        assert_eq!(parse_start("1700000000000"), Ok(1_700_000_000_000));
        for bad in ["2026-13-01", "yesterday", "2026-01", "2026-01-01T25:00:00"] {
            assert!(parse_start(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn every_day_of_four_centuries_round_trips() {
        let mut day = days_from_civil(1900, 1, 1);
        let end = days_from_civil(2300, 1, 1);
        while day < end {
            let c = Civil::from_epoch_ms(day * MS_PER_DAY);
            assert_eq!(days_from_civil(c.year, c.month, c.day), day);
            day += 1;
        }
    }
}
