//! `nested` fields, the `nested` query and the `nested`/`reverse_nested`
//! aggregations, checked against a model of the documents kept here:
//! no match across objects, counts of parents only, updates and deletes
//! that leave no nested document behind, and the same answers after
//! many segments (merges) and after a restart that replays the translog.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{count, search, Catalog, Precondition, SearchError, SearchRequest};

const AUTHORS: [&str; 4] = ["alice", "bob", "carol", "dave"];

#[derive(Clone, Debug)]
struct Comment {
    author: &'static str,
    stars: i64,
    replies: Vec<&'static str>,
}

type Model = BTreeMap<String, Vec<Comment>>;

fn source(comments: &[Comment]) -> Value {
    let list: Vec<Value> = comments
        .iter()
        .map(|c| {
            let replies: Vec<Value> = c.replies.iter().map(|w| json!({"who": w})).collect();
            json!({"author": c.author, "stars": c.stars, "replies": replies})
        })
        .collect();
    json!({"title": "post", "comments": list})
}

fn random_comments(rng: &mut impl Rng) -> Vec<Comment> {
    (0..rng.gen_range(0..5))
        .map(|_| Comment {
            author: AUTHORS[rng.gen_range(0..4)],
            stars: rng.gen_range(1..=5),
            replies: (0..rng.gen_range(0..3))
                .map(|_| AUTHORS[rng.gen_range(0..4)])
                .collect(),
        })
        .collect()
}

fn create(catalog: &Catalog) {
    catalog
        .create_index(
            "posts",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {"properties": {
                    "title": {"type": "keyword"},
                    "comments": {"type": "nested", "properties": {
                        "author": {"type": "keyword"},
                        "stars": {"type": "integer"},
                        "replies": {"type": "nested", "properties": {
                            "who": {"type": "keyword"}
                        }}
                    }}
                }}
            }),
        )
        .unwrap();
}

fn run(catalog: &Catalog, body: Value) -> Value {
    let indices = catalog.resolve("posts").unwrap();
    search(&indices, &SearchRequest::parse(&body).unwrap()).unwrap()
}

fn try_run(catalog: &Catalog, body: Value) -> Result<Value, SearchError> {
    let indices = catalog.resolve("posts").unwrap();
    search(&indices, &SearchRequest::parse(&body)?)
}

