//! `highlight`: per hit, the fragments of `text` and `keyword` fields
//! where the query's terms occur, wrapped in `pre_tags`/`post_tags`, as
//! Elasticsearch's plain and unified highlighters show them (both types,
//! and `fvh`, give this one behaviour).
//!
//! The terms come from the query (or `highlight_query`): the analyzed text
//! of `match`, `match_phrase`, `multi_match`, `query_string` and kin, the
//! values of `term`/`terms`, prefixes of `prefix` and the `*_prefix`
//! queries' last term, `fuzzy` values within their edits; never from
//! `must_not`. With `require_field_match` (the default) a field shows only
//! the terms queried on it. The field's text is analyzed as at indexing and
//! every matching token is tagged; fragments of about `fragment_size`
//! characters around matches (cut at spaces) are ranked by the distinct
//! terms they hold and the best `number_of_fragments` returned in text
//! order (by score with `order: score`); 0 fragments returns the whole
//! value. `no_match_size` returns the start of a field without matches.

use std::collections::HashSet;

use serde_json::{json, Map, Value};
use tantivy::tokenizer::TokenizerManager;

use crate::error::{Result, SearchError};
use crate::mapping::{FieldType, Mappings};

/// Options of one field (the top level's, overridden per field).
#[derive(Debug, Clone)]
struct Options {
    pre: Vec<String>,
    post: Vec<String>,
    fragment_size: usize,
    fragments: usize,
    no_match_size: usize,
    require_field_match: bool,
    by_score: bool,
    html: bool,
    query: Option<Value>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            pre: vec!["<em>".into()],
            post: vec!["</em>".into()],
            fragment_size: 100,
            fragments: 5,
            no_match_size: 0,
            require_field_match: true,
            by_score: false,
            html: false,
            query: None,
        }
    }
}

/// Keys accepted at the top level and per field.
const KEYS: &[&str] = &[
    "pre_tags",
    "post_tags",
    "fragment_size",
    "number_of_fragments",
    "no_match_size",
    "require_field_match",
    "order",
    "encoder",
    "type",
    "highlight_query",
    "fragmenter",
    "boundary_scanner",
    "boundary_chars",
    "boundary_max_scan",
    "phrase_limit",
    "tags_schema",
    "max_analyzed_offset",
    "fragment_offset",
    "matched_fields",
    "force_source",
];

impl Options {
    fn apply(&mut self, obj: &Map<String, Value>) -> Result<()> {
        let count = |k: &str, v: &Value| {
            v.as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    SearchError::parsing(format!(
                        "[highlight] [{k}] must be a non-negative integer, got [{v}]"
                    ))
                })
        };
        let tags = |k: &str, v: &Value| -> Result<Vec<String>> {
            let items = match v {
                Value::Array(a) => a.clone(),
                Value::String(_) => vec![v.clone()],
                _ => {
                    return Err(SearchError::parsing(format!(
                        "[highlight] [{k}] must be an array of strings"
                    )))
                }
            };
            items
                .iter()
                .map(|t| t.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .filter(|t| !t.is_empty())
                .ok_or_else(|| {
                    SearchError::parsing(format!("[highlight] [{k}] must be an array of strings"))
                })
        };
        for (k, v) in obj {
            match k.as_str() {
                "pre_tags" => self.pre = tags(k, v)?,
                "post_tags" => self.post = tags(k, v)?,
                "fragment_size" => self.fragment_size = count(k, v)?.max(1),
                "number_of_fragments" => self.fragments = count(k, v)?,
                "no_match_size" => self.no_match_size = count(k, v)?,
                "require_field_match" => {
                    self.require_field_match = v.as_bool().ok_or_else(|| {
                        SearchError::parsing("[highlight] [require_field_match] must be a boolean")
                    })?
                }
                "order" => self.by_score = v.as_str() == Some("score"),
                "encoder" => self.html = v.as_str() == Some("html"),
                "highlight_query" => self.query = Some(v.clone()),
                "tags_schema" => {
                    if v.as_str() == Some("styled") {
                        self.pre = (1..=10).map(|i| format!("<em class=\"hlt{i}\">")).collect();
                        self.post = vec!["</em>".into()];
                    }
                }
                "type" => match v.as_str() {
                    Some("plain" | "unified" | "fvh") => {}
                    _ => {
                        return Err(SearchError::illegal(format!(
                            "unknown highlighter type [{v}]"
                        )))
                    }
                },
                // Tuning of Lucene's fragmenters with no effect on which
                // terms are tagged.
                k if KEYS.contains(&k) => {}
                other => {
                    return Err(SearchError::parsing(format!(
                        "[highlight] unknown field [{other}]"
                    )))
                }
            }
        }
        Ok(())
    }
}

/// A parsed `highlight`.
#[derive(Debug, Clone)]
pub struct Highlight {
    /// (pattern, options), in request order.
    fields: Vec<(String, Options)>,
}

