//! `ip_range` parameters: ends, masks, order, and each refusal in
//! Elasticsearch's words.

use serde_json::{json, Value};

use super::{IpRangeParams, IpRangeSpec};
use crate::error::Result;
use crate::query::ip_range::parse_ip;
use crate::search::agg_tree::tests::{assert_refusals, typed};
use crate::search::agg_tree::TypedParams;

fn parsed(params: Value) -> Result<IpRangeParams> {
    match typed("r", "ip_range", params)? {
        TypedParams::IpRange(r) => Ok(r),
        other => panic!("typed as {other:?}"),
    }
}

fn ip(text: &str) -> u128 {
    parse_ip(text).unwrap()
}

fn spec(key: Option<&str>, from: Option<&str>, to: Option<&str>) -> IpRangeSpec {
    IpRangeSpec {
        key: key.map(str::to_string),
        from: from.map(ip),
        to: to.map(ip),
    }
}

#[test]
fn ranges_are_sorted_as_elasticsearch_sorts_them() {
    let r = parsed(
        json!({"field": "a", "keyed": "true", "missing": "1.2.3.4", "ranges": [
            {"from": "10.0.0.5"},
            {"to": "10.0.0.5", "key": "low"},
            {"from": "10.0.0.0", "to": "10.0.0.9"},
            {"from": "10.0.0.0", "to": null},
            {"from": "10.0.0.0", "to": "10.0.0.3"},
            {"mask": "10.0.0.127/25"},
        ]}),
    )
    .unwrap();
    assert_eq!(r.field, "a");
    assert!(r.keyed);
    assert_eq!(r.missing, Some(ip("1.2.3.4")));
    assert_eq!(
        r.ranges,
        vec![
            spec(Some("low"), None, Some("10.0.0.5")),
            spec(None, Some("10.0.0.0"), Some("10.0.0.3")),
            spec(None, Some("10.0.0.0"), Some("10.0.0.9")),
            spec(Some("10.0.0.127/25"), Some("10.0.0.0"), Some("10.0.0.128")),
            spec(None, Some("10.0.0.0"), None),
            spec(None, Some("10.0.0.5"), None),
        ]
    );
}

#[test]
fn masks_span_their_block_and_the_ends_of_the_space_are_unbounded() {
    let one = |mask: &str| parsed(json!({"field": "a", "ranges": [{"mask": mask, "key": 7}]}));
    let r = one("2001:db8::/32").unwrap();
    assert_eq!(
        r.ranges,
        vec![spec(Some("7"), Some("2001:db8::"), Some("2001:db9::"))]
    );
    assert_eq!(
        one("::/0").unwrap().ranges,
        vec![spec(Some("7"), None, None)]
    );
    let all_v4 = one("0.0.0.0/0").unwrap();
    assert_eq!(all_v4.ranges[0].from, Some(ip("0.0.0.0")));
    assert_eq!(all_v4.ranges[0].to, Some(ip("255.255.255.255") + 1));
    let top = one("ffff::/16").unwrap();
    assert_eq!(top.ranges[0].to, None);
    // A mask wins over ends written beside it, unread (as there).
    let both = parsed(json!({"field": "a", "ranges": [{"mask": "10.0.0.0/8", "from": "x"}]}));
    assert_eq!(
        both.unwrap().ranges,
        vec![spec(Some("10.0.0.0/8"), Some("10.0.0.0"), Some("11.0.0.0"))]
    );
    // Neither end: every address (Elasticsearch's `*-*`).
    let open = parsed(json!({"field": "a", "ranges": [{}]})).unwrap();
    assert_eq!(open.ranges, vec![spec(None, None, None)]);
}

#[test]
fn bad_bodies_are_refused_in_elasticsearch_words() {
    let x = "x_content_parse_exception";
    let illegal = "illegal_argument_exception";
    let failed = "[ip_range] failed to parse field [ranges]";
    let ranges = |r: Value| json!({"field": "a", "ranges": [r]});
    assert_refusals(
        "r",
        "ip_range",
        &[
            (
                json!({"ranges": [{"to": "1.2.3.4"}]}),
                "Required one of fields [field], but none were specified.",
                illegal,
            ),
            (
                json!({"field": "a"}),
                "No [ranges] specified for the [r] aggregation",
                illegal,
            ),
            (
                json!({"field": "a", "ranges": []}),
                "No [ranges] specified for the [r] aggregation",
                illegal,
            ),
            (
                json!({"field": "a", "ranges": "x"}),
                "[ip_range] ranges doesn't support values of type: VALUE_STRING",
                x,
            ),
            (
                json!({"field": "a", "ranges": [], "size": 3}),
                "[ip_range] unknown field [size]",
                x,
            ),
            (
                json!({"field": "a", "script": "s"}),
                "[ip_range] unknown field [script]",
                x,
            ),
            (
                json!({"field": "a", "format": "f"}),
                "[ip_range] unknown field [format]",
                x,
            ),
            (
                json!({"field": "a", "value_type": "ip"}),
                "[value_type] of [ip_range] aggregation [r] is not supported by this server",
                illegal,
            ),
            (
                json!({"field": "a", "missing": "nope"}),
                "'nope' is not an IP string literal.",
                illegal,
            ),
            (
                json!({"field": "a", "keyed": 1}),
                "[ip_range] failed to parse field [keyed]",
                x,
            ),
            (ranges(json!({"from": "10.0.0.256"})), failed, x),
            (ranges(json!({"to": 5})), failed, x),
            (ranges(json!({"mask": "10.0.0.0"})), failed, x),
            (ranges(json!({"mask": "10.0.0.0/33"})), failed, x),
            (ranges(json!({"mask": "::ffff:10.0.0.0/100"})), failed, x),
            (ranges(json!({"mask": "10.0.0.0/x"})), failed, x),
            (ranges(json!({"form": "10.0.0.0"})), failed, x),
            (ranges(json!("10.0.0.0/8")), failed, x),
        ],
    );
}

#[test]
fn a_bad_range_says_why_beneath() {
    let cause = |r: Value| {
        let err = IpRangeParams::parse("r", &json!({"field": "a", "ranges": [r]})).unwrap_err();
        match err {
            crate::error::SearchError::FieldParse { cause: Some(c), .. } => c.to_string(),
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        cause(json!({"from": "10.0.0.256"})),
        "'10.0.0.256' is not an IP string literal."
    );
    assert_eq!(cause(json!({"to": 5})), "'5' is not an IP string literal.");
    assert_eq!(
        cause(json!({"mask": "10.0.0.0"})),
        "Expected [ip/prefix] but was [10.0.0.0]"
    );
    assert_eq!(
        cause(json!({"mask": "10.0.0.0/33"})),
        "Illegal prefix length [33] in [10.0.0.0/33]. Must be 0-32 for IPv4 ranges, 0-128 for IPv6 ranges"
    );
    assert_eq!(
        cause(json!({"mask": "10.0.0.0/x"})),
        "For input string: \"x\""
    );
    assert!(
        cause(json!({"mask": "::ffff:10.0.0.0/100"})).starts_with("CIDR notation is not allowed")
    );
    assert_eq!(
        cause(json!({"form": "1.2.3.4"})),
        "Unexpected ip range parameter: [form]"
    );
    assert_eq!(
        cause(json!(3)),
        "[ranges] must contain objects, but hit a VALUE_NUMBER"
    );
}
