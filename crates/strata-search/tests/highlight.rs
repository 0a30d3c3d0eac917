//! `highlight` over generated documents: every tagged word is a query
//! term, every occurrence of one is tagged (whole values), fragments are
//! pieces of the source no longer than asked, options change tags, counts
//! and fields as in Elasticsearch, and bad options are 400s.

use crate::common;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use strata_search::{search, Catalog, Precondition, SearchRequest};

const WORDS: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "quick", "fox", "dog", "lazy",
];

fn setup() -> (tempfile::TempDir, Catalog, Vec<(String, String)>) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"body": {"type": "text"}, "title": {"type": "text"}, "tag": {"type": "keyword"}}),
    );
    let mut rng = StdRng::seed_from_u64(3);
    let mut docs = Vec::new();
    for i in 0..200 {
        let n = rng.gen_range(5..60);
        let body: Vec<&str> = (0..n)
            .map(|_| WORDS[rng.gen_range(0..WORDS.len())])
            .collect();
        let title = WORDS[rng.gen_range(0..WORDS.len())].to_string();
        let body = body.join(" ");
        let doc = json!({"body": body, "title": title, "tag": WORDS[i % WORDS.len()]});
        index
            .index_document(
                Some(&i.to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        docs.push((body, title));
    }
    index.refresh().unwrap();
    (tmp, catalog, docs)
}

fn strip(fragment: &str, pre: &str, post: &str) -> (String, Vec<String>) {
    let mut plain = String::new();
    let mut tagged = Vec::new();
    let mut rest = fragment;
    while let Some(i) = rest.find(pre) {
        plain.push_str(&rest[..i]);
        let after = &rest[i + pre.len()..];
        let j = after.find(post).unwrap();
        plain.push_str(&after[..j]);
        tagged.push(after[..j].to_string());
        rest = &after[j + post.len()..];
    }
    plain.push_str(rest);
    (plain, tagged)
}

#[test]
fn fragments_tag_exactly_the_query_terms() {
    let (_tmp, catalog, docs) = setup();
    let r = common::search_logs(
        &catalog,
        &json!({"size": 300, "query": {"match": {"body": "quick fox"}},
                "highlight": {"fields": {"body": {"number_of_fragments": 0}}}}),
    );
    let hits = r["hits"]["hits"].as_array().unwrap();
    assert!(!hits.is_empty());
    for h in hits {
        let id: usize = h["_id"].as_str().unwrap().parse().unwrap();
        let frags = h["highlight"]["body"].as_array().unwrap();
        assert_eq!(frags.len(), 1);
        let (plain, tagged) = strip(frags[0].as_str().unwrap(), "<em>", "</em>");
        assert_eq!(plain, docs[id].0);
        let want = docs[id]
            .0
            .split(' ')
            .filter(|w| *w == "quick" || *w == "fox")
            .count();
        assert_eq!(tagged.len(), want);
        assert!(tagged.iter().all(|t| t == "quick" || t == "fox"));
        // require_field_match: title was not queried.
        assert!(h["highlight"].get("title").is_none());
    }
    // Fragments: pieces of the text, at most `number_of_fragments`, about
    // `fragment_size` long, custom tags, and all fields by wildcard without
    // require_field_match.
    let r = common::search_logs(
        &catalog,
        &json!({"size": 300, "query": {"match": {"body": "lazy"}},
                "highlight": {"pre_tags": ["["], "post_tags": ["]"], "require_field_match": false,
                    "fields": [{"*": {"fragment_size": 30, "number_of_fragments": 2}}]}}),
    );
    for h in r["hits"]["hits"].as_array().unwrap() {
        let id: usize = h["_id"].as_str().unwrap().parse().unwrap();
        let frags = h["highlight"]["body"].as_array().unwrap();
        assert!(!frags.is_empty() && frags.len() <= 2);
        for f in frags {
            let (plain, tagged) = strip(f.as_str().unwrap(), "[", "]");
            assert!(docs[id].0.contains(&plain), "{plain}");
            assert!(plain.len() <= 30 + 5, "{plain}");
            assert!(!tagged.is_empty() && tagged.iter().all(|t| t == "lazy"));
        }
        let title_has = docs[id].1 == "lazy";
        assert_eq!(h["highlight"].get("title").is_some(), title_has);
    }
    // no_match_size: a field without matches shows its start.
    let r = common::search_logs(
        &catalog,
        &json!({"size": 1, "query": {"match": {"body": "quick"}},
                "highlight": {"fields": {"title": {"no_match_size": 50}}}}),
    );
    let h = &r["hits"]["hits"][0];
    let id: usize = h["_id"].as_str().unwrap().parse().unwrap();
    assert_eq!(h["highlight"]["title"], json!([docs[id].1]));
    // A term query on a keyword field, prefix and phrase-prefix queries.
    let r = common::search_logs(
        &catalog,
        &json!({"size": 5, "query": {"bool": {"must": [{"term": {"tag": "gamma"}}, {"prefix": {"body": "del"}}]}},
                "highlight": {"fields": {"tag": {}, "body": {"number_of_fragments": 0}}}}),
    );
    for h in r["hits"]["hits"].as_array().unwrap() {
        assert_eq!(h["highlight"]["tag"], json!(["<em>gamma</em>"]));
        let (_, tagged) = strip(h["highlight"]["body"][0].as_str().unwrap(), "<em>", "</em>");
        assert!(!tagged.is_empty() && tagged.iter().all(|t| t == "delta"));
    }
    // must_not terms are not highlighted.
    let r = common::search_logs(
        &catalog,
        &json!({"size": 50, "query": {"bool": {"must": {"match": {"body": "dog"}}, "must_not": {"match": {"body": "alpha"}}}},
                "highlight": {"fields": {"body": {"number_of_fragments": 0}}}}),
    );
    for h in r["hits"]["hits"].as_array().unwrap() {
        let (_, tagged) = strip(h["highlight"]["body"][0].as_str().unwrap(), "<em>", "</em>");
        assert!(tagged.iter().all(|t| t == "dog"));
    }
}

/// Kibana's Discover: a query of `*` highlights nothing in any field; a
/// field's `highlight_query` with terms, or its `no_match_size`, still
/// shows its fragments under that query.
#[test]
fn a_query_without_terms_highlights_only_what_the_fields_ask_for() {
    let (_tmp, catalog, docs) = setup();
    let star = json!({"bool": {"must": [
        {"match_all": {}},
        {"query_string": {"query": "*", "analyze_wildcard": true, "default_field": "*"}}
    ]}});
    let r = common::search_logs(
        &catalog,
        &json!({"size": 20, "query": star, "highlight": {"fields": {"*": {}}}}),
    );
    let hits = r["hits"]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 20);
    assert!(hits.iter().all(|h| h.get("highlight").is_none()), "{r}");
    let r = common::search_logs(
        &catalog,
        &json!({"size": 200, "query": star, "highlight": {"fields": {
            "body": {"highlight_query": {"match": {"body": "fox"}}, "number_of_fragments": 0},
            "title": {"no_match_size": 50}
        }}}),
    );
    for h in r["hits"]["hits"].as_array().unwrap() {
        let id: usize = h["_id"].as_str().unwrap().parse().unwrap();
        assert_eq!(h["highlight"]["title"], json!([docs[id].1]), "{h}");
        let has_fox = docs[id].0.split(' ').any(|w| w == "fox");
        assert_eq!(h["highlight"].get("body").is_some(), has_fox, "{h}");
    }
}