impl Highlight {
    /// Parses the `highlight` object of a search.
    pub fn parse(value: &Value) -> Result<Highlight> {
        let obj = value
            .as_object()
            .ok_or_else(|| SearchError::parsing("[highlight] must be an object"))?;
        let mut top = Options::default();
        let mut rest = obj.clone();
        let fields = rest.remove("fields");
        top.apply(&rest)?;
        let entries: Vec<(String, Value)> = match fields {
            None => Vec::new(),
            Some(Value::Object(m)) => m.into_iter().collect(),
            Some(Value::Array(items)) => items
                .into_iter()
                .map(|item| match item {
                    Value::Object(m) if m.len() == 1 => {
                        Ok(m.into_iter().next().unwrap_or_default())
                    }
                    _ => Err(SearchError::parsing(
                        "[highlight] [fields] array items must be objects with one field each",
                    )),
                })
                .collect::<Result<_>>()?,
            Some(other) => {
                return Err(SearchError::parsing(format!(
                    "[highlight] [fields] must be an object or an array, got [{other}]"
                )))
            }
        };
        let mut out = Vec::with_capacity(entries.len());
        for (pattern, opts) in entries {
            let mut o = top.clone();
            match opts {
                Value::Object(m) => o.apply(&m)?,
                Value::Null => {}
                other => {
                    return Err(SearchError::parsing(format!(
                        "[highlight] options of [{pattern}] must be an object, got [{other}]"
                    )))
                }
            }
            out.push((pattern, o));
        }
        Ok(Highlight { fields: out })
    }

