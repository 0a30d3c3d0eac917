//! Date rounding for `date_histogram` and date math: calendar units
//! (`minute` ... `year`, also written `1m`, `1h`, `1d`, `1w`, `1M`, `1q`,
//! `1y`) and fixed intervals, both in a time zone. Bucket starts are the
//! local calendar boundaries (months start on the 1st, quarters in
//! January/April/July/October, weeks on Monday) converted back to UTC.

use super::time_zone::TimeZone;
use crate::mapping::date::{civil_from_days, days_from_civil};

const DAY: i64 = 86_400_000;
/// Instants are kept within ±300,000 years of the epoch (Elasticsearch's
/// own range is ±292 million years, but no real data is near either).
pub const MAX_MILLIS: i64 = 300_000 * 366 * DAY;
const MAX_MONTHS: i64 = 12 * 600_000;

/// A calendar unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CalendarUnit {
    /// One second.
    Second,
    /// One minute.
    Minute,
    /// One hour.
    Hour,
    /// One local day.
    Day,
    /// One local week, from Monday.
    Week,
    /// One calendar month.
    Month,
    /// Three calendar months.
    Quarter,
    /// One calendar year.
    Year,
}

impl CalendarUnit {
    /// Parses `calendar_interval` (`month`, `1M`, ...); other multiples are not calendar units.
    pub fn parse(text: &str) -> Option<CalendarUnit> {
        Some(match text {
            "second" | "1s" => CalendarUnit::Second,
            "minute" | "1m" => CalendarUnit::Minute,
            "hour" | "1h" => CalendarUnit::Hour,
            "day" | "1d" => CalendarUnit::Day,
            "week" | "1w" => CalendarUnit::Week,
            "month" | "1M" => CalendarUnit::Month,
            "quarter" | "1q" => CalendarUnit::Quarter,
            "year" | "1y" => CalendarUnit::Year,
            _ => return None,
        })
    }

    /// The date-math unit letter (`y M w d h m s`; `q` is not one).
    pub fn from_math_letter(c: char) -> Option<CalendarUnit> {
        Some(match c {
            's' => CalendarUnit::Second,
            'm' => CalendarUnit::Minute,
            'h' | 'H' => CalendarUnit::Hour,
            'd' => CalendarUnit::Day,
            'w' => CalendarUnit::Week,
            'M' => CalendarUnit::Month,
            'y' => CalendarUnit::Year,
            _ => return None,
        })
    }

    /// The fixed length of units up to a week, in milliseconds.
    pub fn fixed_millis(self) -> Option<i64> {
        Some(match self {
            CalendarUnit::Second => 1000,
            CalendarUnit::Minute => 60_000,
            CalendarUnit::Hour => 3_600_000,
            CalendarUnit::Day => DAY,
            CalendarUnit::Week => 7 * DAY,
            _ => return None,
        })
    }
}

/// How dates are grouped: a calendar unit or a fixed interval, in a zone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rounding {
    /// The unit, or `None` for a fixed interval.
    pub unit: Option<CalendarUnit>,
    /// The fixed interval in milliseconds (for `unit: None`).
    pub fixed: i64,
    /// The time zone.
    pub tz: TimeZone,
    /// `offset`: bucket starts shifted by this many milliseconds.
    pub offset: i64,
}

impl Rounding {
    /// The length of buckets shorter than a day (seconds, minutes, hours,
    /// fixed intervals under a day): these round the local time; a local
    /// start that exists twice maps back with the instant's own offset, so
    /// the hour repeated when clocks go back is two buckets, as in
    /// Elasticsearch.
    fn sub_day(&self) -> Option<i64> {
        match self.unit {
            Some(unit) => unit.fixed_millis().filter(|ms| *ms < DAY),
            None => Some(self.fixed.max(1)).filter(|ms| *ms < DAY),
        }
    }