#[test]
fn bad_highlight_options_are_400s() {
    let (_tmp, catalog, _docs) = setup();
    for h in [
        json!("body"),
        json!({"fields": {"body": {"fragment_size": -1}}}),
        json!({"fields": {"body": {"type": 5}}}),
        json!({"fields": {"body": {"bogus": 1}}}),
        json!({"pre_tags": 5, "fields": {"body": {}}}),
        json!({"fields": 3}),
    ] {
        let body = json!({"query": {"match": {"body": "fox"}}, "highlight": h.clone()});
        let indices = catalog.resolve("logs").unwrap();
        let status = match SearchRequest::parse(&body).and_then(|r| search(&indices, &r)) {
            Ok(_) => 200,
            Err(e) => e.status(),
        };
        assert_eq!(status, 400, "{h}");
    }
}

/// An unknown highlighter type fails in the fetch phase, on the shards
/// with hits: every shard when both have hits, none without a fetch.
#[test]
fn an_unknown_highlighter_type_fails_the_fetch() {
    let (_tmp, catalog, _docs) = setup();
    let indices = catalog.resolve("logs").unwrap();
    let magic = json!({"fields": {"body": {"type": "magic"}}});
    let body = json!({"size": 200, "highlight": magic});
    match SearchRequest::parse(&body).and_then(|r| search(&indices, &r)) {
        Err(e) => {
            assert_eq!(e.status(), 400);
            assert_eq!(e.es_type(), "search_phase_execution_exception");
            let cause = e.cause().unwrap();
            assert_eq!(cause.es_type(), "illegal_argument_exception");
            assert_eq!(
                cause.to_string(),
                "unknown highlighter type [magic] for the field [body]"
            );
        }
        Ok(_) => panic!("every shard had hits to highlight"),
    }
    let body = json!({"size": 0, "highlight": magic});
    let r = SearchRequest::parse(&body).and_then(|r| search(&indices, &r));
    assert!(r.is_ok());
}

/// Odd text (wide spaces, accents, punctuation, long runs without a
/// space) under every fragment size and count: answered, never a panic,
/// and every fragment a piece of the source once the tags are gone.
#[test]
fn odd_text_is_highlighted_without_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(tmp.path(), 1, json!({"body": {"type": "text"}}));
    let pieces = [
        "fox",
        "é",
        "\u{3000}",
        " ",
        "-",
        "ß",
        "日本",
        "foxé",
        "\u{1F600}",
        "..",
        "FOX",
    ];
    let mut rng = StdRng::seed_from_u64(11);
    let mut texts = Vec::new();
    for i in 0..60 {
        let n = rng.gen_range(0..80);
        let text: String = (0..n)
            .map(|_| pieces[rng.gen_range(0..pieces.len())])
            .collect();
        index
            .index_document(
                Some(&i.to_string()),
                json!({"body": text}).to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        texts.push(text);
    }
    index.refresh().unwrap();
    for size in [1, 2, 3, 5, 8, 13, 40] {
        for frags in [0, 1, 3] {
            for query in [
                json!({"match": {"body": "fox"}}),
                json!({"match_phrase_prefix": {"body": "fo"}}),
                json!({"query_string": {"query": "日本 OR foxé"}}),
            ] {
                let r = common::search_logs(
                    &catalog,
                    &json!({"size": 100, "query": query,
                    "highlight": {"fields": {"body": {"fragment_size": size, "number_of_fragments": frags, "no_match_size": size}}}}),
                );
                for h in r["hits"]["hits"].as_array().unwrap() {
                    let id: usize = h["_id"].as_str().unwrap().parse().unwrap();
                    for f in h["highlight"]["body"].as_array().into_iter().flatten() {
                        let (plain, _) = strip(f.as_str().unwrap(), "<em>", "</em>");
                        assert!(
                            texts[id].contains(plain.as_str()),
                            "{plain:?} in {:?}",
                            texts[id]
                        );
                    }
                }
            }
        }
    }
}
