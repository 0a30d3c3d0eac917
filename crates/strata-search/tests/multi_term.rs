//! `regexp`, `wildcard` and `prefix`: whole-term matching, case folding,
//! the `max_determinized_states` budget, and each `rewrite` checked
//! against scores worked out from the documents (one shard, so the
//! statistics are those of the whole index).

use std::collections::BTreeMap;

use serde_json::{json, Value};
use strata_search::{search, Catalog, Precondition, SearchError, SearchRequest};

fn setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "m",
            &json!({
                "settings": {"number_of_shards": 1, "refresh_interval": "-1"},
                "mappings": {"properties": {"k": {"type": "keyword"}, "t": {"type": "text"}}}
            }),
        )
        .unwrap();
    // df(apple) = 4 in `t`, df(apricot) = 2: apricot is the rarer term.
    let docs = [
        json!({"k": "apple", "t": "apple"}),
        json!({"k": "apricot", "t": "apricot"}),
        json!({"k": "apple", "t": "apple"}),
        json!({"k": "banana", "t": "banana apple"}),
        json!({"k": "Apex", "t": "avocado"}),
        json!({"k": "cherry", "t": "apple apricot"}),
    ];
    for (i, doc) in docs.iter().enumerate() {
        index
            .index_document(
                Some(&(i + 1).to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

fn try_run(catalog: &Catalog, query: Value) -> Result<Value, SearchError> {
    let indices = catalog.resolve("m").unwrap();
    // A query's errors come from the request's parse, the rest from the search.
    SearchRequest::parse(&json!({"query": query, "size": 100}))
        .and_then(|req| search(&indices, &req))
}

/// Hit id -> score.
fn scores(catalog: &Catalog, query: Value) -> BTreeMap<String, f64> {
    let r = try_run(catalog, query.clone()).unwrap_or_else(|e| panic!("{query}: {e}"));
    r["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["_id"].as_str().unwrap().to_string(),
                h["_score"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn ids(catalog: &Catalog, query: Value) -> Vec<String> {
    scores(catalog, query).into_keys().collect()
}

fn regexp_on(field: &str, value: &str, extra: Value) -> Value {
    let mut params = json!({"value": value});
    params
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    json!({"regexp": {field: params}})
}

#[test]
fn patterns_match_whole_terms_with_optional_case_folding() {
    let (_tmp, c) = setup();
    assert_eq!(ids(&c, json!({"regexp": {"k": "ap.*"}})), ["1", "2", "3"]);
    assert_eq!(
        ids(&c, json!({"regexp": {"k": "app"}})),
        Vec::<String>::new()
    );
    assert_eq!(
        ids(
            &c,
            regexp_on("k", "ap.*", json!({"case_insensitive": true}))
        ),
        ["1", "2", "3", "5"]
    );
    assert_eq!(
        ids(&c, json!({"wildcard": {"k": "AP*"}})),
        Vec::<String>::new()
    );
    assert_eq!(
        ids(
            &c,
            json!({"wildcard": {"k": {"value": "AP*", "case_insensitive": true}}})
        ),
        ["1", "2", "3", "5"]
    );
    assert_eq!(ids(&c, json!({"prefix": {"k": "ap"}})), ["1", "2", "3"]);
    assert_eq!(
        ids(
            &c,
            json!({"prefix": {"k": {"value": "aP", "case_insensitive": true}}})
        ),
        ["1", "2", "3", "5"]
    );
    // Prefix characters are literal, not regex operators.
    assert_eq!(
        ids(&c, json!({"prefix": {"k": "a."}})),
        Vec::<String>::new()
    );
}

#[test]
fn max_determinized_states_bounds_the_automaton() {
    let (_tmp, c) = setup();
    let pattern = "[a-z]{1,40}";
    let err = try_run(
        &c,
        regexp_on("k", pattern, json!({"max_determinized_states": 10})),
    )
    .unwrap_err();
    assert_eq!(err.status(), 400, "{err}");
    assert!(err.to_string().contains("more than 10 states"), "{err}");
    assert_eq!(
        ids(
            &c,
            regexp_on("k", pattern, json!({"max_determinized_states": 200}))
        ),
        ["1", "2", "3", "4", "6"]
    );
    // The default budget (10,000) refuses an exponential pattern.
    let err = try_run(&c, json!({"regexp": {"k": "(a|b)*a(a|b){20}"}})).unwrap_err();
    assert_eq!(err.status(), 400, "{err}");
    let bad = regexp_on("k", "a", json!({"max_determinized_states": -1}));
    assert_eq!(try_run(&c, bad).unwrap_err().status(), 400);
}

#[test]
fn constant_score_rewrites_give_every_hit_the_boost() {
    let (_tmp, c) = setup();
    for rewrite in [None, Some("constant_score"), Some("constant_score_boolean")] {
        let mut extra = json!({"boost": 2.5});
        if let Some(r) = rewrite {
            extra["rewrite"] = json!(r);
        }
        let s = scores(&c, regexp_on("t", "ap.*", extra));
        assert_eq!(s.len(), 5, "{rewrite:?} {s:?}");
        assert!(s.values().all(|&v| v == 2.5), "{rewrite:?} {s:?}");
    }
}

#[test]
fn scoring_boolean_ranks_rarer_and_more_matches_higher() {
    let (_tmp, c) = setup();
    let s = scores(
        &c,
        regexp_on("t", "ap.*", json!({"rewrite": "scoring_boolean"})),
    );
    assert_eq!(s.keys().collect::<Vec<_>>(), ["1", "2", "3", "4", "6"]);
    // Same length, one term each: the rarer term scores higher.
    assert!(s["2"] > s["1"], "{s:?}");
    assert_eq!(s["1"], s["3"]);
    // No length norms in this engine (see tests/norms.rs): the common
    // term scores the same in a longer field.
    assert_eq!(s["4"], s["1"]);
    // Both terms: the sum of the two clauses.
    assert!((s["6"] - (s["1"] + s["2"])).abs() < 1e-5, "{s:?}");
    // The same ranking over `wildcard` and `prefix`.
    let w = scores(
        &c,
        json!({"wildcard": {"t": {"value": "ap*", "rewrite": "scoring_boolean"}}}),
    );
    assert_eq!(w, s);
    let p = scores(
        &c,
        json!({"prefix": {"t": {"value": "ap", "rewrite": "scoring_boolean"}}}),
    );
    assert_eq!(p, s);
}

#[test]
fn top_terms_keep_the_first_terms_in_order() {
    let (_tmp, c) = setup();
    // "apple" sorts before "apricot": one term keeps apple's documents.
    let s = scores(
        &c,
        regexp_on("t", "ap.*", json!({"rewrite": "top_terms_1"})),
    );
    assert_eq!(s.keys().collect::<Vec<_>>(), ["1", "3", "4", "6"]);
    let all = scores(
        &c,
        regexp_on("t", "ap.*", json!({"rewrite": "top_terms_10"})),
    );
    let full = scores(
        &c,
        regexp_on("t", "ap.*", json!({"rewrite": "scoring_boolean"})),
    );
    assert_eq!(all, full);
}

#[test]
fn top_terms_boost_counts_the_matched_terms() {
    let (_tmp, c) = setup();
    let s = scores(
        &c,
        regexp_on("t", "ap.*", json!({"rewrite": "top_terms_boost_10"})),
    );
    let want: BTreeMap<String, f64> = [("1", 1.0), ("2", 1.0), ("3", 1.0), ("4", 1.0), ("6", 2.0)]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    assert_eq!(s, want);
}

#[test]
fn blended_freqs_give_every_term_the_same_idf() {
    let (_tmp, c) = setup();
    let s = scores(
        &c,
        regexp_on(
            "t",
            "ap.*",
            json!({"rewrite": "top_terms_blended_freqs_10"}),
        ),
    );
    // Same length, one term each: rarity no longer matters.
    assert!((s["1"] - s["2"]).abs() < 1e-5, "{s:?}");
    let scoring = scores(
        &c,
        regexp_on("t", "ap.*", json!({"rewrite": "scoring_boolean"})),
    );
    // The shared idf is the common term's: apple's documents score as before.
    assert!((s["1"] - scoring["1"]).abs() < 1e-5, "{s:?} {scoring:?}");
}

#[test]
fn a_bad_rewrite_is_refused() {
    let (_tmp, c) = setup();
    for bad in ["fastest", "top_terms_0", "top_terms_x"] {
        let err = try_run(&c, regexp_on("t", "ap.*", json!({"rewrite": bad}))).unwrap_err();
        assert_eq!(err.status(), 400, "{bad}: {err}");
        assert!(err.to_string().contains("rewrite"), "{err}");
    }
    let err = try_run(&c, json!({"prefix": {"t": {"value": "a", "rewrite": 3}}})).unwrap_err();
    assert_eq!(err.status(), 400);
}

#[test]
fn query_string_passes_rewrite_and_the_state_budget_to_its_leaves() {
    let (_tmp, c) = setup();
    let qs = |query: &str, extra: Value| {
        let mut body = json!({"query": query});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"query_string": body})
    };
    let constant = scores(&c, qs("t:ap*", json!({})));
    assert!(constant.values().all(|&v| v == 1.0), "{constant:?}");
    let scored = scores(&c, qs("t:ap*", json!({"rewrite": "scoring_boolean"})));
    let direct = scores(
        &c,
        regexp_on("t", "ap.*", json!({"rewrite": "scoring_boolean"})),
    );
    assert_eq!(scored, direct);
    let regex = scores(&c, qs("t:/ap.*/", json!({"rewrite": "top_terms_boost_5"})));
    assert_eq!(regex["6"], 2.0, "{regex:?}");
    let err = try_run(
        &c,
        qs("k:/[a-z]{1,40}/", json!({"max_determinized_states": 10})),
    )
    .unwrap_err();
    assert_eq!(err.status(), 400, "{err}");
    let err = try_run(&c, qs("t:ap*", json!({"rewrite": "nope"}))).unwrap_err();
    assert_eq!(err.status(), 400, "{err}");
}

#[test]
fn scoring_boolean_past_the_clause_limit_is_a_request_error() {
    let tmp = tempfile::tempdir().unwrap();
    let c = Catalog::open(tmp.path()).unwrap();
    let index = c
        .create_index(
            "m",
            &json!({"settings": {"refresh_interval": "-1"},
                    "mappings": {"properties": {"k": {"type": "keyword"}}}}),
        )
        .unwrap();
    for i in 0..4100 {
        let doc = json!({ "k": format!("v{i:05}") });
        index
            .index_document(None, doc.to_string().as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();
    let err = try_run(
        &c,
        regexp_on("k", "v.*", json!({"rewrite": "scoring_boolean"})),
    )
    .unwrap_err();
    assert_eq!(err.status(), 400, "{err}");
    assert!(err.to_string().contains("too_many_clauses"), "{err}");
    // top_terms_N stops at N instead; constant score has no limit.
    let top = try_run(
        &c,
        regexp_on("k", "v.*", json!({"rewrite": "top_terms_10"})),
    )
    .unwrap();
    assert_eq!(top["hits"]["total"]["value"], 10);
    let all = try_run(&c, json!({"regexp": {"k": "v.*"}})).unwrap();
    assert_eq!(all["hits"]["total"]["value"], 4100);
}

/// An index of near-spellings of "quick" in `t`.
fn fuzzy_setup() -> (tempfile::TempDir, Catalog) {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog
        .create_index(
            "m",
            &json!({
                "settings": {"number_of_shards": 1, "refresh_interval": "-1"},
                "mappings": {"properties": {"k": {"type": "keyword"}, "t": {"type": "text"}}}
            }),
        )
        .unwrap();
    // 1 exact, 2 one substitution, 3 a transposition, 4 two edits,
    // 5 one edit in the first character.
    for (i, word) in ["quick", "quack", "qiuck", "quacks", "xuick"]
        .iter()
        .enumerate()
    {
        let doc = json!({"t": word, "k": word});
        index
            .index_document(
                Some(&(i + 1).to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
    }
    index.refresh().unwrap();
    (tmp, catalog)
}

fn qs(query: &str, extra: Value) -> Value {
    let mut body = json!({"query": query});
    body.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    json!({"query_string": body})
}

#[test]
fn query_string_fuzzy_parameters_shape_the_expansion() {
    let (_tmp, c) = fuzzy_setup();
    assert_eq!(ids(&c, qs("t:quick~1", json!({}))), ["1", "2", "3", "5"]);
    assert_eq!(
        ids(&c, qs("t:quick~2", json!({}))),
        ["1", "2", "3", "4", "5"]
    );
    // Closer terms score higher (their boost), the exact term highest.
    let s = scores(&c, qs("t:quick~2", json!({})));
    assert!(s["1"] > s["2"] && s["2"] > s["4"], "{s:?}");
    assert_eq!(
        ids(&c, qs("t:quick~1", json!({"fuzzy_transpositions": false}))),
        ["1", "2", "5"]
    );
    assert_eq!(
        ids(&c, qs("t:quick~1", json!({"fuzzy_prefix_length": 1}))),
        ["1", "2", "3"]
    );
    // The best two: the exact term, then the first one-edit term in term
    // order ("qiuck" < "quack" < "xuick").
    assert_eq!(
        ids(&c, qs("t:quick~2", json!({"fuzzy_max_expansions": 2}))),
        ["1", "3"]
    );
    let constant = scores(
        &c,
        qs("k:quick~1", json!({"fuzzy_rewrite": "constant_score"})),
    );
    assert_eq!(constant.len(), 4);
    assert!(constant.values().all(|&v| v == 1.0), "{constant:?}");
    // The same options in simple_query_string.
    let simple = json!({"simple_query_string": {"query": "quick~1", "fields": ["t"],
                        "fuzzy_prefix_length": 1}});
    assert_eq!(ids(&c, simple), ["1", "2", "3"]);
    for bad in [
        json!({"fuzzy_max_expansions": 0}),
        json!({"fuzzy_prefix_length": "x"}),
        json!({"fuzzy_transpositions": 1}),
        json!({"fuzzy_rewrite": "nope"}),
        json!({"quote_analyzer": "whitespace"}),
    ] {
        let err = try_run(&c, qs("t:quick~1", bad.clone())).unwrap_err();
        assert_eq!(err.status(), 400, "{bad}: {err}");
    }
}

#[test]
fn allow_leading_wildcard_false_refuses_a_leading_wildcard() {
    let (_tmp, c) = fuzzy_setup();
    assert_eq!(ids(&c, qs("t:*ck", json!({}))), ["1", "2", "3", "5"]);
    let err = try_run(&c, qs("t:*ck", json!({"allow_leading_wildcard": false}))).unwrap_err();
    assert_eq!(err.status(), 400, "{err}");
    assert!(err.to_string().contains("first character"), "{err}");
    // A wildcard further in is still fine, and so is `field:*`.
    assert_eq!(
        ids(&c, qs("t:qu*", json!({"allow_leading_wildcard": false}))),
        ["1", "2", "4"]
    );
    assert_eq!(
        ids(&c, qs("t:*", json!({"allow_leading_wildcard": false}))).len(),
        5
    );
}
