//! A parsed document as a tantivy document of the shard schema.

use std::collections::BTreeMap;

use tantivy::schema::OwnedValue;
use tantivy::TantivyDocument;

use crate::mapping::document::{FieldValue, ParsedDoc};
use crate::store::SchemaFields;

/// Builds the tantivy document: metadata fields, `_source`, typed values in
/// `f`, text in `txt` and the paths holding a value in `_field_names`.
pub fn build_document(
    fields: &SchemaFields,
    id: &str,
    version: u64,
    seq_no: u64,
    source: &[u8],
    parsed: &ParsedDoc,
) -> TantivyDocument {
    let mut doc = TantivyDocument::new();
    doc.add_text(fields.id, id);
    doc.add_bytes(fields.source, source);
    doc.add_u64(fields.version, version);
    doc.add_u64(fields.seq_no, seq_no);
    let mut values: BTreeMap<String, Vec<OwnedValue>> = BTreeMap::new();
    let mut text: BTreeMap<String, Vec<OwnedValue>> = BTreeMap::new();
    let mut names = std::collections::BTreeSet::new();
    for (path, value) in &parsed.values {
        let (target, v) = match value {
            FieldValue::Text(s) => (&mut text, OwnedValue::Str(s.clone())),
            FieldValue::Keyword(s) => (&mut values, OwnedValue::Str(s.clone())),
            FieldValue::Long(n) | FieldValue::Date(n) => (&mut values, OwnedValue::I64(*n)),
            FieldValue::Double(f) => (&mut values, OwnedValue::F64(*f)),
            FieldValue::Bool(b) => (&mut values, OwnedValue::Bool(*b)),
        };
        target.entry(path.clone()).or_default().push(v);
        // `exists` on an object path matches documents with any field below it.
        let mut prefix = String::new();
        for part in path.split('.') {
            if !prefix.is_empty() {
                prefix.push('.');
            }
            prefix.push_str(part);
            names.insert(prefix.clone());
        }
    }
    for name in names {
        doc.add_text(fields.field_names, name);
    }
    if !values.is_empty() {
        doc.add_object(fields.values, collapse(values));
    }
    if !text.is_empty() {
        doc.add_object(fields.text, collapse(text));
    }
    doc
}

fn collapse(map: BTreeMap<String, Vec<OwnedValue>>) -> BTreeMap<String, OwnedValue> {
    map.into_iter()
        .map(|(k, mut vs)| {
            let v = if vs.len() == 1 {
                vs.remove(0)
            } else {
                OwnedValue::Array(vs)
            };
            (k, v)
        })
        .collect()
}
