//! Tests of document parsing: dynamic mapping's types, mapped conversions and their errors, dynamic templates.

use serde_json::json;

use super::*;
use crate::mapping::Dynamic;

#[test]
fn dynamic_mapping_types() {
    let m = Mappings::default();
    let doc = parse_document(
        &m,
        json!({"a": 1, "b": 1.5, "c": "hello", "d": "2024-01-01T00:00:00Z", "e": {"f": true}, "g": [1, 2], "n": null}),
    )
    .unwrap();
    let types: Vec<_> = doc
        .new_fields
        .iter()
        .map(|(p, l)| (p.as_str(), l.ty))
        .collect();
    assert!(types.contains(&("a", FieldType::Long)));
    assert!(types.contains(&("b", FieldType::Float)));
    assert!(types.contains(&("c", FieldType::Text)));
    assert!(types.contains(&("d", FieldType::Date)));
    assert!(types.contains(&("e.f", FieldType::Boolean)));
    assert!(doc
        .values
        .contains(&("c.keyword".into(), FieldValue::Keyword("hello".into()))));
    assert_eq!(doc.values.iter().filter(|(p, _)| p == "g").count(), 2);
}

#[test]
fn mapped_conversions_and_errors() {
    let m = Mappings::parse(&json!({"dynamic": "strict", "properties": {
        "n": {"type": "byte"}, "k": {"type": "keyword", "ignore_above": 3},
        "s": {"type": "scaled_float", "scaling_factor": 10}, "ip": {"type": "ip"}
    }}))
    .unwrap();
    let doc = parse_document(&m, json!({"n": "7", "k": "long", "s": 1.26, "ip": "::1"})).unwrap();
    assert!(doc.values.contains(&("n".into(), FieldValue::Long(7))));
    assert!(doc.values.contains(&("s".into(), FieldValue::Double(1.3))));
    assert!(!doc.values.iter().any(|(p, _)| p == "k"));
    assert!(parse_document(&m, json!({"n": 300})).is_err());
    assert!(parse_document(&m, json!({"ip": "x"})).is_err());
    let err = parse_document(&m, json!({"other": 1})).unwrap_err();
    assert_eq!(err.es_type(), "strict_dynamic_mapping_exception");
}

#[test]
fn dynamic_templates_choose_new_mappings() {
    let m = Mappings::parse(&json!({"dynamic_templates": [
        {"ids": {"match_mapping_type": "string", "match": "*_id", "mapping": {"type": "keyword"}}},
        {"longs_as_doubles": {"match_mapping_type": "long", "path_match": "metrics.*", "path_unmatch": "metrics.raw.*", "mapping": {"type": "double"}}},
        {"objects_as_points": {"match_mapping_type": "object", "match": "*_flag", "mapping": {"type": "boolean"}}},
        {"typed": {"match": "t_*", "mapping": {"type": "{dynamic_type}"}}},
        {"strings": {"match_mapping_type": "string", "mapping": {"type": "keyword", "ignore_above": 4}}}
    ]}))
    .unwrap();
    let doc = parse_document(
        &m,
        json!({"user_id": "u-123456", "name": "abcdef", "metrics": {"n": 3, "raw": {"n": 4}},
                "t_f": 1.5, "t_s": "x", "t_l": [2, 3], "when": "2024-01-01T00:00:00Z", "n": 7}),
    )
    .unwrap();
    let ty = |p: &str| {
        doc.new_fields
            .iter()
            .find(|(q, _)| q == p)
            .map(|(_, l)| l.ty)
    };
    assert_eq!(ty("user_id"), Some(FieldType::Keyword));
    assert_eq!(ty("name"), Some(FieldType::Keyword));
    assert_eq!(ty("metrics.n"), Some(FieldType::Double));
    assert_eq!(ty("metrics.raw.n"), Some(FieldType::Long));
    assert_eq!(ty("t_f"), Some(FieldType::Float));
    assert_eq!(ty("t_s"), Some(FieldType::Text));
    assert_eq!(ty("t_l"), Some(FieldType::Long));
    // No template for dates or plain longs: today's rules.
    assert_eq!(ty("when"), Some(FieldType::Date));
    assert_eq!(ty("n"), Some(FieldType::Long));
    // `ignore_above` from the template applies; the first template wins for user_id.
    assert!(doc
        .values
        .contains(&("user_id".into(), FieldValue::Keyword("u-123456".into()))));
    assert!(!doc.values.iter().any(|(p, _)| p == "name"));
    assert!(!doc.new_fields.iter().any(|(p, _)| p == "name.keyword"));
    // An object a template maps to a leaf is parsed as that leaf.
    let err = parse_document(&m, json!({"x_flag": {"a": 1}})).unwrap_err();
    assert_eq!(err.es_type(), "document_parsing_exception");
    // Templates only apply under dynamic: true.
    let mut strict = m.clone();
    strict.dynamic = Dynamic::False;
    assert!(parse_document(&strict, json!({"user_id": "a"}))
        .unwrap()
        .new_fields
        .is_empty());
}
