//! A parsed document as a tantivy document of the shard schema.
//!
//! Built in two steps so that the expensive one runs outside the shard's
//! lock: [`build_document`] (everything but the version and sequence
//! number, which only the shard lock can assign) and [`stamp`].

use tantivy::TantivyDocument;

use super::value_view::{Pick, ValueView};

use crate::error::{Result, SearchError};
use crate::mapping::document::{FieldValue, NestedDoc};
use crate::store::source_shapes::SourceShapes;
use crate::store::SchemaFields;

/// Whether a write of an id also removes the nested documents of the
/// document it replaces or deletes: only indices whose mapping has nested
/// objects can hold any, and the extra delete costs every other index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NestedCleanup {
    /// The mapping has no nested object: nothing to remove.
    None,
    /// Remove the documents whose `_nested_parent` is the id.
    ByParent,
}

impl NestedCleanup {
    /// The cleanup an index with this mapping needs.
    pub(crate) fn for_mapping(mappings: &crate::mapping::Mappings) -> NestedCleanup {
        if mappings.has_nested() {
            NestedCleanup::ByParent
        } else {
            NestedCleanup::None
        }
    }
}

/// A root document and its nested documents, indexed together in one
/// block (the nested ones first, each after the ones nested in it), so
/// that they share a segment and stay next to each other through merges.
pub(crate) struct DocBlock {
    /// The root document (`_id`, `_source`, its own values).
    pub root: TantivyDocument,
    /// The nested objects' documents, in block order.
    pub nested: Vec<TantivyDocument>,
}

impl From<TantivyDocument> for DocBlock {
    fn from(root: TantivyDocument) -> DocBlock {
        DocBlock {
            root,
            nested: Vec::new(),
        }
    }
}

/// [`build_document`] plus the documents of `nested` objects: each has
/// only its values, `_field_names`, its path in `_nested_path` and the
/// root's `id` in `_nested_parent` (so that the root's deletion takes
/// them along).
pub fn build_block(
    fields: &SchemaFields,
    shapes: &SourceShapes,
    id: &str,
    source: &[u8],
    values: Vec<(String, FieldValue)>,
    nested: Vec<NestedDoc>,
) -> Result<DocBlock> {
    let root = build_document(fields, shapes, id, source, values);
    if nested.is_empty() {
        return Ok(root.into());
    }
    let marks = fields.nested.ok_or_else(|| {
        SearchError::illegal("this index was created before nested fields were supported")
    })?;
    let nested = nested
        .into_iter()
        .map(|n| {
            let mut doc = TantivyDocument::new();
            add_values(&mut doc, fields, n.values);
            doc.add_text(marks.path, &n.path);
            doc.add_text(marks.parent, id);
            doc
        })
        .collect();
    Ok(DocBlock { root, nested })
}

/// Builds the tantivy document without `_version` and `_seq_no`:
/// `_id`, `_source` (shaped by the shard's `shapes` where it can be),
/// typed values in `f`, text in `txt` and the paths holding a value in
/// `_field_names`. `source` is JSON text (so it never starts as a shaped
/// source does); `values` are the parsed document's `(dotted path, value)`
/// pairs, whose strings move into the document.
pub fn build_document(
    fields: &SchemaFields,
    shapes: &SourceShapes,
    id: &str,
    source: &[u8],
    values: Vec<(String, FieldValue)>,
) -> TantivyDocument {
    // The document's bytes hold the source (shaped, so smaller) and the
    // values again (about the source's size) beside the id and the field
    // names: room for twice the source saves growing them by copies.
    let mut doc = TantivyDocument::with_capacity(2 * source.len() + id.len() + 256);
    doc.add_text(fields.id, id);
    match shapes.encode(source) {
        Some(shaped) => doc.add_bytes(fields.source, &shaped),
        None => doc.add_bytes(fields.source, source),
    }
    add_values(&mut doc, fields, values);
    doc
}

