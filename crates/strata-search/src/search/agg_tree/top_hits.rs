//! [`TopHitsParams`]: a `top_hits` aggregation's parameters, typed when
//! the request is parsed: `from`, `size` (default 3; `from + size` at
//! most 100, Elasticsearch's `index.max_inner_result_window`), `sort`,
//! `_source`, `version`, `seq_no_primary_term`, `track_scores` and
//! `docvalue_fields`, each parsed as a search request's own key is (same
//! words for a bad value). Any other key is refused in the words the
//! search's body parser uses. What needs the mapping (the sort fields'
//! types, the `docvalue_fields` patterns) is the per-bucket search's
//! (`search::top_hits`), which runs them as any search runs its own.

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::search::body_values::{as_bool, as_usize};
use crate::search::docvalues::{self, DocvalueField};
use crate::search::sort::SortField;
use crate::search::source_filter::SourceFilter;

/// The keys a `top_hits` takes.
const ALLOWED: &[&str] = &[
    "size",
    "from",
    "sort",
    "_source",
    "version",
    "seq_no_primary_term",
    "track_scores",
    "docvalue_fields",
];

/// Elasticsearch's default `size`.
const DEFAULT_SIZE: usize = 3;

/// The largest `from + size` (Elasticsearch's default
/// `index.max_inner_result_window`).
const MAX_WINDOW: usize = 100;

/// The parameters of one `top_hits` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct TopHitsParams {
    /// Hits to skip.
    pub from: usize,
    /// Hits to return.
    pub size: usize,
    /// Sort order (empty: by score), fields as written.
    pub sort: Vec<SortField>,
    /// `_source` filtering.
    pub source: SourceFilter,
    /// Return `_version` in hits.
    pub version: bool,
    /// Return `_seq_no` and `_primary_term` in hits.
    pub seq_no_primary_term: bool,
    /// Compute scores even when sorting by fields.
    pub track_scores: bool,
    /// `docvalue_fields`, patterns as written.
    pub(crate) docvalue_fields: Vec<DocvalueField>,
}

impl TopHitsParams {
    /// The parameters `body` of the `top_hits` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<TopHitsParams> {
        let params = body.as_object().ok_or_else(|| {
            SearchError::parsing(format!("[top_hits] of [{name}] must be an object"))
        })?;
        if let Some((k, v)) = params.iter().find(|(k, _)| !ALLOWED.contains(&k.as_str())) {
            return Err(SearchError::parsing(format!(
                "Unknown key for a {} in [{k}].",
                if v.is_object() {
                    "START_OBJECT"
                } else {
                    "VALUE"
                }
            )));
        }
        let mut out = TopHitsParams {
            from: 0,
            size: DEFAULT_SIZE,
            sort: Vec::new(),
            source: SourceFilter::All,
            version: false,
            seq_no_primary_term: false,
            track_scores: false,
            docvalue_fields: Vec::new(),
        };
        // Each key as the search body's parser reads it (its words on a
        // bad value).
        for (k, v) in params {
            match k.as_str() {
                "from" => out.from = as_usize(k, v)?,
                "size" => out.size = as_usize(k, v)?,
                "sort" => out.sort = SortField::parse_list(v)?,
                "_source" => out.source = SourceFilter::parse(v)?,
                "version" => out.version = as_bool(k, v)?,
                "seq_no_primary_term" => out.seq_no_primary_term = as_bool(k, v)?,
                "track_scores" => out.track_scores = as_bool(k, v)?,
                "docvalue_fields" => out.docvalue_fields = docvalues::parse(v)?,
                // Every other key was refused above.
                _ => {}
            }
        }
        let window = out.from.saturating_add(out.size);
        if window > MAX_WINDOW {
            return Err(SearchError::illegal(format!(
                "Top hits result window is too large, the top hits aggregator [{name}]'s from + size must be less than or equal to: [{MAX_WINDOW}] but was [{window}]."
            )));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::TopHitsParams;
    use crate::error::Result;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;
    use crate::search::source_filter::SourceFilter;

    fn parsed(params: Value) -> Result<TopHitsParams> {
        match typed("h", "top_hits", params)? {
            TypedParams::TopHits(t) => Ok(t),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn defaults_and_every_key() {
        let plain = parsed(json!({})).unwrap();
        assert_eq!((plain.from, plain.size), (0, 3));
        assert!(plain.sort.is_empty() && plain.docvalue_fields.is_empty());
        assert_eq!(plain.source, SourceFilter::All);
        assert!(!plain.version && !plain.seq_no_primary_term && !plain.track_scores);
        let full = parsed(json!({
            "from": 90, "size": "10", "sort": [{"ts": "desc"}, "_score"],
            "_source": false, "version": true, "seq_no_primary_term": true,
            "track_scores": true, "docvalue_fields": ["n", {"field": "ts", "format": "epoch_millis"}]
        }))
        .unwrap();
        assert_eq!((full.from, full.size), (90, 10));
        assert_eq!(full.sort.len(), 2);
        assert_eq!(full.sort[0].field, "ts");
        assert!(full.sort[0].descending);
        assert_eq!(full.source, SourceFilter::None);
        assert!(full.version && full.seq_no_primary_term && full.track_scores);
        let fields: Vec<_> = full.docvalue_fields.iter().map(|d| &d.field).collect();
        assert_eq!(fields, ["n", "ts"]);
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let cases = [
            (
                json!(3),
                "[top_hits] of [h] must be an object",
                "parsing_exception",
            ),
            (
                json!({"highlight": {"fields": {"a": {}}}}),
                "Unknown key for a START_OBJECT in [highlight].",
                "parsing_exception",
            ),
            (
                json!({"query": 1}),
                "Unknown key for a VALUE in [query].",
                "parsing_exception",
            ),
            (
                json!({"size": -1}),
                "[size] must be a non-negative integer, got [-1]",
                "parsing_exception",
            ),
            (
                json!({"from": "x"}),
                "[from] must be a non-negative integer, got [\"x\"]",
                "parsing_exception",
            ),
            (
                json!({"version": "yes"}),
                "[version] must be a boolean, got [\"yes\"]",
                "parsing_exception",
            ),
            (
                json!({"from": 95, "size": 6}),
                "Top hits result window is too large, the top hits aggregator [h]'s from + size must be less than or equal to: [100] but was [101].",
                "illegal_argument_exception",
            ),
            (
                json!({"size": 101}),
                "Top hits result window is too large, the top hits aggregator [h]'s from + size must be less than or equal to: [100] but was [101].",
                "illegal_argument_exception",
            ),
        ];
        assert_refusals("h", "top_hits", &cases);
        for bad in [
            json!({"sort": 3}),
            json!({"_source": 3}),
            json!({"track_scores": 1}),
            json!({"seq_no_primary_term": null}),
            json!({"docvalue_fields": 3}),
        ] {
            assert!(parsed(bad.clone()).is_err(), "{bad}");
        }
    }
}
