//! `fuzzy`, `dis_max`, `match_phrase_prefix`, `match_bool_prefix` and
//! `geo_distance` over generated documents, each answer checked against
//! the matches computed by brute force over the same documents, and the
//! errors bad input gives.

use crate::common;

use std::collections::BTreeSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use strata_search::{Catalog, Precondition, SearchError};

const WORDS: &[&str] = &[
    "quick",
    "quack",
    "quiet",
    "brown",
    "browse",
    "fox",
    "box",
    "fix",
    "jumps",
    "jump",
    "over",
    "lazy",
    "lady",
    "dog",
    "dig",
    "kimchy",
    "kimchi",
    "search",
    "searching",
    "sea",
];
const TAGS: &[&str] = &[
    "alpha", "alpah", "alpine", "beta", "bets", "gamma", "gamut", "ab",
];

struct Doc {
    words: Vec<&'static str>,
    tag: &'static str,
    point: (f64, f64),
}

fn setup(seed: u64, n: usize) -> (tempfile::TempDir, Catalog, Vec<Doc>) {
    let tmp = tempfile::tempdir().unwrap();
    let (catalog, index) = common::logs_index(
        tmp.path(),
        2,
        json!({"body": {"type": "text"}, "tag": {"type": "keyword"},
               "place": {"type": "geo_point"}}),
    );
    let mut rng = StdRng::seed_from_u64(seed);
    let mut docs = Vec::new();
    for i in 0..n {
        let len = rng.gen_range(1..7);
        let words: Vec<_> = (0..len)
            .map(|_| WORDS[rng.gen_range(0..WORDS.len())])
            .collect();
        let tag = TAGS[rng.gen_range(0..TAGS.len())];
        let point = (rng.gen_range(40.0..60.0), rng.gen_range(-10.0..10.0));
        let doc = json!({"body": words.join(" "), "tag": tag,
                         "place": {"lat": point.0, "lon": point.1}});
        index
            .index_document(
                Some(&i.to_string()),
                doc.to_string().as_bytes(),
                Precondition::None,
            )
            .unwrap();
        if i == n / 2 {
            index.refresh().unwrap();
        }
        docs.push(Doc { words, tag, point });
    }
    index.refresh().unwrap();
    (tmp, catalog, docs)
}

fn ids(catalog: &Catalog, query: Value) -> BTreeSet<usize> {
    let r = common::search_logs(catalog, &json!({"query": query, "size": 10000}));
    r["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["_id"].as_str().unwrap().parse().unwrap())
        .collect()
}

fn scores(catalog: &Catalog, query: Value) -> Vec<(usize, f64)> {
    let r = common::search_logs(catalog, &json!({"query": query, "size": 10000}));
    r["hits"]["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["_id"].as_str().unwrap().parse().unwrap(),
                h["_score"].as_f64().unwrap(),
            )
        })
        .collect()
}

fn expect<F: Fn(&Doc) -> bool>(docs: &[Doc], f: F) -> BTreeSet<usize> {
    docs.iter()
        .enumerate()
        .filter(|(_, d)| f(d))
        .map(|(i, _)| i)
        .collect()
}