/// Adds `values` to `doc`: typed ones in `f` (and the terms among them in
/// `k`), text in `txt`, and `_field_names`. Each field's object is a
/// [`ValueView`] over the sorted values, which the document copies once.
fn add_values(
    doc: &mut TantivyDocument,
    fields: &SchemaFields,
    mut values: Vec<(String, FieldValue)>,
) {
    // Grouped by target field, then by path in byte order (the order of
    // the JSON objects' keys); stable, so a path's values keep their order.
    values.sort_by(|a, b| (is_text(&a.1), &a.0).cmp(&(is_text(&b.1), &b.0)));
    add_field_names(doc, fields, &values);
    let (typed, text) = values.split_at(values.partition_point(|(_, v)| !is_text(v)));
    if let Some(all) = ValueView::object(typed, Pick::All) {
        if !fields.numbers_are_terms() {
            if let Some(terms) = ValueView::object(typed, Pick::Terms) {
                doc.add_field_value(fields.terms, terms);
            }
        }
        doc.add_field_value(fields.values, all);
    }
    if let Some(text) = ValueView::object(text, Pick::All) {
        doc.add_field_value(fields.text, text);
    }
}

/// Adds the version and sequence number the shard assigned.
pub fn stamp(doc: &mut TantivyDocument, fields: &SchemaFields, version: u64, seq_no: u64) {
    doc.add_u64(fields.version, version);
    doc.add_u64(fields.seq_no, seq_no);
}

/// `_field_names`: every path holding a text value and every object path
/// above one, each once, in byte order. `exists` finds typed values by
/// their fast columns instead (`query::term_level`); text has no column.
/// `values` are sorted with the text values last.
fn add_field_names(
    doc: &mut TantivyDocument,
    fields: &SchemaFields,
    values: &[(String, FieldValue)],
) {
    let first_text = values.partition_point(|(_, v)| !is_text(v));
    let mut names: Vec<&str> = Vec::new();
    for (path, _) in &values[first_text..] {
        names.extend(path.match_indices('.').map(|(dot, _)| &path[..dot]));
        names.push(path);
    }
    names.sort_unstable();
    names.dedup();
    for name in names {
        doc.add_text(fields.field_names, name);
    }
}

fn is_text(value: &FieldValue) -> bool {
    matches!(value, FieldValue::Text(_))
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};
    use tantivy::schema::document::Document;

    use super::*;

    #[test]
    fn values_group_by_path_and_field_names_cover_text() {
        let fields = SchemaFields::build();
        let values = vec![
            ("b.c".to_string(), FieldValue::Keyword("x".into())),
            ("a".to_string(), FieldValue::Text("hello world".into())),
            ("b.d".to_string(), FieldValue::Long(3)),
            ("b.c".to_string(), FieldValue::Keyword("y".into())),
            ("e.f.g".to_string(), FieldValue::Bool(true)),
            ("h.i".to_string(), FieldValue::Text("nested text".into())),
            ("j".to_string(), FieldValue::Ip("10.0.0.1".into())),
        ];
        let mut doc = build_document(&fields, &SourceShapes::default(), "id-1", b"{}", values);
        stamp(&mut doc, &fields, 2, 7);
        let json: Value = serde_json::from_str(&doc.to_json(&fields.schema)).unwrap();
        assert_eq!(json["_id"], json!(["id-1"]));
        assert_eq!(json["_version"], json!([2]));
        assert_eq!(json["_seq_no"], json!([7]));
        // Only text paths and the objects above them: typed values are
        // found by their columns.
        assert_eq!(json["_field_names"], json!(["a", "h", "h.i"]));
        // A path's values keep their order; one value stays a scalar.
        let typed = &json["f"][0];
        assert_eq!(typed["b.c"], json!(["x", "y"]));
        assert_eq!(typed["b.d"], json!(3));
        assert_eq!(typed["e.f.g"], json!(true));
        assert_eq!(typed["j"], json!("10.0.0.1"));
        assert_eq!(typed.as_object().map(|o| o.len()), Some(4));
        // Strings and booleans are terms in `k` too; numbers and addresses
        // only columns.
        let exact = &json["k"][0];
        assert_eq!(exact["b.c"], json!(["x", "y"]));
        assert_eq!(exact["e.f.g"], json!(true));
        assert_eq!(exact.as_object().map(|o| o.len()), Some(2));
        assert_eq!(json["txt"][0]["a"], json!("hello world"));
    }
}
