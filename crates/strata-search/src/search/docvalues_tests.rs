//! Tests of `docvalue_fields` parsing and source paths.

use super::*;
use serde_json::json;

#[test]
fn wildcards_and_mixed_forms() {
    assert!(matches("a*", "abc"));
    assert!(matches("*.name", "agent.name"));
    assert!(matches("a*c*e", "abcde"));
    assert!(!matches("a*c", "abd"));
    let list = parse(&json!(["x", {"field": "t", "format": "epoch_millis"}])).unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[1].format, DateOut::EpochMillis);
    assert!(parse(&json!([{"field": "t", "format": "nope"}])).is_err());
    assert!(parse(&json!([{"format": "date_time"}])).is_err());
    assert!(parse(&json!([3])).is_err());
}

#[test]
fn source_paths() {
    let src = json!({"a": {"b": [1, 2]}, "a.b": 3, "c": [{"d": "x"}, {"d": null}]});
    let mut out = Vec::new();
    source_values(&src, "a.b", &mut out);
    assert_eq!(out.len(), 3);
    out.clear();
    source_values(&src, "c.d", &mut out);
    assert_eq!(out, vec![&json!("x")]);
}