/// Optimal string alignment distance (a swap of neighbours is one edit).
fn osa(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

fn auto(term: &str) -> usize {
    match term.chars().count() {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
    }
}

#[test]
fn fuzzy_matches_brute_force() {
    let (_tmp, catalog, docs) = setup(7, 300);
    for value in ["alpha", "beta", "gama", "ab", "xyz"] {
        for fuzziness in [
            json!("AUTO"),
            json!(0),
            json!(1),
            json!(2),
            json!("AUTO:2,4"),
        ] {
            let edits = match fuzziness.as_str() {
                Some("AUTO") => auto(value),
                Some(_) => match value.len() {
                    0..=1 => 0,
                    2..=3 => 1,
                    _ => 2,
                },
                None => fuzziness.as_u64().unwrap() as usize,
            };
            let got = ids(
                &catalog,
                json!({"fuzzy": {"tag": {"value": value, "fuzziness": fuzziness}}}),
            );
            let want = expect(&docs, |d| osa(d.tag, value) <= edits);
            assert_eq!(got, want, "fuzzy tag {value} {fuzziness}");
        }
        // Without transpositions a swap costs two edits.
        let got = ids(
            &catalog,
            json!({"fuzzy": {"tag": {"value": value, "fuzziness": 1, "transpositions": false}}}),
        );
        let want = expect(&docs, |d| strsim_lev(d.tag, value) <= 1);
        assert_eq!(got, want, "fuzzy tag {value} without transpositions");
        // prefix_length: the first characters must match exactly.
        let got = ids(
            &catalog,
            json!({"fuzzy": {"tag": {"value": value, "fuzziness": 2, "prefix_length": 2}}}),
        );
        let want = expect(&docs, |d| {
            d.tag.get(..2) == value.get(..2) && osa(d.tag, value) <= 2
        });
        assert_eq!(got, want, "fuzzy tag {value} prefix_length 2");
    }
    // On a text field, any token within the distance.
    for value in ["kimchy", "quick", "dog"] {
        let got = ids(&catalog, json!({"fuzzy": {"body": value}}));
        let want = expect(&docs, |d| {
            d.words.iter().any(|w| osa(w, value) <= auto(value))
        });
        assert_eq!(got, want, "fuzzy body {value}");
    }
}

fn strsim_lev(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[test]
fn phrase_and_bool_prefix_match_brute_force() {
    let (_tmp, catalog, docs) = setup(11, 300);
    for text in [
        "quick bro",
        "lazy d",
        "se",
        "fox ju",
        "jumps over la",
        "Kim",
    ] {
        let terms: Vec<String> = text.split(' ').map(str::to_lowercase).collect();
        let (last, head) = terms.split_last().unwrap();
        let got = ids(&catalog, json!({"match_phrase_prefix": {"body": text}}));
        let want = expect(&docs, |d| {
            d.words.windows(terms.len()).any(|w| {
                w[..head.len()].iter().zip(head).all(|(a, b)| a == b)
                    && w[head.len()].starts_with(last.as_str())
            })
        });
        assert_eq!(got, want, "match_phrase_prefix {text}");
        let got = ids(&catalog, json!({"match_bool_prefix": {"body": text}}));
        let want = expect(&docs, |d| {
            d.words
                .iter()
                .any(|w| head.iter().any(|h| h == w) || w.starts_with(last.as_str()))
        });
        assert_eq!(got, want, "match_bool_prefix {text}");
        let got = ids(
            &catalog,
            json!({"match_bool_prefix": {"body": {"query": text, "operator": "and"}}}),
        );
        let want = expect(&docs, |d| {
            head.iter().all(|h| d.words.contains(&h.as_str()))
                && d.words.iter().any(|w| w.starts_with(last.as_str()))
        });
        assert_eq!(got, want, "match_bool_prefix and {text}");
    }
    // On a keyword field the whole value is the prefix.
    let got = ids(&catalog, json!({"match_phrase_prefix": {"tag": "alp"}}));
    assert_eq!(got, expect(&docs, |d| d.tag.starts_with("alp")));
    // max_expansions bounds the terms the last one expands to: "se"
    // expands to "search", "searching" and "sea"; with 1 only one of them.
    let one = ids(
        &catalog,
        json!({"match_phrase_prefix": {"body": {"query": "se", "max_expansions": 1}}}),
    );
    let all = ids(&catalog, json!({"match_phrase_prefix": {"body": "se"}}));
    assert!(
        one.is_subset(&all) && one.len() < all.len(),
        "{} {}",
        one.len(),
        all.len()
    );
    // zero_terms_query: all.
    let got = ids(
        &catalog,
        json!({"match_phrase_prefix": {"body": {"query": "", "zero_terms_query": "all"}}}),
    );
    assert_eq!(got.len(), docs.len());
}

#[test]
fn dis_max_scores_best_clause_plus_tie_breaker() {
    let (_tmp, catalog, docs) = setup(13, 200);
    let a = json!({"match": {"body": "fox"}});
    let b = json!({"term": {"tag": "beta"}});
    let sa: std::collections::HashMap<_, _> = scores(&catalog, a.clone()).into_iter().collect();
    let sb: std::collections::HashMap<_, _> = scores(&catalog, b.clone()).into_iter().collect();
    for tie in [0.0, 0.3, 1.0] {
        let got = scores(
            &catalog,
            json!({"dis_max": {"queries": [a, b], "tie_breaker": tie}}),
        );
        let want = expect(&docs, |d| d.words.contains(&"fox") || d.tag == "beta");
        assert_eq!(got.iter().map(|g| g.0).collect::<BTreeSet<_>>(), want);
        for (id, score) in got {
            let (x, y) = (
                sa.get(&id).copied().unwrap_or(0.0),
                sb.get(&id).copied().unwrap_or(0.0),
            );
            let expected = x.max(y) + tie * x.min(y);
            assert!(
                (score - expected).abs() < 1e-4,
                "doc {id}: {score} vs {expected}"
            );
        }
    }
}

fn haversine(a: (f64, f64), b: (f64, f64)) -> f64 {
    let r = 6_371_008.771_4_f64;
    let (p1, p2) = (a.0.to_radians(), b.0.to_radians());
    let dp = p2 - p1;
    let dl = (b.1 - a.1).to_radians();
    let h = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * r * h.sqrt().asin()
}

#[test]
fn geo_distance_matches_brute_force() {
    let (_tmp, catalog, docs) = setup(17, 400);
    let centre = (50.0, 0.0);
    for (distance, metres) in [
        ("100km", 100_000.0),
        ("500000m", 500_000.0),
        ("300mi", 482_803.2),
    ] {
        for form in [
            json!({"lat": centre.0, "lon": centre.1}),
            json!(format!("{},{}", centre.0, centre.1)),
            json!([centre.1, centre.0]),
        ] {
            let got = ids(
                &catalog,
                json!({"geo_distance": {"distance": distance, "place": form}}),
            );
            // Points within a metre of the edge could go either way.
            let want = expect(&docs, |d| haversine(centre, d.point) <= metres);
            let edge = expect(&docs, |d| (haversine(centre, d.point) - metres).abs() < 1.0);
            let diff: BTreeSet<_> = got.symmetric_difference(&want).copied().collect();
            assert!(diff.is_subset(&edge), "geo_distance {distance}: {diff:?}");
            assert!(!want.is_empty());
        }
    }
    let plane = ids(
        &catalog,
        json!({"geo_distance": {"distance": "200km", "distance_type": "plane", "place": "50,0"}}),
    );
    let arc = ids(
        &catalog,
        json!({"geo_distance": {"distance": "200km", "place": "50,0"}}),
    );
    assert!(plane.symmetric_difference(&arc).count() <= 2);
}

fn error(catalog: &Catalog, query: Value) -> SearchError {
    common::try_search(catalog, &json!({"query": query})).unwrap_err()
}

#[test]
fn bad_input_is_refused() {
    let (_tmp, catalog, _docs) = setup(19, 10);
    for (query, status) in [
        (
            json!({"fuzzy": {"tag": {"value": "a", "fuzziness": 3}}}),
            400,
        ),
        (
            json!({"fuzzy": {"tag": {"value": "a", "fuzziness": "AUTO:x"}}}),
            400,
        ),
        (json!({"fuzzy": {"tag": {"value": "a", "bogus": 1}}}), 400),
        (json!({"fuzzy": {"tag": {"fuzziness": 1}}}), 400),
        (json!({"dis_max": {}}), 400),
        (json!({"dis_max": {"queries": []}}), 400),
        (json!({"dis_max": {"queries": [{"nope": {}}]}}), 400),
        (json!({"dis_max": {"queries": [], "tie_breaker": "x"}}), 400),
        (
            json!({"match_phrase_prefix": {"body": {"query": "a", "bad": 1}}}),
            400,
        ),
        (
            json!({"match_bool_prefix": {"body": {"query": "a", "operator": "xor"}}}),
            400,
        ),
        (json!({"geo_distance": {"place": "50,0"}}), 400),
        (
            json!({"geo_distance": {"distance": "12parsecs", "place": "50,0"}}),
            400,
        ),
        (
            json!({"geo_distance": {"distance": "12km", "place": "95,0"}}),
            400,
        ),
        (
            json!({"geo_distance": {"distance": "12km", "tag": "50,0"}}),
            400,
        ),
        (
            json!({"geo_distance": {"distance": "12km", "nowhere": "50,0"}}),
            400,
        ),
    ] {
        let e = error(&catalog, query.clone());
        assert_eq!(e.status(), status, "{query}: {e}");
    }
    // ignore_unmapped: no error, no match.
    let got = ids(
        &catalog,
        json!({"geo_distance": {"distance": "12km", "nowhere": "50,0", "ignore_unmapped": true}}),
    );
    assert!(got.is_empty());
}
