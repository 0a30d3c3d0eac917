//! The roundings an `auto_date_histogram` chooses among, finest first, as
//! Elasticsearch 8 lists them: each a calendar unit (in the request's
//! zone), the inner intervals its buckets may be merged by, a rough
//! length (months count as 30 days, years as 365) and the letter of the
//! response's `interval` (`7d`, `3M`).

use crate::search::calendar::CalendarUnit;

/// One rounding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    /// The unit buckets are rounded to.
    pub unit: CalendarUnit,
    /// Its name for `minimum_interval`.
    pub name: &'static str,
    /// Its letter in `interval`.
    pub letter: &'static str,
    /// Its rough length in milliseconds.
    pub rough: i64,
    /// How many consecutive buckets may be merged into one, ascending;
    /// the last is the largest.
    pub inner: &'static [i64],
}

impl Level {
    /// The largest inner interval.
    pub fn widest(&self) -> i64 {
        self.inner.last().copied().unwrap_or(1)
    }
}

const SECOND: i64 = 1000;
const DAY: i64 = 86_400 * SECOND;

/// Every rounding, finest first (the order `minimum_interval` cuts).
pub const LEVELS: [Level; 6] = [
    Level {
        unit: CalendarUnit::Second,
        name: "second",
        letter: "s",
        rough: SECOND,
        inner: &[1, 5, 10, 30],
    },
    Level {
        unit: CalendarUnit::Minute,
        name: "minute",
        letter: "m",
        rough: 60 * SECOND,
        inner: &[1, 5, 10, 30],
    },
    Level {
        unit: CalendarUnit::Hour,
        name: "hour",
        letter: "h",
        rough: 3600 * SECOND,
        inner: &[1, 3, 12],
    },
    Level {
        unit: CalendarUnit::Day,
        name: "day",
        letter: "d",
        rough: DAY,
        inner: &[1, 7],
    },
    Level {
        unit: CalendarUnit::Month,
        name: "month",
        letter: "M",
        rough: 30 * DAY,
        inner: &[1, 3],
    },
    Level {
        unit: CalendarUnit::Year,
        name: "year",
        letter: "y",
        rough: 365 * DAY,
        inner: &[1, 5, 10, 20, 50, 100],
    },
];

/// The index of the level `minimum_interval` names.
pub fn level_named(name: &str) -> Option<usize> {
    LEVELS.iter().position(|l| l.name == name)
}

/// The largest inner interval of the levels from `first` on, the last
/// excepted (Elasticsearch's bucket ceiling divides `search.max_buckets`
/// by it); with only the last level left, the last level's own.
pub fn widest_inner(first: usize) -> i64 {
    let below_last = &LEVELS[first.min(LEVELS.len() - 1)..LEVELS.len() - 1];
    below_last
        .iter()
        .map(Level::widest)
        .max()
        .unwrap_or_else(|| LEVELS[LEVELS.len() - 1].widest())
}

#[cfg(test)]
mod tests {
    use super::{level_named, widest_inner};

    #[test]
    fn names_and_ceilings() {
        assert_eq!(level_named("second"), Some(0));
        assert_eq!(level_named("year"), Some(5));
        assert_eq!(level_named("week"), None);
        assert_eq!(widest_inner(0), 30);
        assert_eq!(widest_inner(2), 12);
        assert_eq!(widest_inner(4), 3);
        assert_eq!(widest_inner(5), 100);
    }
}
