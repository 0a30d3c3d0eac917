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
//!
//! Layout: `options` (the request's keys), `terms` (what the query
//! highlights), `fragments` (a field's tagged fragments).

mod fragments;
mod options;
mod terms;

use serde_json::{Map, Value};
use tantivy::tokenizer::TokenizerManager;

use crate::error::{Result, SearchError};
use crate::mapping::{FieldType, Mappings};
use crate::query::ParsedQuery;

use fragments::field_fragments;
use options::Options;
use terms::{collect_terms, QueryTerm};

/// What a search's query highlights, per field of its `highlight`
/// ([`Highlight::terms`]).
#[derive(Debug, Clone)]
pub(crate) struct HighlightTerms(Vec<Vec<QueryTerm>>);

/// A parsed `highlight`.
#[derive(Debug, Clone)]
pub(crate) struct Highlight {
    /// (pattern, options), in request order.
    fields: Vec<(String, Options)>,
}

impl Highlight {
    /// Parses the `highlight` object of a search.
    pub(crate) fn parse(value: &Value) -> Result<Highlight> {
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

    /// Refuses a field's unknown highlighter `type` when a field of
    /// `mappings` is highlighted with it, as Elasticsearch's fetch phase
    /// does on each shard with hits ("unknown highlighter type [t] for
    /// the field [f]", `f` as requested): an explicit name that is mapped,
    /// or a pattern matching a `text` or `keyword` field.
    pub(crate) fn check(&self, mappings: &Mappings) -> Result<()> {
        for (pattern, opts) in &self.fields {
            let Some(ty) = &opts.unknown_type else {
                continue;
            };
            let wildcard = pattern.contains('*');
            let highlighted = mappings.leaf_paths().any(|(path, leaf)| {
                crate::catalog::wildcard_match(pattern, path)
                    && (!wildcard || matches!(leaf.ty, FieldType::Text | FieldType::Keyword))
            });
            if highlighted {
                return Err(SearchError::illegal(format!(
                    "unknown highlighter type [{ty}] for the field [{pattern}]"
                )));
            }
        }
        Ok(())
    }

    /// The terms each field highlights, collected once per search from
    /// its query (or its `highlight_query`); `None` when no hit can show a
    /// fragment: no field's query has a term to highlight and none shows
    /// `no_match_size` characters without one. Kibana's Discover asks for
    /// every field's highlights with a query of `*` and a time range,
    /// which highlight nothing: its hits' sources are then not parsed and
    /// walked for them.
    pub(crate) fn terms(
        &self,
        query: &ParsedQuery,
        tokenizers: &TokenizerManager,
    ) -> Option<HighlightTerms> {
        let mut per_field: Vec<Vec<QueryTerm>> = Vec::with_capacity(self.fields.len());
        for (i, (_, opts)) in self.fields.iter().enumerate() {
            // Fields sharing a query share its terms.
            let same = self.fields[..i]
                .iter()
                .position(|(_, earlier)| earlier.query.as_ref() == opts.query.as_ref());
            let terms = match same {
                Some(at) => per_field[at].clone(),
                None => {
                    let mut t = Vec::new();
                    let q = opts.query.as_ref().unwrap_or(query);
                    collect_terms(q.json(), tokenizers, &mut t, 0);
                    t
                }
            };
            per_field.push(terms);
        }
        let shows = self
            .fields
            .iter()
            .zip(&per_field)
            .any(|((_, opts), terms)| opts.no_match_size > 0 || !terms.is_empty());
        shows.then_some(HighlightTerms(per_field))
    }

    /// The `highlight` of one hit (`None` when nothing to show), with the
    /// search's `terms`.
    pub(crate) fn hit(
        &self,
        terms: &HighlightTerms,
        source: &Value,
        mappings: &Mappings,
        tokenizers: &TokenizerManager,
    ) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        for ((pattern, opts), terms) in self.fields.iter().zip(&terms.0) {
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
