//! A field's highlighted fragments: its values read from the source,
//! analyzed as at indexing, matching tokens tagged, and windows of about
//! `fragment_size` characters around them ranked and cut at spaces.

use std::collections::HashSet;

use serde_json::{json, Value};
use tantivy::tokenizer::TokenizerManager;

use super::options::Options;
use super::terms::{analyze, matches, QueryTerm};

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
pub(super) fn field_fragments(
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