    /// The start (UTC) of the bucket holding the UTC instant `utc`.
    pub fn round_down(&self, utc: i64) -> i64 {
        let utc = utc.clamp(-MAX_MILLIS, MAX_MILLIS);
        if let Some(len) = self.sub_day() {
            let shifted = utc - self.offset;
            let local = self.tz.to_local(shifted);
            let floor = local.div_euclid(len) * len;
            // A local start that exists twice takes the instant's own
            // offset; otherwise the zone's rules place it.
            let own = floor - (local - shifted);
            let start = if self.tz.to_local(own) == floor {
                own
            } else {
                self.tz.to_utc(floor).min(shifted)
            };
            return start + self.offset;
        }
        let local = self.tz.to_local(utc - self.offset);
        let start = match self.unit {
            None => local.div_euclid(self.fixed.max(1)) * self.fixed.max(1),
            Some(unit) => floor_local(unit, local),
        };
        let mut out = self.tz.to_utc(start) + self.offset;
        // A start moved past `utc` by a gap belongs to the bucket before.
        if out > utc {
            out = self.tz.to_utc(start - 1) + self.offset;
            out = out.min(utc);
        }
        out
    }

    /// The start (UTC) of the bucket after the one starting at `start`.
    pub fn next(&self, start: i64) -> i64 {
        let start = start.clamp(-MAX_MILLIS, MAX_MILLIS);
        if let Some(len) = self.sub_day() {
            // One length on, pulled back to a local boundary when the
            // offset changed in between (a 12h bucket is 11h long on the
            // morning clocks go forward, as in Elasticsearch).
            let candidate = start + len;
            let aligned = self.round_down(candidate);
            return if aligned > start { aligned } else { candidate };
        }
        let local = self.tz.to_local(start - self.offset);
        let next_local = match self.unit {
            None => local + self.fixed.max(1),
            Some(unit) => add_units(unit, floor_local(unit, local), 1),
        };
        let next = self.tz.to_utc(next_local) + self.offset;
        if next > start {
            next
        } else {
            // Never stall, even across a transition.
            start
                + self
                    .unit
                    .and_then(CalendarUnit::fixed_millis)
                    .unwrap_or(self.fixed.max(1))
        }
    }
}

/// The local start of `unit` holding the local time `local`.
pub fn floor_local(unit: CalendarUnit, local: i64) -> i64 {
    let local = local.clamp(-MAX_MILLIS, MAX_MILLIS);
    if let Some(ms) = unit.fixed_millis() {
        if unit == CalendarUnit::Week {
            // 1970-01-05 was a Monday.
            return (local - 4 * DAY).div_euclid(ms) * ms + 4 * DAY;
        }
        return local.div_euclid(ms) * ms;
    }
    let (y, m, _) = civil_from_days(local.div_euclid(DAY));
    let first_month = match unit {
        CalendarUnit::Quarter => (m - 1) / 3 * 3 + 1,
        CalendarUnit::Year => 1,
        _ => m,
    };
    days_from_civil(y, first_month, 1) * DAY
}