fn ids(resp: &Value) -> Vec<String> {
    let mut out: Vec<String> = resp["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().to_string())
        .collect();
    out.sort();
    out
}

fn expect_ids(model: &Model, keep: impl Fn(&[Comment]) -> bool) -> Vec<String> {
    model
        .iter()
        .filter(|(_, c)| keep(c))
        .map(|(id, _)| id.clone())
        .collect()
}

/// Every answer the model can predict.
fn check(catalog: &Catalog, model: &Model) {
    let n = model.len() as u64;
    let all = run(catalog, json!({"size": 1000}));
    assert_eq!(all["hits"]["total"]["value"], json!(n), "parents only");
    assert_eq!(ids(&all), model.keys().cloned().collect::<Vec<_>>());
    for hit in all["hits"]["hits"].as_array().unwrap() {
        let id = hit["_id"].as_str().unwrap();
        assert_eq!(
            hit["_source"],
            source(&model[id]),
            "the parent's own source"
        );
    }
    let indices = catalog.resolve("posts").unwrap();
    let counted = count(
        &indices,
        &strata_search::ParsedQuery::parse(json!({"match_all": {}})).unwrap(),
        &strata_search::MemoryAccount::unaccounted(),
    )
    .unwrap();
    assert_eq!(counted, n);

    for author in AUTHORS {
        // One object must hold both clauses.
        let resp = run(
            catalog,
            json!({"size": 1000, "query": {"nested": {"path": "comments", "query": {"bool": {"must": [
                {"term": {"comments.author": author}},
                {"range": {"comments.stars": {"gte": 4}}}
            ]}}}}}),
        );
        let want = expect_ids(model, |cs| {
            cs.iter().any(|c| c.author == author && c.stars >= 4)
        });
        assert_eq!(ids(&resp), want, "author {author} with 4+ stars");

        // score_mode sum of constant 1.0 scores: the matching objects' count.
        let resp = run(
            catalog,
            json!({"size": 1000, "query": {"nested": {"path": "comments", "score_mode": "sum",
                "query": {"constant_score": {"filter": {"term": {"comments.author": author}}}}}}}),
        );
        for hit in resp["hits"]["hits"].as_array().unwrap() {
            let id = hit["_id"].as_str().unwrap();
            let matching = model[id].iter().filter(|c| c.author == author).count();
            assert_eq!(hit["_score"].as_f64().unwrap(), matching as f64, "{id}");
        }
        assert_eq!(
            ids(&resp),
            expect_ids(model, |cs| cs.iter().any(|c| c.author == author))
        );

        // Two levels: a comment by `author` with a reply by `alice`.
        let resp = run(
            catalog,
            json!({"size": 1000, "query": {"nested": {"path": "comments", "query": {"bool": {"must": [
                {"term": {"comments.author": author}},
                {"nested": {"path": "comments.replies", "query": {"term": {"comments.replies.who": "alice"}}}}
            ]}}}}}),
        );
        let want = expect_ids(model, |cs| {
            cs.iter()
                .any(|c| c.author == author && c.replies.contains(&"alice"))
        });
        assert_eq!(ids(&resp), want, "two levels, {author}");
    }

    // Fields of nested objects are not in the root document.
    let flat = run(
        catalog,
        json!({"query": {"term": {"comments.author": "alice"}}}),
    );
    assert_eq!(flat["hits"]["total"]["value"], json!(0));

    // nested / terms / reverse_nested against the model.
    let resp = run(
        catalog,
        json!({"size": 0, "aggs": {"c": {"nested": {"path": "comments"}, "aggs": {
            "by_author": {"terms": {"field": "comments.author", "size": 10},
                "aggs": {"posts": {"reverse_nested": {}},
                         "stars": {"sum": {"field": "comments.stars"}}}},
            "replies": {"nested": {"path": "comments.replies"}}
        }}}}),
    );
    let comments: usize = model.values().map(Vec::len).sum();
    let replies: usize = model
        .values()
        .flat_map(|cs| cs.iter().map(|c| c.replies.len()))
        .sum();
    let c = &resp["aggregations"]["c"];
    assert_eq!(c["doc_count"], json!(comments));
    assert_eq!(c["replies"]["doc_count"], json!(replies));
    let buckets = c["by_author"]["buckets"].as_array().unwrap();
    for author in AUTHORS {
        let by: Vec<&Comment> = model
            .values()
            .flatten()
            .filter(|c| c.author == author)
            .collect();
        let bucket = buckets.iter().find(|b| b["key"] == author);
        if by.is_empty() {
            assert!(bucket.is_none());
            continue;
        }
        let bucket = bucket.unwrap();
        assert_eq!(bucket["doc_count"], json!(by.len()), "{author}");
        let stars: i64 = by.iter().map(|c| c.stars).sum();
        assert_eq!(bucket["stars"]["value"].as_f64().unwrap(), stars as f64);
        let posts = model
            .values()
            .filter(|cs| cs.iter().any(|c| c.author == author))
            .count();
        assert_eq!(bucket["posts"]["doc_count"], json!(posts), "{author}");
    }

    // Under a query: only the matching parents' objects.
    let resp = run(
        catalog,
        json!({"size": 0, "query": {"nested": {"path": "comments",
            "query": {"term": {"comments.author": "bob"}}}},
            "aggs": {"c": {"nested": {"path": "comments"}}}}),
    );
    let under: usize = model
        .values()
        .filter(|cs| cs.iter().any(|c| c.author == "bob"))
        .map(Vec::len)
        .sum();
    assert_eq!(resp["aggregations"]["c"]["doc_count"], json!(under));
}

#[test]
fn nested_objects_match_alone_and_stay_consistent() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(31);
    let mut model = Model::new();
    {
        let catalog = Catalog::open(tmp.path()).unwrap();
        create(&catalog);
        let index = catalog.get("posts").unwrap();
        // The false match of flattened objects: alice gave 1 star, bob 5.
        let cross = vec![
            Comment {
                author: "alice",
                stars: 1,
                replies: vec![],
            },
            Comment {
                author: "bob",
                stars: 5,
                replies: vec![],
            },
        ];
        model.insert("cross".into(), cross.clone());
        let body = source(&cross).to_string();
        index
            .index_document(Some("cross"), body.as_bytes(), Precondition::None)
            .unwrap();
        // Many small segments: merges run among them.
        for round in 0..12 {
            for i in 0..10 {
                let id = format!("p{}", rng.gen_range(0..40));
                if rng.gen_range(0..6) == 0 {
                    index.delete_document(&id, Precondition::None).unwrap();
                    model.remove(&id);
                    continue;
                }
                let comments = random_comments(&mut rng);
                let body = source(&comments).to_string();
                index
                    .index_document(Some(&id), body.as_bytes(), Precondition::None)
                    .unwrap();
                model.insert(id, comments);
                let _ = i;
            }
            index.refresh().unwrap();
            if round % 4 == 3 {
                check(&catalog, &model);
            }
        }
        let cross_query = json!({"query": {"nested": {"path": "comments", "query": {"bool": {"must": [
            {"term": {"comments.author": "alice"}}, {"term": {"comments.stars": 5}}
        ]}}}}});
        let resp = run(&catalog, cross_query.clone());
        assert!(
            !ids(&resp).contains(&"cross".to_string()),
            "no match across objects"
        );
        index.flush().unwrap();
        // Writes after the flush are replayed from the translog.
        for i in 0..15 {
            let id = format!("p{}", i * 2);
            let comments = random_comments(&mut rng);
            let body = source(&comments).to_string();
            index
                .index_document(Some(&id), body.as_bytes(), Precondition::None)
                .unwrap();
            model.insert(id, comments);
        }
        index.delete_document("p1", Precondition::None).unwrap();
        model.remove("p1");
        index.refresh().unwrap();
        check(&catalog, &model);
    }
    let catalog = Catalog::open(tmp.path()).unwrap();
    check(&catalog, &model);
}

