//! `[/<index>]/_analyze`: the tokens an analyzer makes of a text, with
//! their offsets (in UTF-16 units, as Elasticsearch counts them) and
//! positions. It runs the analyzers this server indexes with: `standard`
//! is Elasticsearch's (Unicode word boundaries, lowercased); a `text`
//! field, and `default` with an index in the path, give what that index's
//! text fields index with (`standard` for indices created since it, the
//! alphanumeric runs of the engine's first analyzer for older ones);
//! `keyword` keeps the text whole, `whitespace` splits on spaces, `simple`
//! splits on non-letters and lowercases; other analyzers are refused.

use serde_json::{json, Value};
use strata_search::FieldType;

use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `[/<index>]/_analyze`.
pub fn analyze(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let body = req.required_json_body()?;
    let texts: Vec<String> = match body.get("text") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => return Err(EsError::ActionValidation("text is missing".into())),
    };
    for key in body.as_object().into_iter().flatten().map(|(k, _)| k) {
        if !matches!(
            key.as_str(),
            "text" | "analyzer" | "field" | "tokenizer" | "explain"
        ) {
            return Err(EsError::IllegalArgument(format!(
                "[{key}] is not supported by this server's _analyze"
            )));
        }
    }
    let mut analyzer = body
        .get("analyzer")
        .or_else(|| body.get("tokenizer"))
        .and_then(Value::as_str)
        .unwrap_or("standard")
        .to_string();
    let field = body.get("field").and_then(Value::as_str);
    // The index in the path, where its own split decides the tokens.
    let index = match expression {
        Some(name) if field.is_some() || analyzer == "default" => Some(
            node.catalog
                .resolve(name)?
                .into_iter()
                .next()
                .ok_or_else(|| {
                    EsError::from(strata_search::SearchError::IndexNotFound(name.to_string()))
                })?,
        ),
        _ => None,
    };
    if let Some(field) = field {
        let index = index.as_ref().ok_or_else(|| {
            EsError::IllegalArgument("analysis by [field] needs an index in the path".into())
        })?;
        analyzer = match index.mappings().leaf(field).map(|l| l.ty) {
            Some(FieldType::Text) | None => "default".into(),
            Some(_) => "keyword".into(),
        };
    }
    let mut tokens = Vec::new();
    let mut position = 0u64;
    for text in &texts {
        let spans: Vec<(usize, usize, String)> = match analyzer.as_str() {
            "standard" => strata_search::analyze_text(None, text),
            "default" => strata_search::analyze_text(index.as_deref(), text),
            "simple" => split(text, char::is_alphabetic, true),
            "whitespace" => split(text, |c| !c.is_whitespace(), false),
            "keyword" => vec![(0, text.len(), text.clone())],
            other => {
                return Err(EsError::IllegalArgument(format!(
                    "failed to find global analyzer [{other}]"
                )))
            }
        };
        for (start, end, token) in spans {
            tokens.push(json!({
                "token": token,
                "start_offset": text[..start].encode_utf16().count(),
                "end_offset": text[..end].encode_utf16().count(),
                "type": if analyzer == "keyword" { "word" } else { "<ALPHANUM>" },
                "position": position,
            }));
            position += 1;
        }
        // Elasticsearch's position increment gap between values.
        position += 100;
    }
    Ok(Reply::ok(json!({ "tokens": tokens })))
}

/// Runs of characters `keep` accepts, as byte spans and tokens.
fn split(text: &str, keep: impl Fn(char) -> bool, lower: bool) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let inside = i < text.len() && keep(c);
        match (inside, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                let word = &text[s..i];
                out.push((
                    s,
                    i,
                    if lower {
                        word.to_lowercase()
                    } else {
                        word.to_string()
                    },
                ));
                start = None;
            }
            _ => {}
        }
    }
    out
}
