//! The terms a query highlights: walked out of the query tree (never
//! from `must_not`), each exact, a prefix or fuzzy within its edits, and
//! the match of a field's token against one.

use serde_json::{json, Value};
use tantivy::tokenizer::TokenizerManager;

/// A term a field's token may match.
#[derive(Debug, Clone)]
pub(super) struct QueryTerm {
    /// `None`: any field (`query_string` without fields).
    pub(super) field: Option<String>,
    pub(super) text: String,
    pub(super) kind: TermKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum TermKind {
    Exact,
    Prefix,
    Fuzzy(usize),
}

pub(super) fn analyze(tokenizers: &TokenizerManager, text: &str) -> Vec<(usize, usize, String)> {
    let Some(mut analyzer) = tokenizers.get("default") else {
        return Vec::new();
    };
    crate::analysis::spans(&mut analyzer, text)
}

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) => Some(v.to_string()),
        Value::Object(o) => o.get("query").or_else(|| o.get("value")).and_then(text_of),
        _ => None,
    }
}

/// Terms of a field query `{field: text or {query|value: text}}`.
fn field_terms(
    body: &Value,
    tokenizers: &TokenizerManager,
    out: &mut Vec<QueryTerm>,
    kind: TermKind,
    last_prefix: bool,
) {
    let Some(obj) = body.as_object() else { return };
    for (field, v) in obj {
        if field == "boost" || field == "_name" {
            continue;
        }
        let Some(text) = text_of(v) else { continue };
        let mut words: Vec<String> = analyze(tokenizers, &text)
            .into_iter()
            .map(|t| t.2)
            .collect();
        if kind != TermKind::Exact && words.len() <= 1 {
            // Term-level: the value as given (keyword) and analyzed (text).
            words.push(text.clone());
        }
        let n = words.len();
        for (i, w) in words.into_iter().enumerate() {
            let k = if last_prefix && i + 1 == n {
                TermKind::Prefix
            } else {
                kind
            };
            out.push(QueryTerm {
                field: Some(field.clone()),
                text: w,
                kind: k,
            });
        }
        // A keyword field holds the whole value.
        out.push(QueryTerm {
            field: Some(field.clone()),
            text,
            kind,
        });
    }
}

/// Walks the query tree (bounded by the query depth limit), skipping `must_not`.
pub(super) fn collect_terms(
    q: &Value,
    tokenizers: &TokenizerManager,
    out: &mut Vec<QueryTerm>,
    depth: usize,
) {
    if depth > crate::query::MAX_NESTED_DEPTH {
        return;
    }
    let Some((kind, body)) = q.as_object().and_then(|o| o.iter().next()) else {
        return;
    };
    let nested = |v: Option<&Value>, out: &mut Vec<QueryTerm>| match v {
        Some(Value::Array(items)) => items
            .iter()
            .for_each(|i| collect_terms(i, tokenizers, out, depth + 1)),
        Some(v @ Value::Object(_)) => collect_terms(v, tokenizers, out, depth + 1),
        _ => {}
    };
    match kind.as_str() {
        "bool" => {
            for k in ["must", "should", "filter"] {
                nested(body.get(k), out);
            }
        }
        "constant_score" => nested(body.get("filter"), out),
        "dis_max" => nested(body.get("queries"), out),
        "function_score" | "script_score" => nested(body.get("query"), out),
        "match" | "match_phrase" | "term" => {
            field_terms(body, tokenizers, out, TermKind::Exact, false)
        }
        "match_phrase_prefix" | "match_bool_prefix" => {
            field_terms(body, tokenizers, out, TermKind::Exact, true)
        }
        "prefix" => field_terms(body, tokenizers, out, TermKind::Prefix, false),
        "fuzzy" => {
            let edits = body
                .as_object()
                .and_then(|o| o.values().next())
                .and_then(|v| v.get("fuzziness"))
                .and_then(|f| f.as_u64().or_else(|| f.as_str()?.parse().ok()))
                .unwrap_or(2) as usize;
            field_terms(body, tokenizers, out, TermKind::Fuzzy(edits.min(2)), false)
        }
        "terms" => {
            if let Some(obj) = body.as_object() {
                for (field, values) in obj {
                    for v in values.as_array().into_iter().flatten() {
                        if let Some(text) = text_of(v) {
                            field_terms(
                                &json!({ field: text }),
                                tokenizers,
                                out,
                                TermKind::Exact,
                                false,
                            );
                        }
                    }
                }
            }
        }
        "multi_match" | "query_string" | "simple_query_string" => {
            let text = body.get("query").and_then(text_of).unwrap_or_default();
            let fields: Vec<Option<String>> = match body.get("fields").and_then(Value::as_array) {
                Some(f) => f
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|f| Some(f.split('^').next().unwrap_or(f).to_string()))
                    .collect(),
                None => vec![body
                    .get("default_field")
                    .and_then(Value::as_str)
                    .map(str::to_string)],
            };
            for (_, _, w) in analyze(tokenizers, &text) {
                // `field:value` in the syntax: the value, on that field.
                let (field, word) = match w.split_once(':') {
                    Some((f, v)) if kind != "multi_match" => (Some(f.to_string()), v.to_string()),
                    _ => (None, w.clone()),
                };
                let prefix = word.ends_with('*');
                let word = word.trim_end_matches('*').to_string();
                let k = if prefix {
                    TermKind::Prefix
                } else {
                    TermKind::Exact
                };
                for f in &fields {
                    let f = field
                        .clone()
                        .or_else(|| f.clone().filter(|f| !f.contains('*')));
                    out.push(QueryTerm {
                        field: f,
                        text: word.clone(),
                        kind: k,
                    });
                }
            }
        }
        _ => {}
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
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

pub(super) fn matches(term: &QueryTerm, token: &str) -> bool {
    match term.kind {
        TermKind::Exact => term.text == token,
        TermKind::Prefix => token.starts_with(&term.text),
        TermKind::Fuzzy(n) => edit_distance(&term.text, token) <= n,
    }
}
