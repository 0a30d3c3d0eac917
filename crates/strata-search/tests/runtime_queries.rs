//! Queries on runtime fields (the request's `runtime_mappings` and the
//! index mapping's `runtime` section): `term`, `terms`, `match`, `range`
//! and `exists`, checked against values computed here; a failing script
//! is a `script_exception` (aggregations and sorts: `runtime_aggs.rs`).

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchError, SearchRequest};

fn setup(catalog: &Catalog) {
    let index = catalog
        .create_index(
            "rt",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {
                    "properties": {"n": {"type": "long"}, "name": {"type": "keyword"}},
                    "runtime": {"parity": {"type": "keyword",
                        "script": {"source": "if (doc['n'].size() > 0) { emit(doc['n'].value % 2 == 0 ? 'even' : 'odd') }"}}}
                }
            }),
        )
        .unwrap();
    for i in 0..30i64 {
        let mut doc = json!({"n": i, "name": format!("item{i}")});
        if i % 7 == 0 {
            doc = json!({"name": format!("item{i}")});
        }
        index
            .index_document(
                Some(&i.to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
    }
    index.refresh().unwrap();
}

fn run(catalog: &Catalog, body: Value) -> Result<Value, SearchError> {
    let indices = catalog.resolve("rt").unwrap();
    search(&indices, &SearchRequest::parse(&body)?)
}

fn ids(resp: &Value) -> Vec<i64> {
    let mut out: Vec<i64> = resp["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().parse().unwrap())
        .collect();
    out.sort();
    out
}

/// The documents with an `n` (every 7th has none).
fn with_n() -> impl Iterator<Item = i64> {
    (0..30).filter(|i| i % 7 != 0)
}

#[test]
fn runtime_fields_are_queryable() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    setup(&catalog);
    let rm = json!({
        "tripled": {"type": "long", "script": {"source":
            "if (doc['n'].size() > 0) { emit(doc['n'].value * params.k) }", "params": {"k": 3}}},
        "label": {"type": "keyword", "script":
            "if (doc['n'].size() > 0) { emit('n' + doc['n'].value) }"}
    });
    let q = |query: Value| {
        run(
            &catalog,
            json!({"size": 100, "runtime_mappings": rm, "query": query}),
        )
        .unwrap()
    };
    let got = ids(&q(json!({"range": {"tripled": {"gte": 30, "lt": 60}}})));
    let want: Vec<i64> = with_n().filter(|i| (30..60).contains(&(i * 3))).collect();
    assert_eq!(got, want);
    let got = ids(&q(json!({"term": {"label": "n12"}})));
    assert_eq!(got, vec![12]);
    let got = ids(&q(json!({"terms": {"label": ["n1", "n2", "n7", "n29"]}})));
    assert_eq!(got, vec![1, 2, 29]);
    let got = ids(&q(json!({"exists": {"field": "tripled"}})));
    assert_eq!(got, with_n().collect::<Vec<_>>());
    let got = ids(&q(json!({"bool": {
        "filter": [{"match": {"label": "n3"}}],
        "must_not": [{"term": {"name": "item4"}}]
    }})));
    assert_eq!(got, vec![3]);
    // The mapping's runtime field.
    let got = ids(&q(json!({"term": {"parity": "even"}})));
    let want: Vec<i64> = with_n().filter(|i| i % 2 == 0).collect();
    assert_eq!(got, want);
    // A value of the wrong type for the field.
    let e = run(
        &catalog,
        json!({"runtime_mappings": rm, "query": {"term": {"tripled": "x"}}}),
    )
    .unwrap_err();
    assert_eq!(e.status(), 400);
    // Aggregation kinds without runtime-field support are refused with a 400.
    let e = run(
        &catalog,
        json!({"runtime_mappings": rm, "aggs": {"t": {"percentiles": {"field": "tripled"}}}}),
    )
    .unwrap_err();
    assert_eq!(e.status(), 400);
    // A script that fails is the request's script_exception.
    let bad = json!({"boom": {"type": "long", "script": "emit(doc['nope'].value / 0)"}});
    let e = run(
        &catalog,
        json!({"runtime_mappings": bad, "query": {"range": {"boom": {"gte": 1}}}}),
    )
    .unwrap_err();
    assert_eq!(e.status(), 400, "{e}");
    // A script that never ends is stopped by the interpreter's limits.
    let forever = json!({"spin": {"type": "long", "script": "while (true) {} emit(1)"}});
    let e = run(
        &catalog,
        json!({"runtime_mappings": forever, "query": {"exists": {"field": "spin"}}}),
    )
    .unwrap_err();
    assert_eq!(e.status(), 400, "{e}");
}
