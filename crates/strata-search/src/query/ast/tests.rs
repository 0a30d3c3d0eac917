//! The parse of the query tree: its shape, its errors, its depth bound.

use serde_json::{json, Value};

use super::geo::parse_distance;
use super::ZeroTerms;
use super::{parse, FunctionAst, QueryAst};
use crate::error::{QueryStep, SearchError};
use crate::query::geo_shape::DistanceType;
use crate::query::term_options::{Fuzziness, Rewrite};
use crate::query::MAX_NESTED_DEPTH;
use crate::script::score::{BoostMode, Curve, ScoreMode};

fn error(query: &Value) -> String {
    parse(query, 1).expect_err("refused").to_string()
}

#[test]
fn bool_clauses_parse_into_typed_nodes() {
    let q = json!({"bool": {
        "must": {"match": {"title": {"query": "a b", "operator": "AND"}}},
        "filter": [{"term": {"tag": {"value": "x", "boost": 2}}}, {"range": {"n": {"gt": 1, "to": 5, "include_upper": false}}}],
        "should": [{"prefix": {"tag": "p"}}],
        "minimum_should_match": "50%",
        "boost": "1.5"
    }});
    let QueryAst::Bool(b) = parse(&q, 1).unwrap() else {
        panic!("not a bool")
    };
    assert_eq!(b.boost, 1.5);
    assert_eq!(b.minimum_should_match.unwrap().resolve(4).unwrap(), 2);
    let QueryAst::Match(m) = &b.must[0] else {
        panic!("not a match")
    };
    assert!(m.and);
    assert_eq!((m.field, m.query), ("title", &json!("a b")));
    let QueryAst::Term(t) = &b.filter[0] else {
        panic!("not a term")
    };
    assert_eq!((t.field, t.value, t.boost), ("tag", &json!("x"), 2.0));
    let QueryAst::Range(r) = &b.filter[1] else {
        panic!("not a range")
    };
    let (lower, upper) = (r.lower.unwrap(), r.upper.unwrap());
    assert_eq!((lower.value, lower.inclusive), (&json!(1), false));
    assert_eq!((upper.value, upper.inclusive), (&json!(5), false));
    let QueryAst::Prefix(p) = &b.should[0] else {
        panic!("not a prefix")
    };
    assert_eq!((p.field, p.value, p.boost), ("tag", "p", 1.0));
}

#[test]
fn errors_keep_elasticsearch_wording() {
    assert_eq!(error(&json!({"nope": {}})), "unknown query [nope]");
    assert_eq!(
        error(&json!({"match": {"f": {"query": "a", "foo": 1}}})),
        "[match] query does not support [foo]"
    );
    assert_eq!(error(&json!({})), "query malformed, empty clause found");
    assert_eq!(
        error(&json!({"term": {"a": 1, "b": 2}})),
        "[term] query doesn't support multiple fields, found [a] and [b]"
    );
    // A clause's parse error is wrapped by the bool holding it.
    let e = parse(&json!({"bool": {"filter": [{"exists": {}}]}}), 1).unwrap_err();
    assert_eq!(e.to_string(), "[bool] failed to parse field [filter]");
    let SearchError::InQuery { error: inner, .. } = &e else {
        panic!("not placed in the query: {e:?}")
    };
    assert!(matches!(
        **inner,
        SearchError::FieldParse { cause: Some(_), .. }
    ));
    assert_eq!(
        error(&json!({"bool": {"mustt": []}})),
        "[bool] unknown field [mustt]"
    );
}

#[test]
fn nesting_deeper_than_the_limit_is_an_error_not_a_deep_stack() {
    let mut q = json!({"match_all": {}});
    for _ in 0..MAX_NESTED_DEPTH - 1 {
        q = json!({ "bool": { "must": q } });
    }
    assert!(parse(&q, 1).is_ok());
    let deeper = json!({"constant_score": {"filter": q}});
    assert!(error(&deeper).contains("exceeds the maximum nested depth"));
    // Far deeper than any stack would take, built without recursion.
    let mut q = json!({"match_all": {}});
    // (`json!` would copy `q` by serializing it, recursively.)
    let wrap =
        |key: &str, value: Value| Value::Object([(key.to_string(), value)].into_iter().collect());
    for _ in 0..100_000 {
        q = wrap("dis_max", wrap("queries", Value::Array(vec![q])));
    }
    assert!(error(&q).contains("exceeds the maximum nested depth"));
    // serde_json drops a deep value recursively: take it apart by hand.
    let mut at = q;
    while let Some(Value::Array(mut items)) = at
        .get_mut("dis_max")
        .and_then(|d| d.get_mut("queries"))
        .map(Value::take)
    {
        at = items.pop().unwrap_or(Value::Null);
    }
}

