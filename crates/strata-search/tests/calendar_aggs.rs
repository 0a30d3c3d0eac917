//! `date_histogram` with calendar intervals and time zones, and
//! `date_range`, checked against buckets computed here with chrono-tz
//! (independently of the engine's own calendar code).

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate, NaiveDateTime, Offset, TimeZone};
use chrono_tz::Tz;
use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchError, SearchRequest};

/// Timestamps around month ends, quarter ends, a year end and both 2024
/// Paris DST switches (2024-03-31 01:00Z and 2024-10-27 01:00Z).
fn stamps() -> Vec<i64> {
    let mut out = Vec::new();
    let base = [
        "2023-12-31T22:59:59Z",
        "2023-12-31T23:00:00Z",
        "2024-01-31T23:30:00Z",
        "2024-02-29T12:00:00Z",
        "2024-03-30T23:30:00Z",
        "2024-03-31T00:30:00Z",
        "2024-03-31T01:30:00Z",
        "2024-03-31T22:30:00Z",
        "2024-06-30T22:30:00Z",
        "2024-07-01T05:00:00Z",
        "2024-10-26T22:30:00Z",
        "2024-10-27T00:30:00Z",
        "2024-10-27T01:30:00Z",
        "2024-12-31T23:30:00Z",
    ];
    for s in base {
        out.push(
            chrono::DateTime::parse_from_rfc3339(s)
                .unwrap()
                .timestamp_millis(),
        );
    }
    // A spread of pseudo-random instants over 2024.
    let mut x: i64 = 12345;
    for _ in 0..150 {
        x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
        out.push(1_704_067_200_000 + (x % 366) * 86_400_000 + (x % 86_400) * 1000);
    }
    out
}