    /// The `highlight` of one hit (`None` when nothing to show).
    pub fn hit(
        &self,
        query: &Value,
        source: &Value,
        mappings: &Mappings,
        tokenizers: &TokenizerManager,
    ) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        let mut terms_cache: Option<(Option<Value>, Vec<QueryTerm>)> = None;
        for (pattern, opts) in &self.fields {
            let q = opts.query.as_ref().unwrap_or(query);
            let terms = match &terms_cache {
                Some((key, terms)) if key.as_ref() == opts.query.as_ref() => terms,
                _ => {
                    let mut t = Vec::new();
                    collect_terms(q, tokenizers, &mut t, 0);
                    &terms_cache.insert((opts.query.clone(), t)).1
                }
            };
            for (path, leaf) in mappings.leaf_paths() {
                let text = matches!(leaf.ty, FieldType::Text);
                if !(text || leaf.ty == FieldType::Keyword) {
                    continue;
                }
                if !crate::catalog::wildcard_match(pattern, path) || out.contains_key(path) {
                    continue;
                }
                let fragments = field_fragments(path, text, source, terms, opts, tokenizers);
                if !fragments.is_empty() {
                    out.insert(path.clone(), Value::Array(fragments));
                }
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

/// A term a field's token may match.
#[derive(Debug, Clone)]
struct QueryTerm {
    /// `None`: any field (`query_string` without fields).
    field: Option<String>,
    text: String,
    kind: TermKind,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum TermKind {
    Exact,
    Prefix,
    Fuzzy(usize),
}

fn analyze(tokenizers: &TokenizerManager, text: &str) -> Vec<(usize, usize, String)> {
    let Some(mut analyzer) = tokenizers.get("default") else {
        return Vec::new();
    };
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        let t = stream.token();
        out.push((t.offset_from, t.offset_to, t.text.clone()));
    }
    out
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
fn collect_terms(q: &Value, tokenizers: &TokenizerManager, out: &mut Vec<QueryTerm>, depth: usize) {
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

fn matches(term: &QueryTerm, token: &str) -> bool {
    match term.kind {
        TermKind::Exact => term.text == token,
        TermKind::Prefix => token.starts_with(&term.text),
        TermKind::Fuzzy(n) => edit_distance(&term.text, token) <= n,
    }
}

/// The values of `path` in `source` (dotted keys or nested objects; a
/// multi-field reads its parent's value).
fn source_values(source: &Value, path: &str) -> Vec<String> {
    fn walk(v: &Value, parts: &[&str], out: &mut Vec<String>) {
        match (parts.split_first(), v) {
            (_, Value::Array(items)) => items.iter().for_each(|i| walk(i, parts, out)),
            (None, Value::String(s)) => out.push(s.clone()),
            (None, Value::Number(_) | Value::Bool(_)) => out.push(v.to_string()),
            (Some(_), Value::Object(o)) => {
                for i in (1..=parts.len()).rev() {
                    if let Some(child) = o.get(&parts[..i].join(".")) {
                        walk(child, &parts[i..], out);
                        return;
                    }
                }
            }
            _ => {}
        }
    }
    let parts: Vec<&str> = path.split('.').collect();
    let mut out = Vec::new();
    walk(source, &parts, &mut out);
    if out.is_empty() && parts.len() > 1 {
        walk(source, &parts[..parts.len() - 1], &mut out);
    }
    out
}

fn escape(s: &str, html: bool) -> String {
    if !html {
        return s.to_string();
    }
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#x27;")
}

/// The highlighted fragments of field `path`.
fn field_fragments(
    path: &str,
    text_field: bool,
    source: &Value,
    terms: &[QueryTerm],
    opts: &Options,
    tokenizers: &TokenizerManager,
) -> Vec<Value> {
    let relevant: Vec<&QueryTerm> = terms
        .iter()
        .filter(|t| {
            !opts.require_field_match
                || t.field
                    .as_deref()
                    .is_none_or(|f| f == path || crate::catalog::wildcard_match(f, path))
        })
        .collect();
    let values = source_values(source, path);
    // (score, value index, start, text)
    let mut found: Vec<(usize, usize, usize, String)> = Vec::new();
    for (vi, value) in values.iter().enumerate() {
        let spans: Vec<(usize, usize, String)> = if text_field {
            analyze(tokenizers, value)
                .into_iter()
                .filter(|(_, _, tok)| relevant.iter().any(|t| matches(t, tok)))
                .collect()
        } else if relevant.iter().any(|t| matches(t, value)) {
            vec![(0, value.len(), value.clone())]
        } else {
            Vec::new()
        };
        if spans.is_empty() {
            continue;
        }
        let windows: Vec<(usize, usize)> = if opts.fragments == 0 {
            vec![(0, value.len())]
        } else {
            fragments(value, &spans, opts.fragment_size)
        };
        for (start, end) in windows {
            let inside: Vec<&(usize, usize, String)> = spans
                .iter()
                .filter(|s| s.0 >= start && s.1 <= end)
                .collect();
            let distinct: HashSet<&str> = inside.iter().map(|s| s.2.as_str()).collect();
            let mut out = String::new();
            let mut at = start;
            for (i, (s, e, _)) in inside.iter().enumerate() {
                out.push_str(&escape(&value[at..*s], opts.html));
                out.push_str(&opts.pre[i % opts.pre.len()]);
                out.push_str(&escape(&value[*s..*e], opts.html));
                out.push_str(&opts.post[(i % opts.pre.len()).min(opts.post.len() - 1)]);
                at = *e;
            }
            out.push_str(&escape(&value[at..end], opts.html));
            found.push((distinct.len(), vi, start, out));
        }
    }
    if found.is_empty() {
        if opts.no_match_size == 0 {
            return Vec::new();
        }
        return values
            .first()
            .map(|v| {
                let end = cut(v, opts.no_match_size.min(v.len()), true);
                vec![json!(escape(v[..end].trim_end(), opts.html))]
            })
            .unwrap_or_default();
    }
    if opts.fragments > 0 {
        found.sort_by(|a, b| b.0.cmp(&a.0).then((a.1, a.2).cmp(&(b.1, b.2))));
        found.truncate(opts.fragments);
        if !opts.by_score {
            found.sort_by_key(|f| (f.1, f.2));
        }
    }
    found.into_iter().map(|f| json!(f.3)).collect()
}

/// A char boundary at or before `at`, backed to a space when `at_space`
/// and one exists after the start.
fn cut(text: &str, mut at: usize, at_space: bool) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    if at_space && at < text.len() {
        if let Some(space) = text[..at].rfind(char::is_whitespace) {
            if space > 0 {
                return space;
            }
        }
    }
    at
}

/// Windows of about `size` bytes, each starting at a match not already
/// covered, widened to word edges.
fn fragments(text: &str, spans: &[(usize, usize, String)], size: usize) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (s, e, _) in spans {
        if out.last().is_some_and(|w| *e <= w.1) {
            continue;
        }
        // Start a little before the match, at a word start.
        let lead = size.saturating_sub(e - s) / 4;
        let mut start = cut(text, s.saturating_sub(lead), false);
        if start > 0 {
            start = text[..start]
                .char_indices()
                .rev()
                .find(|(_, c)| c.is_whitespace())
                .map_or(0, |(p, c)| p + c.len_utf8())
                .min(*s);
        }
        if let Some(last) = out.last() {
            start = start.max(last.1);
        }
        let mut end = cut(text, (start + size).min(text.len()), true).max(*e);
        if end < text.len() {
            // Never split a word.
            end = text[end..]
                .find(char::is_whitespace)
                .map_or(text.len(), |p| end + p)
                .min(text.len());
            end = end.min(cut(text, (start + size).max(*e), true).max(*e));
        }
        out.push((start, end));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_matches_and_respect_words() {
        let text = "the quick brown fox jumps over the lazy dog and the quick cat";
        let spans = vec![(4, 9, "quick".to_string()), (52, 57, "quick".to_string())];
        let w = fragments(text, &spans, 20);
        assert_eq!(w.len(), 2);
        for (s, e) in &w {
            assert!(*s == 0 || text.as_bytes()[s - 1] == b' ');
            assert!(*e == text.len() || text.as_bytes()[*e] == b' ');
        }
        assert!(w[0].0 <= 4 && w[0].1 >= 9);
        assert!(w[1].0 <= 52 && w[1].1 >= 57);
        // Wide spaces and accents: every window on char boundaries.
        let text = "ééé\u{3000}quick\u{3000}ééé-ééé\u{3000}quick ééééééééé";
        let spans: Vec<_> = text
            .match_indices("quick")
            .map(|(i, m)| (i, i + m.len(), m.to_string()))
            .collect();
        for size in 1..40 {
            for (s, e) in fragments(text, &spans, size) {
                assert!(s <= e && text.is_char_boundary(s) && text.is_char_boundary(e));
            }
        }
    }
}