#[test]
fn multi_term_queries_parse_their_options() {
    let q = json!({"wildcard": {"f": {"value": "a*", "rewrite": "top_terms_3", "boost": 2}}});
    let QueryAst::Wildcard(w) = parse(&q, 1).unwrap() else {
        panic!("not a wildcard")
    };
    assert_eq!((w.field, w.value, w.boost), ("f", "a*", 2.0));
    assert_eq!(w.options.rewrite, Rewrite::TopTerms(3));
    let q = json!({"regexp": {"f": {"value": "a.*", "flags": "NONE", "case_insensitive": true}}});
    let QueryAst::Regexp(r) = parse(&q, 1).unwrap() else {
        panic!("not a regexp")
    };
    assert!(r.options.case_insensitive && !r.flags.interval);
    let q = json!({"fuzzy": {"f": {"value": 12, "fuzziness": 1, "prefix_length": 2}}});
    let QueryAst::Fuzzy(z) = parse(&q, 1).unwrap() else {
        panic!("not a fuzzy")
    };
    assert_eq!((z.value.as_str(), z.fuzziness), ("12", Fuzziness::Edits(1)));
    assert_eq!(z.options.prefix_length, 2);
    // Malformed options are found by the parse, whatever the field.
    assert_eq!(
        error(&json!({"prefix": {"f": {"value": 1}}})),
        "[prefix] value must be a string"
    );
    assert_eq!(
        error(&json!({"regexp": {"f": {"value": "a", "flags": 3}}})),
        "[regexp] flags must be a string, got [3]"
    );
    assert!(
        error(&json!({"fuzzy": {"f": {"value": "a", "fuzziness": 3}}}))
            .contains("Valid edit distances")
    );
}

#[test]
fn prefix_text_queries_parse_their_options() {
    let q = json!({"match_phrase_prefix": {"f": {"query": "quick br", "max_expansions": "5",
        "zero_terms_query": "ALL", "boost": 3}}});
    let QueryAst::MatchPhrasePrefix(p) = parse(&q, 1).unwrap() else {
        panic!("not a match_phrase_prefix")
    };
    assert_eq!(
        (p.field, p.text.as_str(), p.max_expansions),
        ("f", "quick br", 5)
    );
    assert_eq!((p.zero_terms, p.boost, p.slop), (ZeroTerms::All, 3.0, 0));
    let q = json!({"match_bool_prefix": {"f": {"query": 42, "operator": "AND",
        "fuzziness": "AUTO", "prefix_length": 1, "fuzzy_transpositions": false}}});
    let QueryAst::MatchBoolPrefix(b) = parse(&q, 1).unwrap() else {
        panic!("not a match_bool_prefix")
    };
    assert_eq!((b.text.as_str(), b.and), ("42", true));
    assert_eq!(b.fuzziness, Some(Fuzziness::AUTO));
    assert_eq!((b.fuzzy.prefix_length, b.fuzzy.transpositions), (1, false));
    assert_eq!(
        error(&json!({"match_bool_prefix": {"f": {"query": "a", "operator": "xor"}}})),
        "[match_bool_prefix] unknown operator [xor]"
    );
    assert_eq!(
        error(&json!({"match_phrase_prefix": {"f": {"query": ["a"]}}})),
        "[match_phrase_prefix] unknown token [START_ARRAY] after [query]"
    );
    assert_eq!(
        error(&json!({"match": {"f": {"query": "a", "operator": "XOR"}}})),
        "[match] unknown operator [xor]"
    );
}

