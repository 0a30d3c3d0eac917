//! Tests of [`CompositeParams`]: good bodies typed, each bad parameter
//! refused at the parse with its name in the message.

use serde_json::{json, Value};

use super::CompositeParams;
use crate::error::Result;
use crate::search::agg_tree::tests::{assert_refusals, typed};
use crate::search::agg_tree::{CompositeGrouping, CompositeSource, NullOrder, TypedParams};
use crate::search::bucket_limit::max_buckets;
use crate::search::calendar::CalendarUnit;

fn parsed(params: Value) -> Result<CompositeParams> {
    match typed("c", "composite", params)? {
        TypedParams::Composite(c) => Ok(c),
        other => panic!("typed as {other:?}"),
    }
}

#[test]
fn defaults() {
    let plain = parsed(json!({"sources": [{"a": {"terms": {"field": "tag"}}}]})).unwrap();
    assert_eq!(
        plain,
        CompositeParams {
            sources: vec![CompositeSource {
                name: "a".into(),
                field: "tag".into(),
                grouping: CompositeGrouping::Terms,
                descending: false,
                missing_bucket: false,
                nulls: NullOrder::First,
            }],
            size: 10,
            after: None,
        }
    );
    // `null` is as good as not written.
    let nulls = parsed(json!({"sources": [{"a": {"terms": {"field": "tag",
        "order": null, "missing_order": null}}}], "after": null}));
    assert_eq!(nulls.unwrap(), plain);
}

