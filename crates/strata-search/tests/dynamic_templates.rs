//! `dynamic_templates` through the engine: set at creation, merged by
//! `PUT _mapping` (replaced by name, appended otherwise), applied to new
//! fields, returned by `_mapping`, kept across a restart, and bad
//! templates refused with `mapper_parsing_exception`.

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchRequest};

fn names(mapping: &Value) -> Vec<String> {
    mapping["dynamic_templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_object().unwrap().keys().next().unwrap().clone())
        .collect()
}

#[test]
fn templates_apply_merge_and_survive_restart() {
    let tmp = tempfile::tempdir().unwrap();
    {
        let catalog = Catalog::open(tmp.path()).unwrap();
        let index = catalog
            .create_index(
                "t",
                &json!({
                    "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                    "mappings": {"dynamic_templates": [
                        {"strings_as_keyword": {"match_mapping_type": "string",
                            "mapping": {"type": "keyword", "ignore_above": 1024}}},
                        {"counts": {"match": "*_count", "mapping": {"type": "integer"}}}
                    ]}
                }),
            )
            .unwrap();
        // Replace `counts` in place, append `geo`.
        index
            .update_mappings(&json!({"dynamic_templates": [
                {"counts": {"match": "*_count", "match_mapping_type": "long", "mapping": {"type": "long"}}},
                {"floats": {"match_mapping_type": "double", "mapping": {"type": "double"}}}
            ]}))
            .unwrap();
        let m = index.mappings().to_json();
        assert_eq!(names(&m), ["strings_as_keyword", "counts", "floats"]);
        assert_eq!(
            m["dynamic_templates"][1]["counts"]["mapping"]["type"],
            "long"
        );

        // Bad templates: refused, nothing applied.
        for bad in [
            json!({"dynamic_templates": [{"x": {"match": "*"}}]}),
            json!({"dynamic_templates": {"x": {}}}),
            json!({"dynamic_templates": [{"x": {"match": "*", "mapping": {"type": "nope"}}}]}),
        ] {
            let err = index.update_mappings(&bad).unwrap_err();
            assert_eq!(
                (err.es_type(), err.status()),
                ("mapper_parsing_exception", 400)
            );
        }
        assert_eq!(names(&index.mappings().to_json()).len(), 3);
        let err = catalog
            .create_index(
                "bad",
                &json!({"mappings": {"dynamic_templates": [{"x": {"match_mapping_type": "text", "mapping": {}}}]}}),
            )
            .unwrap_err();
        assert_eq!(err.es_type(), "mapper_parsing_exception");

        for (i, word) in ["alpha beta", "gamma", "alpha beta"].iter().enumerate() {
            let doc = json!({"word": word, "hit_count": i, "ratio": 0.5 + i as f64});
            index
                .index_document(
                    Some(&i.to_string()),
                    doc.to_string().as_bytes(),
                    Precondition::None,
                )
                .unwrap();
        }
        index.refresh().unwrap();
        let m = index.mappings().to_json();
        assert_eq!(
            m["properties"]["word"],
            json!({"type": "keyword", "ignore_above": 1024})
        );
        assert_eq!(m["properties"]["hit_count"]["type"], "long");
        assert_eq!(m["properties"]["ratio"]["type"], "double");
        // A keyword: the whole string is one term.
        let indices = catalog.resolve("t").unwrap();
        let req =
            SearchRequest::parse(&json!({"query": {"term": {"word": "alpha beta"}}})).unwrap();
        assert_eq!(search(&indices, &req).unwrap()["hits"]["total"]["value"], 2);
    }
    // The templates are part of the saved mapping.
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog.get("t").unwrap();
    assert_eq!(
        names(&index.mappings().to_json()),
        ["strings_as_keyword", "counts", "floats"]
    );
    index
        .index_document(Some("9"), br#"{"other": "x y"}"#, Precondition::None)
        .unwrap();
    assert_eq!(
        index.mappings().to_json()["properties"]["other"]["type"],
        "keyword"
    );
}