/// `local` plus `n` units (months keep the day, clamped to the month's end).
pub fn add_units(unit: CalendarUnit, local: i64, n: i64) -> i64 {
    let local = local.clamp(-MAX_MILLIS, MAX_MILLIS);
    if let Some(ms) = unit.fixed_millis() {
        return local
            .saturating_add(n.saturating_mul(ms))
            .clamp(-MAX_MILLIS, MAX_MILLIS);
    }
    let months = match unit {
        CalendarUnit::Quarter => 3 * n,
        CalendarUnit::Year => 12 * n,
        _ => n,
    };
    let days = local.div_euclid(DAY);
    let time = local.rem_euclid(DAY);
    let (y, m, d) = civil_from_days(days);
    // Far beyond any representable date: stay put rather than overflow.
    let months = months.clamp(-MAX_MONTHS, MAX_MONTHS);
    let total = y * 12 + (m - 1) + months;
    let (ny, nm) = (total.div_euclid(12), total.rem_euclid(12) + 1);
    let (fy, fm) = if nm == 12 { (ny + 1, 1) } else { (ny, nm + 1) };
    let last = days_from_civil(fy, fm, 1) - days_from_civil(ny, nm, 1);
    (days_from_civil(ny, nm, d.min(last)) * DAY) + time
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(y: i64, m: i64, d: i64, h: i64) -> i64 {
        days_from_civil(y, m, d) * DAY + h * 3_600_000
    }

    #[test]
    fn calendar_boundaries() {
        let r = |unit, tz| Rounding {
            unit: Some(unit),
            fixed: 0,
            tz,
            offset: 0,
        };
        let month = r(CalendarUnit::Month, TimeZone::UTC);
        assert_eq!(month.round_down(utc(2024, 2, 29, 13)), utc(2024, 2, 1, 0));
        assert_eq!(month.next(utc(2024, 2, 1, 0)), utc(2024, 3, 1, 0));
        assert_eq!(month.next(utc(2024, 12, 1, 0)), utc(2025, 1, 1, 0));
        let q = r(CalendarUnit::Quarter, TimeZone::UTC);
        assert_eq!(q.round_down(utc(2024, 6, 30, 23)), utc(2024, 4, 1, 0));
        assert_eq!(q.next(utc(2024, 10, 1, 0)), utc(2025, 1, 1, 0));
        let y = r(CalendarUnit::Year, TimeZone::Fixed(3600));
        // 2023-12-31T23:30Z is 2024-01-01T00:30+01:00.
        assert_eq!(
            y.round_down(utc(2023, 12, 31, 23) + 1_800_000),
            utc(2023, 12, 31, 23)
        );
        let w = r(CalendarUnit::Week, TimeZone::UTC);
        assert_eq!(w.round_down(utc(2024, 3, 3, 12)), utc(2024, 2, 26, 0)); // Sunday -> Monday
        let paris = TimeZone::parse("Europe/Paris").unwrap();
        let day = r(CalendarUnit::Day, paris);
        // The day of the spring-forward switch is 23 hours long.
        let start = day.round_down(utc(2024, 3, 31, 12));
        assert_eq!(start, utc(2024, 3, 30, 23));
        assert_eq!(day.next(start) - start, 23 * 3_600_000);
        assert_eq!(
            add_units(CalendarUnit::Month, utc(2024, 1, 31, 5), 1),
            utc(2024, 2, 29, 5)
        );
        // Fixed 12h in Paris: the morning of the spring-forward switch is 11h long.
        let half = Rounding {
            unit: None,
            fixed: 12 * 3_600_000,
            tz: paris,
            offset: 0,
        };
        let morning = half.round_down(utc(2024, 3, 31, 5));
        assert_eq!(morning, utc(2024, 3, 30, 23));
        assert_eq!(half.next(morning), utc(2024, 3, 31, 10));
        // Hours when clocks go back: the repeated local hour is two buckets.
        let hour = r(CalendarUnit::Hour, paris);
        let first = hour.round_down(utc(2024, 10, 27, 0) + 1_800_000);
        let second = hour.round_down(utc(2024, 10, 27, 1) + 1_800_000);
        assert_eq!(
            (first, second),
            (utc(2024, 10, 27, 0), utc(2024, 10, 27, 1))
        );
        assert_eq!(hour.next(first), second);
        let fixed = Rounding {
            unit: None,
            fixed: 3 * 3_600_000,
            tz: TimeZone::Fixed(-5 * 3600 - 1800),
            offset: 0,
        };
        // Local 3-hour blocks at -05:30 start at 05:30Z, 08:30Z, ...
        assert_eq!(
            fixed.round_down(utc(2024, 1, 1, 7)),
            utc(2024, 1, 1, 5) + 1_800_000
        );
    }
}