#[test]
fn every_parameter_typed_and_after_as_written() {
    let full = parsed(json!({"size": "5", "sources": [
        {"t": {"terms": {"field": "tag", "order": "desc", "missing_bucket": true,
            "missing_order": "default", "value_type": "string"}}},
        {"h": {"histogram": {"field": "n", "interval": 2.5, "order": "asc",
            "missing_bucket": false, "missing_order": "last"}}},
        {"d": {"date_histogram": {"field": "ts", "calendar_interval": "day",
            "format": "yyyy", "time_zone": "+01:00", "order": "desc",
            "missing_order": "first"}}},
        {"f": {"date_histogram": {"field": "ts", "fixed_interval": "1h"}}}],
        "after": {"d": "2020", "t": null, "h": 5, "f": 0}}))
    .unwrap();
    assert_eq!(full.size, 5);
    let [t, h, d, f] = &full.sources[..] else {
        panic!("four sources: {:?}", full.sources)
    };
    assert_eq!(
        (t.descending, t.missing_bucket, t.nulls),
        (true, true, NullOrder::Last)
    );
    assert_eq!(h.grouping, CompositeGrouping::Histogram(2.5));
    assert_eq!(
        (h.descending, h.missing_bucket, h.nulls),
        (false, false, NullOrder::Last)
    );
    match &d.grouping {
        CompositeGrouping::DateHistogram(p, formatted) => {
            assert!(*formatted);
            assert_eq!(p.field, "ts");
            assert_eq!(p.unit, Some(CalendarUnit::Day));
            assert!(p.format.is_some());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!((d.descending, d.nulls), (true, NullOrder::First));
    match &f.grouping {
        CompositeGrouping::DateHistogram(p, formatted) => {
            assert!(!*formatted);
            assert_eq!((p.unit, p.fixed), (None, 3_600_000));
        }
        other => panic!("{other:?}"),
    }
    // The sources' order, not the object's.
    assert_eq!(
        full.after,
        Some(vec![json!(null), json!(5), json!("2020"), json!(0)])
    );
}

#[test]
fn bad_parameters_are_refused_at_parse() {
    let tag = |params: Value| json!({"sources": [{"a": {"terms": params}}]});
    let source = |source: Value| json!({"sources": [source]});
    let size_0 = format!(
        "[size] must be within [1, {}] for composite aggregation [c], got [0]",
        max_buckets()
    );
    let cases = [
        (
            json!("x"),
            "[composite] of [c] must be an object",
            "parsing_exception",
        ),
        (
            json!({"sources": [{"a": {"terms": {"field": "tag"}}}], "sizee": 1}),
            "[composite] unknown field [sizee]",
            "x_content_parse_exception",
        ),
        (
            json!({"sources": []}),
            "Composite [sources] cannot be null or empty (aggregation [c])",
            "illegal_argument_exception",
        ),
        (
            json!({"sources": {"a": {"terms": {"field": "tag"}}}}),
            "Composite [sources] cannot be null or empty (aggregation [c])",
            "illegal_argument_exception",
        ),
        (
            json!({"size": 1}),
            "Composite [sources] cannot be null or empty (aggregation [c])",
            "illegal_argument_exception",
        ),
        (
            json!({"sources": [{"a": {"terms": {"field": "tag"}}}], "size": 0}),
            &size_0,
            "illegal_argument_exception",
        ),
        (
            json!({"sources": [{"a": {"terms": {"field": "tag"}}}], "size": -1}),
            "[size] of aggregation [c] must be a non-negative integer, got [-1]",
            "parsing_exception",
        ),
        (
            json!({"sources": [{"a": {"terms": {"field": "tag"}}}], "after": "x"}),
            "[after] of composite [c] must be an object, got [\"x\"]",
            "parsing_exception",
        ),
        (
            json!({"sources": [{"a": {"terms": {"field": "tag"}}}], "after": {"b": 1}}),
            "[after] has 1 value(s) but [sources] has 1 (aggregation [c])",
            "illegal_argument_exception",
        ),
        (
            json!({"sources": [{"a": {"terms": {"field": "tag"}}}], "after": {"a": 1, "b": 1}}),
            "[after] has 2 value(s) but [sources] has 1 (aggregation [c])",
            "illegal_argument_exception",
        ),
        (
            json!({"sources": [5]}),
            "[composite] sources of [c] must be objects with one named source each",
            "parsing_exception",
        ),
        (
            source(json!({"a": {"terms": {"field": "tag"}}, "b": {"terms": {"field": "n"}}})),
            "[composite] sources of [c] must be objects with one named source each",
            "parsing_exception",
        ),
        (
            source(json!({"a": {"terms": {"field": "tag"}, "histogram": {"field": "n"}}})),
            "[composite] source [a] of [c] must have one type",
            "parsing_exception",
        ),
        (
            source(json!({"a": {"nope": {"field": "tag"}}})),
            "Invalid source type: [nope] in [c]",
            "parsing_exception",
        ),
        (
            tag(json!({})),
            "Required one of fields [field, script], but none were specified (aggregation [c])",
            "illegal_argument_exception",
        ),
        (
            tag(json!({"field": 1})),
            "[field] of [composite] aggregation [c] must be a string, got [1]",
            "parsing_exception",
        ),
        (
            tag(json!({"field": "tag", "interval": 1})),
            "[composite] unknown field [interval]",
            "x_content_parse_exception",
        ),
        (
            tag(json!({"field": "tag", "script": "1"})),
            "[script] of [composite] aggregation [c] is not supported",
            "illegal_argument_exception",
        ),
        (
            tag(json!({"field": "tag", "order": "up"})),
            "Unknown order [up] in source [a] of [c]",
            "parsing_exception",
        ),
        (
            tag(json!({"field": "tag", "order": 1})),
            "Unknown order [1] in source [a] of [c]",
            "parsing_exception",
        ),
        (
            tag(json!({"field": "tag", "missing_bucket": "yes"})),
            "[missing_bucket] must be a boolean, got [\"yes\"]",
            "parsing_exception",
        ),
        (
            tag(json!({"field": "tag", "missing_order": "middle"})),
            "Unknown missing_order [middle] in source [a] of [c]",
            "parsing_exception",
        ),
        (
            tag(json!({"field": "tag", "missing_order": true})),
            "Unknown missing_order [true] in source [a] of [c]",
            "parsing_exception",
        ),
        (
            json!({"sources": [{"a": {"terms": {"field": "tag"}}}, {"a": {"terms": {"field": "n"}}}]}),
            "Composite source names must be unique, found duplicates: [a]",
            "illegal_argument_exception",
        ),
    ];
    assert_refusals("c", "composite", &cases);
    let histogram = |params: Value| source(json!({"a": {"histogram": params}}));
    let date = |params: Value| source(json!({"a": {"date_histogram": params}}));
    let interval = "[interval] must be a positive number in [histogram] source [a] of [c]";
    let cases = [
        (
            histogram(json!({"field": "n"})),
            interval,
            "illegal_argument_exception",
        ),
        (
            histogram(json!({"field": "n", "interval": -1})),
            interval,
            "illegal_argument_exception",
        ),
        (
            histogram(json!({"field": "n", "interval": 0})),
            interval,
            "illegal_argument_exception",
        ),
        (
            histogram(json!({"field": "n", "interval": "5"})),
            interval,
            "illegal_argument_exception",
        ),
        (
            histogram(json!({"field": "n", "interval": 5, "offset": 1})),
            "[composite] unknown field [offset]",
            "x_content_parse_exception",
        ),
        (
            date(json!({"field": "ts", "calendar_interval": "day", "keyed": true})),
            "[date_histogram] unknown field [keyed] in source [a] of [c]",
            "parsing_exception",
        ),
        (
            date(json!({"field": "ts", "calendar_interval": "day", "script": "1"})),
            "[date_histogram] unknown field [script] in source [a] of [c]",
            "parsing_exception",
        ),
        (
            date(json!({"field": "ts"})),
            "Required one of fields [fixed_interval, calendar_interval], but none were specified.",
            "illegal_argument_exception",
        ),
        (
            date(json!({"field": "ts", "calendar_interval": "day", "time_zone": 1})),
            "[date_histogram] parameter [time_zone] with value [1] of [c] is not supported",
            "illegal_argument_exception",
        ),
        (
            date(json!({"field": "ts", "fixed_interval": "1h", "order": "down"})),
            "Unknown order [down] in source [a] of [c]",
            "parsing_exception",
        ),
    ];
    assert_refusals("c", "composite", &cases);
}
