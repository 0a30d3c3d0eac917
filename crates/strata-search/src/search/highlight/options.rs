//! A `highlight` request's options: the top level's, overridden per
//! field, with the keys Elasticsearch accepts (the fragmenter tuning
//! among them is accepted and has no effect on which terms are tagged).

use serde_json::{Map, Value};

use crate::error::{Result, SearchError};
use crate::query::ParsedQuery;

/// Options of one field (the top level's, overridden per field).
#[derive(Debug, Clone)]
pub(super) struct Options {
    pub(super) pre: Vec<String>,
    pub(super) post: Vec<String>,
    pub(super) fragment_size: usize,
    pub(super) fragments: usize,
    pub(super) no_match_size: usize,
    pub(super) require_field_match: bool,
    pub(super) by_score: bool,
    pub(super) html: bool,
    /// `highlight_query`, parsed with the request.
    pub(super) query: Option<ParsedQuery>,
    /// A `type` that names no highlighter: Elasticsearch looks the type
    /// up in the fetch phase, on each shard with hits to fetch.
    pub(super) unknown_type: Option<String>,
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
            unknown_type: None,
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
    pub(super) fn apply(&mut self, obj: &Map<String, Value>) -> Result<()> {
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
                "highlight_query" => self.query = Some(ParsedQuery::parse(v.clone())?),
                "tags_schema" => {
                    if v.as_str() == Some("styled") {
                        self.pre = (1..=10).map(|i| format!("<em class=\"hlt{i}\">")).collect();
                        self.post = vec!["</em>".into()];
                    }
                }
                "type" => match v {
                    Value::String(name) => {
                        let known = matches!(name.as_str(), "plain" | "unified" | "fvh");
                        self.unknown_type = (!known).then(|| name.clone());
                    }
                    _ => {
                        return Err(SearchError::parsing(format!(
                            "[highlight] [type] must be a string, got [{v}]"
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
