//! `rate`'s parse and its divisor under each kind of histogram (where a
//! rate may sit is tested through searches: `tests/rate_aggs.rs`).

use serde_json::json;

use super::*;

fn histogram(interval: serde_json::Value) -> DateHistogramParams {
    let mut body = json!({"field": "t"});
    body.as_object_mut()
        .unwrap()
        .extend(interval.as_object().unwrap().clone());
    DateHistogramParams::parse_body("h", &body).unwrap()
}

/// The divisor of a rate of `unit` directly under a histogram of `interval`.
fn direct(interval: serde_json::Value, unit: Option<&str>) -> Result<RateDivisor> {
    divisor(
        &histogram(interval),
        unit.and_then(CalendarUnit::parse),
        true,
    )
}

#[test]
fn divisors_as_elasticsearch_sizes_buckets() {
    let month = json!({"calendar_interval": "month"});
    let c = |d: Result<RateDivisor>| match d.unwrap() {
        RateDivisor::Constant(c) => c,
        other => panic!("{other:?}"),
    };
    assert_eq!(c(direct(month.clone(), Some("year"))), 1.0 / 12.0);
    assert_eq!(
        c(direct(json!({"calendar_interval": "1q"}), Some("month"))),
        3.0
    );
    assert_eq!(
        c(direct(json!({"calendar_interval": "day"}), Some("hour"))),
        24.0
    );
    assert_eq!(
        c(direct(json!({"fixed_interval": "10h"}), Some("minute"))),
        600.0
    );
    assert_eq!(c(direct(month.clone(), None)), 1.0);
    // A month-based bucket over days: its own length.
    let d = direct(month.clone(), Some("day")).unwrap();
    let jan = 1_704_067_200_000; // 2024-01-01T00:00:00Z
    let feb = 1_706_745_600_000;
    assert_eq!(d.for_bucket(Some(jan)), Some(31.0));
    assert_eq!(d.for_bucket(Some(feb)), Some(29.0));
    assert_eq!(d.for_bucket(None), None);
}

#[test]
fn mixes_elasticsearch_refuses_are_refused_in_its_words() {
    let cases = [
        (
            direct(json!({"fixed_interval": "30s"}), Some("month")),
            "Cannot use month-based rate unit [month] with fixed interval based histogram, only week, day, hour, minute and second are supported for this histogram",
        ),
        (
            direct(json!({"calendar_interval": "1d"}), Some("1y")),
            "Cannot use month-based rate unit [year] with non-month based calendar interval histogram [day] only week, day, hour, minute and second are supported for this histogram",
        ),
        (
            divisor(&histogram(json!({"calendar_interval": "quarter"})), Some(CalendarUnit::Second), false),
            "Cannot use non month-based rate unit [second] with calendar interval histogram [quarter] only month, quarter and year are supported for this histogram",
        ),
    ];
    for (got, reason) in cases {
        let err = got.expect_err(reason);
        assert!(err.to_string().contains(reason), "{err} / {reason}");
    }
}

#[test]
fn parameters_as_elasticsearch_reads_them() {
    let p = RateParams::parse(
        "r",
        &json!({"field": "n", "mode": "value_count", "unit": "1h"}),
    )
    .unwrap();
    assert_eq!(
        (p.mode, p.unit, p.divisor),
        (
            RateMode::ValueCount,
            Some(CalendarUnit::Hour),
            RateDivisor::Unplaced
        )
    );
    assert_eq!(
        RateParams::parse("r", &json!({"field": "n"})).unwrap().mode,
        RateMode::Sum
    );
    assert_eq!(
        RateParams::parse("r", &json!({})).unwrap().mode,
        RateMode::Documents
    );
    for (body, reason) in [
        (
            json!({"mode": "sum"}),
            "The mode parameter is only supported with field or script",
        ),
        (json!({"unit": "fortnight"}), "Unsupported unit fortnight"),
        (
            json!({"field": "n", "mode": "max"}),
            "No enum constant org.elasticsearch.xpack.analytics.rate.RateMode.MAX",
        ),
        (
            json!({"field": "n", "format": "0.0"}),
            "[format] of [rate] aggregation [r] is not supported by this server",
        ),
        (
            json!({"field": "n", "script": "1"}),
            "scripts are not supported",
        ),
        (json!({"feild": "n"}), "feild"),
    ] {
        let err = RateParams::parse("r", &body).expect_err(reason);
        assert!(err.to_string().contains(reason), "{err} / {reason}");
    }
}
