//! Dates as scripts see them (`doc['@timestamp'].value`): epoch
//! milliseconds in UTC, with the `ZonedDateTime` accessors scripts use.

use chrono::{DateTime, Datelike, Timelike, Utc};

fn at(millis: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(millis).unwrap_or_default()
}

/// ISO 8601 with milliseconds and `Z`, as Elasticsearch prints dates.
pub fn iso(millis: i64) -> String {
    let t = at(millis);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        t.month(),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.timestamp_subsec_millis()
    )
}

/// The `ZonedDateTime` getter `name` (`getYear`, `getHour`, ...), or `None`.
pub fn getter(millis: i64, name: &str) -> Option<i64> {
    let t = at(millis);
    Some(match name {
        "getYear" => i64::from(t.year()),
        "getMonthValue" => i64::from(t.month()),
        "getDayOfMonth" => i64::from(t.day()),
        "getDayOfYear" => i64::from(t.ordinal()),
        "getHour" => i64::from(t.hour()),
        "getMinute" => i64::from(t.minute()),
        "getSecond" => i64::from(t.second()),
        "getNano" => i64::from(t.nanosecond()),
        // `getDayOfWeekEnum().getValue()` in Painless: Monday is 1.
        "getDayOfWeek" => i64::from(t.weekday().number_from_monday()),
        "toEpochMilli" | "getMillis" => millis,
        "toEpochSecond" => millis.div_euclid(1000),
        _ => return None,
    })
}
