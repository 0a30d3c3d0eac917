//! `range` and `date_range` parameters: good bodies and each refusal.

use serde_json::{json, Value};

use super::{RangeEdge, RangeParams, RangeSpec};
use crate::error::Result;
use crate::search::agg_tree::tests::{assert_refusals, typed};
use crate::search::agg_tree::TypedParams;
use crate::search::time_zone::TimeZone;

fn parsed(kind: &str, params: Value) -> Result<RangeParams> {
    match typed("r", kind, params)? {
        TypedParams::Range(r) => Ok(r),
        other => panic!("typed as {other:?}"),
    }
}

fn spec(key: Option<&str>, from: Option<RangeEdge>, to: Option<RangeEdge>) -> RangeSpec {
    RangeSpec {
        key: key.map(str::to_string),
        from,
        to,
    }
}

#[test]
fn ranges_as_written() {
    let r = parsed(
        "range",
        json!({"field": "n", "ranges": [{"to": 10}, {"from": "10", "to": null, "key": "big"}],
        "keyed": true, "format": "0.0", "missing": 3, "value_type": "long"}),
    )
    .unwrap();
    assert_eq!(r.field, "n");
    assert_eq!(
        r.ranges,
        vec![
            spec(None, None, Some(RangeEdge::Number(10.0))),
            spec(Some("big"), Some(RangeEdge::Text("10".into())), None),
        ]
    );
    assert!(r.keyed());
    assert_eq!(r.format.as_deref(), Some("0.0"));
    assert_eq!(r.missing, Some(json!(3)));
    assert_eq!(r.value_type.as_deref(), Some("long"));
    let written: Vec<_> = r.options_written().collect();
    assert_eq!(written, ["keyed", "format", "missing", "value_type"]);

    let d = parsed(
        "date_range",
        json!({"field": "ts", "time_zone": "+01:00", "format": "yyyy-MM-dd",
        "ranges": [{"from": "now-1d/d", "to": 1_700_000_000_000_i64}]}),
    )
    .unwrap();
    assert_eq!(d.time_zone, Some(TimeZone::parse("+01:00").unwrap()));
    assert!(!d.keyed());
    assert_eq!(
        d.ranges,
        vec![spec(
            None,
            Some(RangeEdge::Text("now-1d/d".into())),
            Some(RangeEdge::Number(1.7e12))
        )]
    );
    let plain = parsed("date_range", json!({"field": "ts", "ranges": [{}]})).unwrap();
    assert_eq!(plain.options_written().count(), 0);
}

#[test]
fn numeric_ends_are_read_as_numbers() {
    // (Checked by translation: `number_range`.)
    assert_eq!(RangeEdge::Text(" 2.5 ".into()).number(), Some(2.5));
    assert_eq!(RangeEdge::Text("x".into()).number(), None);
}

#[test]
fn bad_range_parameters_are_refused_at_parse() {
    let required =
        "Required one of fields [field, script], but none were specified (aggregation [r])";
    let no_ranges = "No [ranges] specified for the [r] aggregation";
    let cases = [
        (
            json!(1),
            "[range] of [r] must be an object",
            "parsing_exception",
        ),
        (
            json!({"ranges": [{}]}),
            required,
            "illegal_argument_exception",
        ),
        (
            json!({"field": 1, "ranges": [{}]}),
            required,
            "illegal_argument_exception",
        ),
        (
            json!({"field": "n", "script": "1", "ranges": [{}]}),
            "scripts are not supported",
            "illegal_argument_exception",
        ),
        (
            json!({"field": "n", "rangez": []}),
            "[range] unknown field [rangez]",
            "x_content_parse_exception",
        ),
        (
            json!({"field": "n", "time_zone": "Z", "ranges": [{}]}),
            "[range] unknown field [time_zone]",
            "x_content_parse_exception",
        ),
        (
            json!({"field": "n"}),
            no_ranges,
            "illegal_argument_exception",
        ),
        (
            json!({"field": "n", "ranges": []}),
            no_ranges,
            "illegal_argument_exception",
        ),
        (
            json!({"field": "n", "ranges": {"to": 1}}),
            no_ranges,
            "illegal_argument_exception",
        ),
        (
            json!({"field": "n", "ranges": [{}], "keyed": "yes"}),
            "[range] of [r]: bad [keyed] value [\"yes\"]",
            "parsing_exception",
        ),
        (
            json!({"field": "n", "ranges": [{}], "format": 1}),
            "[range] of [r]: bad [format] value [1]",
            "parsing_exception",
        ),
        (
            json!({"field": "n", "ranges": [{}], "value_type": 1}),
            "[range] of [r]: bad [value_type] value [1]",
            "parsing_exception",
        ),
        (
            json!({"field": "n", "ranges": [3]}),
            "[range] of [r]: bad [ranges] value [3]",
            "parsing_exception",
        ),
        (
            json!({"field": "n", "ranges": [{"from": 1, "gte": 2}]}),
            "[range] unknown field [gte]",
            "parsing_exception",
        ),
        (
            json!({"field": "n", "ranges": [{"from": true}]}),
            "[range] of [r]: bad [from] value [true]",
            "parsing_exception",
        ),
        (
            json!({"field": "n", "ranges": [{"to": [1]}]}),
            "[range] of [r]: bad [to] value [[1]]",
            "parsing_exception",
        ),
        (
            json!({"field": "n", "ranges": [{"key": 1}]}),
            "[range] of [r]: bad [key] value [1]",
            "parsing_exception",
        ),
    ];
    assert_refusals("r", "range", &cases);
}

#[test]
fn bad_date_range_parameters_are_refused_at_parse() {
    let cases = [
        (
            json!("ts"),
            "[date_range] of [r] must be an object",
            "parsing_exception",
        ),
        (
            json!({"field": "ts", "ranges": [{}], "value_type": "date"}),
            "[date_range] unknown field [value_type] in [r]",
            "parsing_exception",
        ),
        (
            json!({"field": "ts", "ranges": [{}], "time_zone": 1}),
            "[date_range] of [r]: bad [time_zone] value [1]",
            "parsing_exception",
        ),
        (
            json!({"field": "ts", "ranges": [], "keyed": true}),
            "No [ranges] specified for the [r] aggregation",
            "illegal_argument_exception",
        ),
        (
            json!({"field": "ts", "ranges": [{"from": {}}]}),
            "[date_range] of [r]: bad [from] value [{}]",
            "parsing_exception",
        ),
        (
            json!({"field": "ts", "ranges": [{"to": "now", "too": 1}]}),
            "[range] unknown field [too]",
            "parsing_exception",
        ),
    ];
    assert_refusals("r", "date_range", &cases);
    // A bad zone or format is refused in their parsers' words.
    assert!(parsed(
        "date_range",
        json!({"field": "ts", "ranges": [{}], "time_zone": "Mars/Olympus"})
    )
    .is_err());
}