#[test]
fn geo_queries_parse_their_shapes() {
    let q = json!({"geo_bounding_box": {"loc": {"top_left": [-74.1, 40.73],
        "bottom_right": "40.01, -71.12"}, "ignore_unmapped": true, "boost": 2}});
    let QueryAst::GeoBoundingBox(b) = parse(&q, 1).unwrap() else {
        panic!("not a geo_bounding_box")
    };
    assert_eq!((b.field, b.ignore_unmapped, b.boost), ("loc", true, 2.0));
    assert_eq!((b.bbox.top, b.bbox.left), (40.73, -74.1));
    assert_eq!((b.bbox.bottom, b.bbox.right), (40.01, -71.12));
    let q = json!({"geo_distance": {"distance": "12km", "distance_type": "PLANE",
        "loc": {"lat": 40.0, "lon": -70.0}}});
    let QueryAst::GeoDistance(d) = parse(&q, 1).unwrap() else {
        panic!("not a geo_distance")
    };
    assert_eq!(
        (d.field, d.distance, d.kind),
        ("loc", 12_000.0, DistanceType::Plane)
    );
    assert_eq!((d.centre.lat, d.centre.lon), (40.0, -70.0));
    assert_eq!(
        error(&json!({"geo_distance": {"distance": "1km", "a": [0, 0], "b": [0, 0]}})),
        "[geo_distance] query doesn't support multiple fields, found [a] and [b]"
    );
    assert_eq!(
        error(&json!({"geo_bounding_box": {"loc": {"top": 1}, "ignore_unmapped": 1}})),
        "[geo_bounding_box] [ignore_unmapped] must be a boolean"
    );
    assert_eq!(
        error(&json!({"geo_distance": {"loc": [0, 0]}})),
        "geo_distance requires 'distance' to be specified"
    );
}

#[test]
fn distances_and_units() {
    assert_eq!(parse_distance(&json!("12km")).unwrap(), 12_000.0);
    assert_eq!(parse_distance(&json!("200")).unwrap(), 200.0);
    assert_eq!(parse_distance(&json!(350.5)).unwrap(), 350.5);
    assert_eq!(parse_distance(&json!("1mi")).unwrap(), 1609.344);
    assert_eq!(parse_distance(&json!("2NM")).unwrap(), 3704.0);
    assert!(parse_distance(&json!("12parsecs")).is_err());
    assert!(parse_distance(&json!("-1km")).is_err());
    assert!(parse_distance(&json!("km")).is_err());
}

#[test]
fn query_text_queries_parse_their_parameters() {
    let q = json!({"query_string": {"query": "a AND b", "default_field": "title^2",
        "default_operator": "AND", "phrase_slop": 2, "type": "most_fields",
        "fuzzy_prefix_length": 1, "minimum_should_match": 1, "boost": 3}});
    let QueryAst::QueryString(s) = parse(&q, 1).unwrap() else {
        panic!("not a query_string")
    };
    assert_eq!(
        (s.text.query, s.text.default_and, s.text.boost),
        ("a AND b", true, 3.0)
    );
    assert_eq!(
        (s.text.fields[0].name.as_str(), s.text.fields[0].boost),
        ("title", 2.0)
    );
    assert_eq!(
        (s.phrase_slop, s.tie_breaker, s.text.fuzzy.prefix_length),
        (2, 1.0, 1)
    );
    assert!(s.text.minimum_should_match.is_some());
    let q = json!({"simple_query_string": {"query": "a | b", "flags": "OR", "lenient": true}});
    let QueryAst::SimpleQueryString(s) = parse(&q, 1).unwrap() else {
        panic!("not a simple_query_string")
    };
    assert!(s.flags.or && !s.flags.and && s.text.lenient);
    assert_eq!(s.text.fields[0].name, "*");
    assert_eq!(
        error(&json!({"query_string": {"query": "a", "phrase_slop": "x"}})),
        "[query_string] query does not support [phrase_slop] with value [\"x\"]"
    );
    assert_eq!(
        error(&json!({"simple_query_string": {"query": "a", "phrase_slop": 1}})),
        "[simple_query_string] unsupported field [phrase_slop]"
    );
    assert_eq!(
        error(&json!({"query_string": {"query": "a", "bogus": 1}})),
        "[query_string] query does not support [bogus]"
    );
    assert_eq!(
        error(&json!({"simple_query_string": {"fields": ["a"]}})),
        "[simple_query_string] query text missing"
    );
}

/// A query path as text: keys joined by `.`, indices as `[n]`
/// (`bool.must[1].range.ts`).
fn path_text(path: &[QueryStep]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            QueryStep::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(key);
            }
            QueryStep::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The path an error of `query` was found at, as text.
fn path_of(query: &Value) -> String {
    let e = parse(query, 1).expect_err("refused");
    path_text(e.query_path().expect("a path"))
}

