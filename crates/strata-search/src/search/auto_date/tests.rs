//! The rounding choice against Elasticsearch's REST tests' numbers.

use super::{choose, Choice};
use crate::mapping::date::days_from_civil;
use crate::search::time_zone::TimeZone;

const HOUR: i64 = 3_600_000;

fn at(y: i64, m: i64, d: i64, h: i64, min: i64, s: i64) -> i64 {
    days_from_civil(y, m, d) * 24 * HOUR + h * HOUR + min * 60_000 + s * 1000
}

fn utc(first: usize, buckets: i64, lo: i64, hi: i64) -> Choice {
    choose(first, buckets, TimeZone::UTC, Some((lo, hi)))
}

#[test]
fn elasticsearch_rest_test_numbers() {
    // "basic": 2020-03-01 .. 2020-03-09, 2 buckets: days merged by 7.
    let (lo, hi) = (at(2020, 3, 1, 0, 0, 0), at(2020, 3, 9, 0, 0, 0));
    assert_eq!(utc(0, 2, lo, hi), Choice { level: 3, group: 7 });
    // Two dates an hour apart: hours, then merged by 3 for one bucket.
    let (lo, hi) = (at(2017, 10, 20, 3, 8, 45), at(2017, 10, 20, 4, 10, 15));
    assert_eq!(utc(0, 2, lo, hi), Choice { level: 2, group: 1 });
    assert_eq!(utc(0, 1, lo, hi), Choice { level: 2, group: 3 });
}

#[test]
fn empty_data_minimum_interval_and_years() {
    assert_eq!(
        choose(0, 10, TimeZone::UTC, None),
        Choice { level: 0, group: 1 }
    );
    assert_eq!(
        choose(3, 10, TimeZone::UTC, None),
        Choice { level: 3, group: 1 }
    );
    let t = at(2024, 5, 5, 5, 5, 5);
    // One date: one second; with a minimum of months, one month.
    assert_eq!(utc(0, 10, t, t), Choice { level: 0, group: 1 });
    assert_eq!(utc(4, 10, t, t), Choice { level: 4, group: 1 });
    // Ten seconds, three buckets: seconds (limit 90) merged by 5.
    assert_eq!(utc(0, 3, t, t + 10_000), Choice { level: 0, group: 5 });
    // A span far beyond 100-year runs stays at years, unmerged.
    let far = at(1000, 1, 1, 0, 0, 0);
    assert_eq!(utc(0, 1, far, t), Choice { level: 5, group: 1 });
    assert_eq!(
        utc(0, 20, far, t),
        Choice {
            level: 5,
            group: 100
        }
    );
}

#[test]
fn the_rough_span_promotes_past_the_count() {
    // 91 days across three months (within 1 * 3 buckets), but more than
    // 90 rough days, so the shard collector promotes to years.
    let (lo, hi) = (at(2023, 3, 1, 0, 0, 0), at(2023, 5, 31, 0, 0, 0));
    assert_eq!(utc(0, 1, lo, hi), Choice { level: 5, group: 1 });
}
