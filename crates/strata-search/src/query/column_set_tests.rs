//! Exact numbers found by their columns against a model, in an index of
//! today's schema (numbers only columns) and one of the schema before `k`
//! (numbers also terms): both must find exactly the model's documents.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tantivy::collector::DocSetCollector;
use tantivy::schema::{
    IndexRecordOption, JsonObjectOptions, NumericOptions, Schema, TextFieldIndexing, TextOptions,
    Value as _, FAST, STORED, STRING,
};
use tantivy::{Index, TantivyDocument};

use crate::mapping::document::FieldValue;
use crate::mapping::{FieldMapping, FieldType};
use crate::query::terms::exact_query;
use crate::shard::document::build_document;
use crate::store::SchemaFields;

/// The schema of indices created before `k`: `f` indexed and fast.
fn schema_before_k() -> SchemaFields {
    let mut b = Schema::builder();
    b.add_text_field("_id", STRING | STORED);
    b.add_bytes_field("_source", STORED);
    b.add_u64_field("_version", NumericOptions::default() | STORED | FAST);
    b.add_u64_field("_seq_no", NumericOptions::default() | STORED | FAST);
    b.add_text_field("_field_names", TextOptions::default() | STRING);
    let raw = TextFieldIndexing::default()
        .set_tokenizer("raw")
        .set_index_option(IndexRecordOption::Basic);
    let json = JsonObjectOptions::default()
        .set_indexing_options(raw)
        .set_fast("raw")
        .set_expand_dots_enabled();
    b.add_json_field("f", json);
    let text = TextFieldIndexing::default().set_tokenizer("default");
    b.add_json_field(
        "txt",
        JsonObjectOptions::default().set_indexing_options(text),
    );
    SchemaFields::from_schema(b.build()).unwrap()
}

/// A document's values: longs at `n` (none to three), a float at `x`, a
/// date at `t`, a keyword at `s`.
struct ModelDoc {
    n: Vec<i64>,
    x: f64,
    t: i64,
}

fn random_docs(rng: &mut StdRng, count: usize) -> Vec<ModelDoc> {
    (0..count)
        .map(|_| ModelDoc {
            n: (0..rng.gen_range(0..4))
                .map(|_| rng.gen_range(-20..20))
                .collect(),
            x: f64::from(rng.gen_range(-10..10)) / 2.0,
            t: 1_700_000_000_000 + rng.gen_range(0..50),
        })
        .collect()
}

/// Indexes `docs` in two segments (ids are their positions).
fn index(fields: &SchemaFields, docs: &[ModelDoc]) -> Index {
    let index = Index::create_in_ram(fields.schema.clone());
    let mut writer = index.writer::<TantivyDocument>(15_000_000).unwrap();
    for (i, d) in docs.iter().enumerate() {
        let mut values: Vec<(String, FieldValue)> =
            d.n.iter()
                .map(|&n| ("n".into(), FieldValue::Long(n)))
                .collect();
        values.push(("x".into(), FieldValue::Double(d.x)));
        values.push(("t".into(), FieldValue::Date(d.t)));
        values.push(("s".into(), FieldValue::Keyword(format!("k{}", i % 3))));
        let mut doc = build_document(fields, &Default::default(), &i.to_string(), b"{}", values);
        crate::shard::document::stamp(&mut doc, fields, 1, i as u64);
        writer.add_document(doc).unwrap();
        if i == docs.len() / 2 {
            writer.commit().unwrap();
        }
    }
    writer.commit().unwrap();
    index
}

/// The ids of the documents with one of `values` at `path` (of type `ty`).
fn found(
    index: &Index,
    fields: &SchemaFields,
    path: &str,
    ty: FieldType,
    values: &[Value],
) -> Vec<usize> {
    let leaf = FieldMapping::of(ty);
    let query = exact_query(fields, path, &leaf, values, IndexRecordOption::Basic).unwrap();
    let searcher = index.reader().unwrap().searcher();
    let mut ids: Vec<usize> = searcher
        .search(query.as_ref(), &DocSetCollector)
        .unwrap()
        .into_iter()
        .map(|address| {
            let doc: TantivyDocument = searcher.doc(address).unwrap();
            let id = doc.get_first(fields.id).and_then(|v| v.as_str()).unwrap();
            id.parse().unwrap()
        })
        .collect();
    ids.sort_unstable();
    ids
}

fn expected(docs: &[ModelDoc], hit: impl Fn(&ModelDoc) -> bool) -> Vec<usize> {
    (0..docs.len()).filter(|&i| hit(&docs[i])).collect()
}

#[test]
fn numbers_and_dates_match_the_model_in_both_schemas() {
    let mut rng = StdRng::seed_from_u64(11);
    let docs = random_docs(&mut rng, 300);
    for fields in [SchemaFields::build(), schema_before_k()] {
        let index = index(&fields, &docs);
        for round in 0..60 {
            // Few values (one range scan each) and many (one pass).
            let count = if round % 2 == 0 {
                rng.gen_range(1..4)
            } else {
                rng.gen_range(9..30)
            };
            let longs: Vec<i64> = (0..count).map(|_| rng.gen_range(-25..25)).collect();
            let as_json: Vec<Value> = longs
                .iter()
                .map(|&n| {
                    if n % 2 == 0 {
                        json!(n)
                    } else {
                        json!(n.to_string())
                    }
                })
                .collect();
            let got = found(&index, &fields, "n", FieldType::Long, &as_json);
            assert_eq!(
                got,
                expected(&docs, |d| d.n.iter().any(|n| longs.contains(n)))
            );

            let halves: Vec<f64> = (0..count)
                .map(|_| f64::from(rng.gen_range(-12..12)) / 2.0)
                .collect();
            let as_json: Vec<Value> = halves.iter().map(|&x| json!(x)).collect();
            let got = found(&index, &fields, "x", FieldType::Double, &as_json);
            assert_eq!(got, expected(&docs, |d| halves.contains(&d.x)));

            let times: Vec<i64> = (0..count)
                .map(|_| 1_700_000_000_000 + rng.gen_range(-5..55))
                .collect();
            let as_json: Vec<Value> = times.iter().map(|&t| json!(t)).collect();
            let got = found(&index, &fields, "t", FieldType::Date, &as_json);
            assert_eq!(got, expected(&docs, |d| times.contains(&d.t)));
        }
        // Keywords stay terms; an integral float finds the float column's value.
        let got = found(&index, &fields, "s", FieldType::Keyword, &[json!("k1")]);
        assert_eq!(
            got,
            (0..docs.len()).filter(|i| i % 3 == 1).collect::<Vec<_>>()
        );
        let got = found(&index, &fields, "x", FieldType::Double, &[json!(2)]);
        assert_eq!(got, expected(&docs, |d| d.x == 2.0));
        assert!(found(&index, &fields, "missing", FieldType::Long, &[json!(1)]).is_empty());
    }
}