#[test]
fn parse_errors_carry_the_path_of_their_query() {
    let q = json!({"bool": {"must": [
        {"range": {"ts": {"gte": 1}}},
        {"range": {"ts": {"gte": 1, "foo": 2}}}
    ]}});
    assert_eq!(path_of(&q), "bool.must[1].range.ts");
    let e = parse(&q, 1).unwrap_err();
    // The reply is the wrapped error's, unchanged.
    assert_eq!(e.to_string(), "[bool] failed to parse field [must]");
    assert_eq!(e.es_type(), "x_content_parse_exception");
    assert_eq!(
        e.cause().map(ToString::to_string).as_deref(),
        Some("[range] query does not support [foo]")
    );
    // Through every compound, a single clause without an index.
    let q = json!({"nested": {"path": "p", "query": {"constant_score": {"filter":
        {"dis_max": {"queries": [{"match_all": {}}, {"bool": {"filter":
            {"match": {"p.a.b": {"query": "x", "bogus": 1}}}}}]}}}}}});
    assert_eq!(
        path_of(&q),
        "nested.query.constant_score.filter.dis_max.queries[1].bool.filter.match.p.a.b"
    );
    // A query that is not on one field ends at its kind.
    let q =
        json!({"bool": {"should": [{"geo_distance": {"distance": "1km", "ignore_unmapped": 1}}]}});
    assert_eq!(path_of(&q), "bool.should[0].geo_distance");
    // An unknown query is placed where its parent is; at the top, nowhere.
    assert_eq!(
        path_of(&json!({"bool": {"must": {"nope": {}}}})),
        "bool.must"
    );
    assert!(parse(&json!({"nope": {}}), 1)
        .unwrap_err()
        .query_path()
        .is_none());
    // Errors other than the DSL's parse errors carry none.
    let q = json!({"bool": {"must": {"fuzzy": {"f": {"value": "a", "fuzziness": 3}}}}});
    assert!(parse(&q, 1).unwrap_err().query_path().is_none());
}

#[test]
fn scoring_queries_parse_into_typed_nodes() {
    let q = json!({"function_score": {
        "query": {"term": {"tag": "x"}},
        "functions": [
            {"filter": {"exists": {"field": "n"}}, "gauss": {"n": {"origin": 0, "scale": 5}}, "weight": 2},
            {"field_value_factor": {"field": "n", "modifier": "log1p"}},
            {"weight": 3}
        ],
        "score_mode": "sum", "boost_mode": "replace", "max_boost": "10", "boost": 2
    }});
    let QueryAst::FunctionScore(f) = parse(&q, 1).unwrap() else {
        panic!("not a function_score")
    };
    assert!(matches!(f.query.as_deref(), Some(QueryAst::Term(_))));
    assert_eq!((f.max_boost, f.min_score, f.boost), (10.0, None, 2.0));
    assert_eq!(f.score_mode, ScoreMode::Sum);
    assert_eq!(f.boost_mode, BoostMode::Replace);
    let [decay, factor, weight] = f.functions.as_slice() else {
        panic!("three functions")
    };
    assert!(matches!(decay.filter, Some(QueryAst::Exists(_))));
    let FunctionAst::Decay(d) = &decay.function else {
        panic!("not a decay")
    };
    assert_eq!(
        (d.curve, d.field, d.decay, decay.weight),
        (Curve::Gauss, "n", 0.5, 2.0)
    );
    assert_eq!(
        (d.origin, d.scale, d.offset),
        (Some(&json!(0)), Some(&json!(5)), None)
    );
    assert!(matches!(factor.function, FunctionAst::FieldValueFactor(_)));
    assert!(matches!(weight.function, FunctionAst::Weight) && weight.weight == 3.0);
    let q = json!({"script_score": {"query": {"match_all": {}}, "script": {"source": "1"}, "min_score": 0.5}});
    let QueryAst::ScriptScore(s) = parse(&q, 1).unwrap() else {
        panic!("not a script_score")
    };
    assert!(matches!(*s.query, QueryAst::MatchAll { .. }));
    assert_eq!((s.min_score, s.boost), (Some(0.5), 1.0));
    let QueryAst::Script(s) = parse(&json!({"script": {"script": "true", "boost": 3}}), 1).unwrap()
    else {
        panic!("not a script")
    };
    assert_eq!(s.boost, 3.0);
}

#[test]
fn scoring_query_errors_carry_their_path() {
    let q = json!({"function_score": {"functions": [{"weight": 1}, {"filter": {"range": {"ts": {"gt": 1, "foo": 2}}}, "weight": 2}]}});
    assert_eq!(path_of(&q), "function_score.functions[1].filter.range.ts");
    let q = json!({"script_score": {"query": {"nope": {}}, "script": {"source": "1"}}});
    assert_eq!(path_of(&q), "script_score.query");
    assert_eq!(
        error(&json!({"function_score": {"functions": [{"nope": {}}]}})),
        "function_score: unknown function [nope]"
    );
    assert_eq!(
        error(&json!({"script_score": {"query": {"match_all": {}}, "script": "1"}})),
        "[script_score] script doesn't support values of type: VALUE_STRING"
    );
}