fn setup() -> (tempfile::TempDir, Catalog, Vec<i64>) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "ev",
            &json!({
                "settings": {"number_of_shards": 3, "refresh_interval": "-1"},
                "mappings": {"properties": {"t": {"type": "date"}, "n": {"type": "long"}}}
            }),
        )
        .unwrap();
    let stamps = stamps();
    for (i, t) in stamps.iter().enumerate() {
        let doc = json!({"t": t, "n": i});
        index
            .index_document(
                Some(&i.to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        if i % 50 == 0 {
            index.refresh().unwrap();
        }
    }
    index.refresh().unwrap();
    (tmp, catalog, stamps)
}

fn run(catalog: &Catalog, body: Value) -> Result<Value, SearchError> {
    let indices = catalog.resolve("ev").unwrap();
    search(&indices, &SearchRequest::parse(&body)?)
}

fn local_start(unit: &str, tz: Tz, ms: i64) -> i64 {
    let local = tz.timestamp_millis_opt(ms).unwrap().naive_local();
    let d = local.date();
    let midnight = |d: NaiveDate| d.and_hms_opt(0, 0, 0).unwrap();
    let start: NaiveDateTime = match unit {
        "year" => midnight(NaiveDate::from_ymd_opt(d.year(), 1, 1).unwrap()),
        "quarter" => {
            let m = (d.month() - 1) / 3 * 3 + 1;
            midnight(NaiveDate::from_ymd_opt(d.year(), m, 1).unwrap())
        }
        "month" => midnight(NaiveDate::from_ymd_opt(d.year(), d.month(), 1).unwrap()),
        "week" => {
            midnight(d - chrono::Duration::days(i64::from(d.weekday().num_days_from_monday())))
        }
        "day" => midnight(d),
        "hour" => {
            // Hours round with the instant's own offset: the hour repeated
            // when clocks go back is two buckets.
            let off = i64::from(
                tz.timestamp_millis_opt(ms)
                    .unwrap()
                    .offset()
                    .fix()
                    .local_minus_utc(),
            ) * 1000;
            return ms - (ms + off).rem_euclid(3_600_000);
        }
        _ => unreachable!(),
    };
    tz.from_local_datetime(&start)
        .earliest()
        .unwrap()
        .timestamp_millis()
}

#[test]
fn calendar_intervals_in_zones_match_chrono() {
    let (_tmp, c, stamps) = setup();
    for tz_name in ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata"] {
        let tz: Tz = tz_name.parse().unwrap();
        for unit in ["year", "quarter", "month", "week", "day", "hour"] {
            let mut expected: BTreeMap<i64, u64> = BTreeMap::new();
            for t in &stamps {
                *expected.entry(local_start(unit, tz, *t)).or_default() += 1;
            }
            let r = run(
                &c,
                json!({"size": 0, "aggs": {"h": {"date_histogram": {
                    "field": "t", "calendar_interval": unit, "time_zone": tz_name,
                    "min_doc_count": 1}}}}),
            )
            .unwrap();
            let got: BTreeMap<i64, u64> = r["aggregations"]["h"]["buckets"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| (b["key"].as_i64().unwrap(), b["doc_count"].as_u64().unwrap()))
                .collect();
            assert_eq!(got, expected, "{unit} in {tz_name}");
        }
    }
    // Short forms, key_as_string in the zone, empty buckets between.
    let r = run(
        &c,
        json!({"size": 0, "aggs": {"m": {"date_histogram": {
            "field": "t", "calendar_interval": "1M", "time_zone": "Europe/Paris"}}}}),
    )
    .unwrap();
    let buckets = r["aggregations"]["m"]["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 14, "Dec 2023 to Jan 2025, local");
    assert_eq!(buckets[0]["key_as_string"], "2023-12-01T00:00:00.000+01:00");
    assert_eq!(buckets[4]["key_as_string"], "2024-04-01T00:00:00.000+02:00");
    let total: u64 = buckets
        .iter()
        .map(|b| b["doc_count"].as_u64().unwrap())
        .sum();
    assert_eq!(total as usize, stamps.len());
}

#[test]
fn fixed_offsets_bounds_keyed_and_format() {
    let (_tmp, c, stamps) = setup();
    let off = chrono::FixedOffset::west_opt(5 * 3600 + 1800).unwrap();
    let mut expected: BTreeMap<i64, u64> = BTreeMap::new();
    for t in &stamps {
        let local = off.timestamp_millis_opt(*t).unwrap().naive_local().date();
        let start = off
            .from_local_datetime(&local.and_hms_opt(0, 0, 0).unwrap())
            .unwrap()
            .timestamp_millis();
        *expected.entry(start).or_default() += 1;
    }
    let r = run(
        &c,
        json!({"size": 0, "aggs": {"d": {"date_histogram": {
            "field": "t", "calendar_interval": "day", "time_zone": "-05:30", "min_doc_count": 1,
            "format": "yyyy-MM-dd"}}}}),
    )
    .unwrap();
    let buckets = r["aggregations"]["d"]["buckets"].as_array().unwrap();
    let got: BTreeMap<i64, u64> = buckets
        .iter()
        .map(|b| (b["key"].as_i64().unwrap(), b["doc_count"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(buckets[0]["key_as_string"], "2023-12-31");
    // extended_bounds adds empty months, hard_bounds cuts them.
    let r = run(
        &c,
        json!({"size": 0, "query": {"range": {"t": {"gte": "2024-05-01", "lt": "2024-06-01"}}},
               "aggs": {"m": {"date_histogram": {"field": "t", "calendar_interval": "month",
                 "extended_bounds": {"min": "2024-03-01", "max": "2024-08-31"}, "keyed": true}}}}),
    )
    .unwrap();
    let m = r["aggregations"]["m"]["buckets"].as_object().unwrap();
    let keys: Vec<&String> = m.keys().collect();
    assert_eq!(keys.len(), 6, "{keys:?}");
    assert_eq!(m["2024-03-01T00:00:00.000Z"]["doc_count"], 0);
    assert!(m["2024-05-01T00:00:00.000Z"]["doc_count"].as_u64().unwrap() > 0);
    let r = run(
        &c,
        json!({"size": 0, "aggs": {"q": {"date_histogram": {"field": "t", "calendar_interval": "quarter",
                 "hard_bounds": {"min": "2024-04-01", "max": "2024-09-30"}}}}}),
    )
    .unwrap();
    let q = r["aggregations"]["q"]["buckets"].as_array().unwrap();
    assert_eq!(q.len(), 2);
    assert_eq!(q[0]["key_as_string"], "2024-04-01T00:00:00.000Z");
}

#[test]
fn date_range_with_math_zone_and_keys() {
    let (_tmp, c, stamps) = setup();
    let ms = |s: &str| {
        chrono::DateTime::parse_from_rfc3339(s)
            .unwrap()
            .timestamp_millis()
    };
    let count = |lo: i64, hi: i64| stamps.iter().filter(|t| **t >= lo && **t < hi).count() as u64;
    let r = run(
        &c,
        json!({"size": 0, "aggs": {"r": {"date_range": {"field": "t", "time_zone": "+02:00",
        "ranges": [
            {"to": "2024-04-01"},
            {"from": "2024-03-01", "to": "2024-03-01||+1M"},
            {"from": "2024-07-01T00:00:00Z", "key": "h2"},
            {"from": "now-1000y/y", "to": "now+1y/y"}
        ]}}}}),
    )
    .unwrap();
    let b = r["aggregations"]["r"]["buckets"].as_array().unwrap();
    assert_eq!(b.len(), 4);
    // Sorted by from: the open one, the 1000-year one, March, H2.
    assert_eq!(b[0]["key"], "*-2024-04-01T00:00:00.000+02:00");
    assert_eq!(
        b[0]["doc_count"],
        count(i64::MIN, ms("2024-04-01T00:00:00+02:00"))
    );
    assert_eq!(b[1]["doc_count"].as_u64().unwrap() as usize, stamps.len());
    assert_eq!(
        b[2]["doc_count"],
        count(
            ms("2024-03-01T00:00:00+02:00"),
            ms("2024-04-01T00:00:00+02:00")
        )
    );
    assert_eq!(b[2]["from_as_string"], "2024-03-01T00:00:00.000+02:00");
    assert_eq!(b[2]["from"], json!(ms("2024-03-01T00:00:00+02:00") as f64));
    assert_eq!(b[3]["key"], "h2");
    assert_eq!(
        b[3]["doc_count"],
        count(ms("2024-07-01T00:00:00Z"), i64::MAX)
    );
    // Keyed, with a format, and with a metric below.
    let r = run(
        &c,
        json!({"size": 0, "aggs": {"r": {"date_range": {"field": "t", "keyed": true,
            "format": "yyyy-MM", "ranges": [{"from": "2024-01", "to": "2024-02"}]},
            "aggs": {"top": {"max": {"field": "n"}}}}}}),
    )
    .unwrap();
    let jan = &r["aggregations"]["r"]["buckets"]["2024-01-2024-02"];
    assert_eq!(
        jan["doc_count"],
        count(ms("2024-01-01T00:00:00Z"), ms("2024-02-01T00:00:00Z"))
    );
    assert!(jan["top"]["value"].is_number());
}

#[test]
fn bad_date_aggregations_are_400s() {
    let (_tmp, c, _) = setup();
    let cases = [
        json!({"date_histogram": {"field": "t", "calendar_interval": "2M"}}),
        json!({"date_histogram": {"field": "t", "fixed_interval": "1M"}}),
        json!({"date_histogram": {"field": "t"}}),
        json!({"date_histogram": {"field": "t", "calendar_interval": "day", "time_zone": "Mars/Base"}}),
        json!({"date_histogram": {"field": "t", "calendar_interval": "day", "fixed_interval": "1d"}}),
        json!({"date_range": {"field": "t"}}),
        json!({"date_range": {"field": "t", "ranges": [{"from": "yesterday"}]}}),
        json!({"date_range": {"field": "t", "ranges": [{"from": "now-1x"}]}}),
        json!({"date_range": {"field": "t", "ranges": [{"to": 1}], "bogus": 1}}),
    ];
    for agg in cases {
        let e = run(&c, json!({"size": 0, "aggs": {"a": agg}})).unwrap_err();
        assert_eq!(e.status(), 400, "{agg}: {e}");
    }
    let huge = json!({"size": 0, "aggs": {"a": {"date_histogram": {"field": "t",
        "calendar_interval": "minute", "extended_bounds": {"min": 0, "max": "2024-01-01"}}}}});
    assert_eq!(run(&c, huge).unwrap_err().status(), 400);
}

#[test]
fn range_query_time_zone_and_rounding() {
    let (_tmp, c, stamps) = setup();
    let ms = |s: &str| {
        chrono::DateTime::parse_from_rfc3339(s)
            .unwrap()
            .timestamp_millis()
    };
    let count = |lo: i64, hi: i64| stamps.iter().filter(|t| **t >= lo && **t <= hi).count();
    let total = |r: Value| r["hits"]["total"]["value"].as_u64().unwrap() as usize;
    // Dates without an offset are read in the zone; `lte` with `/M` rounds up.
    let r = run(
        &c,
        json!({"size": 0, "query": {"range": {"t": {"gte": "2024-03-01", "lte": "2024-03-10||/M",
                                                     "time_zone": "Europe/Paris"}}}}),
    )
    .unwrap();
    let lo = ms("2024-03-01T00:00:00+01:00");
    let hi = ms("2024-04-01T00:00:00+02:00") - 1;
    assert_eq!(total(r), count(lo, hi));
    let r = run(
        &c,
        json!({"size": 0, "query": {"range": {"t": {"gt": "2024-03-31T00:00:00Z||/d",
                                                     "lt": "2024-07-01T00:00:00Z"}}}}),
    )
    .unwrap();
    assert_eq!(
        total(r),
        count(ms("2024-04-01T00:00:00Z"), ms("2024-07-01T00:00:00Z") - 1)
    );
    let bad = json!({"query": {"range": {"t": {"gte": "2024", "time_zone": "Bad/Zone"}}}});
    assert_eq!(run(&c, bad).unwrap_err().status(), 400);
    let bad = json!({"query": {"range": {"t": {"gte": "now-1q"}}}});
    assert_eq!(run(&c, bad).unwrap_err().status(), 400);
}

#[test]
fn extreme_values_answer_without_panicking() {
    let (_tmp, c, _) = setup();
    let big = 9_000_000_000_000_000_000i64;
    let bodies = [
        json!({"size": 0, "aggs": {"a": {"date_histogram": {"field": "t", "calendar_interval": "year",
            "extended_bounds": {"min": -big, "max": big}}}}}),
        json!({"size": 0, "aggs": {"a": {"date_histogram": {"field": "t", "calendar_interval": "month",
            "time_zone": "Europe/Paris", "hard_bounds": {"min": -big, "max": big}}}}}),
        json!({"size": 0, "aggs": {"a": {"date_histogram": {"field": "t",
            "fixed_interval": "99999999999999999d"}}}}),
        json!({"size": 0, "aggs": {"a": {"date_histogram": {"field": "t", "calendar_interval": "day",
            "offset": big}}}}),
        json!({"size": 0, "aggs": {"a": {"date_range": {"field": "t", "ranges": [
            {"from": -big, "to": big}, {"from": "now-9999999999999y", "to": "now+9999999999999M"}]}}}}),
        json!({"query": {"range": {"t": {"gte": "now-9999999999999999999d"}}}}),
        json!({"query": {"range": {"t": {"gte": "now-999999999999999y/y", "time_zone": "Europe/Paris"}}}}),
        json!({"size": 18446744073709551615u64, "from": 5}),
        json!({"size": 0, "aggs": {"t": {"terms": {"field": "n"}, "aggs": {"h": {"top_hits": {
            "size": 18446744073709551615u64, "from": 10}}}}}}),
        json!({"query": {"query_string": {"query": "t:[now-99999999999999y TO *] a^999999999999999999999999999999999999999 b~99999"}}}),
        json!({"query": {"simple_query_string": {"query": "\"a b\"~99999999999999999999 c~9999999999999"}}}),
    ];
    for body in bodies {
        match run(&c, body.clone()) {
            Ok(_) => {}
            Err(e) => assert_eq!(e.status(), 400, "{body}: {e}"),
        }
    }
}
