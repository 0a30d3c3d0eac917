//! A sort reader over columns of either numeric type (moved here from the
//! integration tests: it opens a `ValueReader` on a bare tantivy index).

use serde_json::json;

use super::{SortField, SortValue, ValueReader};
use crate::mapping::Mappings;
use crate::store::SchemaFields;

/// A segment whose column for a `double` field is i64 (as tantivy keeps
/// all-integral numbers when they arrive as integers) must still give
/// float sort values, like a segment with an f64 column.
#[test]
fn sort_reader_takes_any_numeric_column_type() {
    use std::collections::BTreeMap;
    use tantivy::schema::OwnedValue;
    use tantivy::{Index, TantivyDocument};

    let fields = SchemaFields::build();
    let index = Index::create_in_ram(fields.schema.clone());
    let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
    let add = |writer: &mut tantivy::IndexWriter, price: OwnedValue, count: OwnedValue| {
        let mut doc = TantivyDocument::new();
        let mut obj = BTreeMap::new();
        obj.insert("price".to_string(), price);
        obj.insert("count".to_string(), count);
        doc.add_object(fields.values, obj);
        writer.add_document(doc).unwrap();
    };
    add(&mut writer, OwnedValue::I64(3), OwnedValue::F64(7.0));
    writer.commit().unwrap();
    add(&mut writer, OwnedValue::F64(2.5), OwnedValue::I64(4));
    writer.commit().unwrap();
    let mappings = Mappings::parse(&json!({"properties": {
        "price": {"type": "double"}, "count": {"type": "long"}}}))
    .unwrap();
    let searcher = index.reader().unwrap().searcher();
    let sort = SortField::plain;
    let mut prices = Vec::new();
    let mut counts = Vec::new();
    for segment in searcher.segment_readers() {
        prices.push(ValueReader::open_for(&sort("price"), &mappings, segment, None).value(0, 0.0));
        counts.push(ValueReader::open_for(&sort("count"), &mappings, segment, None).value(0, 0.0));
    }
    prices.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    assert_eq!(prices, [SortValue::Float(2.5), SortValue::Float(3.0)]);
    assert!(
        counts.iter().all(|c| *c != SortValue::Missing),
        "{counts:?}"
    );
}