#[test]
fn nested_errors_and_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    create(&catalog);
    let index = catalog.get("posts").unwrap();
    index
        .index_document(
            Some("a"),
            br#"{"title": "t", "comments": [{"author": "x"}]}"#,
            Precondition::None,
        )
        .unwrap();
    index.refresh().unwrap();
    let q = |path: &str, extra: Value| {
        let mut nested = json!({"path": path, "query": {"match_all": {}}});
        if let Value::Object(e) = extra {
            nested.as_object_mut().unwrap().extend(e);
        }
        try_run(&catalog, json!({"query": {"nested": nested}}))
    };
    let e = q("nope", json!({})).unwrap_err();
    assert_eq!(e.es_type(), "query_shard_exception");
    assert!(e
        .to_string()
        .contains("failed to find nested object under path [nope]"));
    let none = q("nope", json!({"ignore_unmapped": true})).unwrap();
    assert_eq!(none["hits"]["total"]["value"], json!(0));
    let e = q("title", json!({})).unwrap_err();
    assert!(e.to_string().contains("is not of nested type"), "{e}");
    let e = q("comments", json!({"score_mode": "median"})).unwrap_err();
    assert_eq!(e.status(), 400);
    let e = q("comments", json!({"inner_hits": {}})).unwrap_err();
    assert!(e.to_string().contains("inner_hits"), "{e}");
    let ok = q("comments", json!({"score_mode": "none"})).unwrap();
    assert_eq!(ok["hits"]["total"]["value"], json!(1));
    let e = try_run(&catalog, json!({"aggs": {"r": {"reverse_nested": {}}}})).unwrap_err();
    assert_eq!(e.status(), 400);
    let e = try_run(
        &catalog,
        json!({"aggs": {"n": {"nested": {"path": "title"}}}}),
    )
    .unwrap_err();
    assert_eq!(e.status(), 400);

    // index.mapping.nested_objects.limit, counted over every level.
    index
        .update_settings(&json!({"index.mapping.nested_objects.limit": 3}))
        .unwrap();
    let four = json!({"comments": [
        {"author": "a", "replies": [{"who": "b"}]}, {"author": "c"}, {"author": "d"}
    ]});
    let e = index
        .index_document(Some("b"), four.to_string().as_bytes(), Precondition::None)
        .unwrap_err();
    assert_eq!(e.es_type(), "document_parsing_exception");
    assert!(e.to_string().contains("allowed limit of [3]"), "{e}");
    // index.mapping.nested_fields.limit at creation.
    let e = catalog
        .create_index(
            "many",
            &json!({
                "settings": {"index.mapping.nested_fields.limit": 1},
                "mappings": {"properties": {
                    "a": {"type": "nested"}, "b": {"type": "nested"}
                }}
            }),
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Limit of nested fields [1] has been exceeded"
    );
    // A concrete value where a nested object is mapped.
    let e = index
        .index_document(Some("c"), br#"{"comments": 5}"#, Precondition::None)
        .unwrap_err();
    assert_eq!(e.status(), 400);
}
