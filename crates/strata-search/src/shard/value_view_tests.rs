//! The view against the owned objects it replaced: the same document,
//! byte for byte, for any sorted run of values.

use proptest::prelude::*;
use tantivy::schema::document::Document;
use tantivy::schema::{JsonObjectOptions, OwnedValue, Schema, STORED};
use tantivy::TantivyDocument;

use super::*;

/// The object as it was built before the view: one entry per path with a
/// picked value, alone or as an array.
fn owned_object(values: &[(String, FieldValue)], pick: Pick) -> Option<OwnedValue> {
    let mut entries: Vec<(String, OwnedValue)> = Vec::new();
    let mut i = 0;
    while i < values.len() {
        let path = &values[i].0;
        let mut picked: Vec<OwnedValue> = Vec::new();
        while i < values.len() && &values[i].0 == path {
            if pick.takes(&values[i].1) {
                picked.push(owned(&values[i].1));
            }
            i += 1;
        }
        match picked.len() {
            0 => {}
            1 => entries.push((path.clone(), picked.pop().unwrap())),
            _ => entries.push((path.clone(), OwnedValue::Array(picked))),
        }
    }
    (!entries.is_empty()).then_some(OwnedValue::Object(entries))
}

fn owned(value: &FieldValue) -> OwnedValue {
    match value.clone() {
        FieldValue::Text(s) | FieldValue::Keyword(s) | FieldValue::Ip(s) => OwnedValue::Str(s),
        FieldValue::Long(n) | FieldValue::Date(n) => OwnedValue::I64(n),
        FieldValue::Double(f) => OwnedValue::F64(f),
        FieldValue::Bool(b) => OwnedValue::Bool(b),
    }
}

fn field_value() -> impl Strategy<Value = FieldValue> {
    prop_oneof![
        "[a-z ]{0,6}".prop_map(FieldValue::Keyword),
        "[a-z ]{0,6}".prop_map(FieldValue::Ip),
        any::<i64>().prop_map(FieldValue::Long),
        any::<i64>().prop_map(FieldValue::Date),
        any::<f64>().prop_map(FieldValue::Double),
        any::<bool>().prop_map(FieldValue::Bool),
    ]
}

/// A run sorted by path as `add_values` sorts it (stable).
fn sorted_run() -> impl Strategy<Value = Vec<(String, FieldValue)>> {
    prop::collection::vec(("[abc](\\.[ab])?", field_value()), 0..24).prop_map(|mut v| {
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    })
}

fn doc_bytes(add: impl FnOnce(&mut TantivyDocument, tantivy::schema::Field)) -> String {
    let mut builder = Schema::builder();
    let field = builder.add_json_field("f", JsonObjectOptions::from(STORED));
    let schema = builder.build();
    let mut doc = TantivyDocument::new();
    add(&mut doc, field);
    doc.to_json(&schema)
}

proptest! {
    #[test]
    fn view_builds_the_owned_objects_document(values in sorted_run(), terms in any::<bool>()) {
        let pick = if terms { Pick::Terms } else { Pick::All };
        let viewed = doc_bytes(|doc, f| {
            if let Some(view) = ValueView::object(&values, pick) {
                doc.add_field_value(f, view);
            }
        });
        let owned = doc_bytes(|doc, f| {
            if let Some(object) = owned_object(&values, pick) {
                doc.add_field_value(f, &object);
            }
        });
        prop_assert_eq!(viewed, owned);
    }
}

#[test]
fn a_path_with_no_picked_value_is_left_out() {
    let values = vec![
        ("a".to_string(), FieldValue::Long(1)),
        ("a".to_string(), FieldValue::Long(2)),
        ("b".to_string(), FieldValue::Keyword("x".into())),
        ("c".to_string(), FieldValue::Double(0.5)),
    ];
    let terms = doc_bytes(|doc, f| {
        doc.add_field_value(f, ValueView::object(&values, Pick::Terms).unwrap())
    });
    assert_eq!(terms, r#"{"f":[{"b":"x"}]}"#);
    let all =
        doc_bytes(|doc, f| doc.add_field_value(f, ValueView::object(&values, Pick::All).unwrap()));
    assert_eq!(all, r#"{"f":[{"a":[1,2],"b":"x","c":0.5}]}"#);
    assert!(ValueView::object(&values[..1], Pick::Terms).is_none());
    assert!(ValueView::object(&[], Pick::All).is_none());
}
