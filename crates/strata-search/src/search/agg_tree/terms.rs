//! [`TermsParams`]: a `terms` aggregation's parameters, typed when the
//! request is parsed. tantivy computes `terms` (or Strata's `top_terms`
//! in its place, exactly as tantivy would), so the parameters are read as
//! tantivy reads them: its own request type, deserialized from the body,
//! its errors reported as they were when tantivy met them
//! (`[aggs] invalid type: ...`). Keys Elasticsearch knows and tantivy
//! does not (`execution_hint`, `collect_mode`, `shard_min_doc_count`,
//! `format`, `value_type`) are accepted and change nothing; unknown keys
//! were refused before (`keys.rs`).

use serde_json::Value;
use tantivy::aggregation::bucket::TermsAggregation;

use super::source::{checked_field, object_of};
use crate::error::{Result, SearchError};

/// The keys `top_terms` computes exactly as tantivy does.
const PLAIN_KEYS: &[&str] = &["field", "size", "shard_size", "min_doc_count", "order"];

/// The parameters of one `terms` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct TermsParams {
    /// tantivy's request over the field as the request names it.
    pub request: TermsAggregation,
    /// No key but [`PLAIN_KEYS`] was written, none of them `null`, and
    /// `order` (if any) as an object: what `top_terms` may take.
    pub plain: bool,
}

impl TermsParams {
    /// The parameters `body` of the `terms` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<TermsParams> {
        let obj = object_of("terms", name, body)?;
        checked_field(name, obj)?;
        let request = tantivy_params(body)?;
        let plain = obj
            .iter()
            .all(|(k, v)| PLAIN_KEYS.contains(&k.as_str()) && !v.is_null())
            && obj.get("order").is_none_or(Value::is_object);
        Ok(TermsParams { request, plain })
    }

    /// The field the buckets are keyed by.
    pub fn field(&self) -> &str {
        &self.request.field
    }

    /// tantivy's parameters, over the column `column` (the field's schema
    /// path).
    pub fn tantivy_request(&self, column: &str) -> Value {
        let request = TermsAggregation {
            field: column.to_string(),
            ..self.request.clone()
        };
        // A request of numbers, strings and maps of them serializes.
        serde_json::to_value(request).unwrap_or(Value::Null)
    }
}

/// `body` read as tantivy reads a bucket aggregation's parameters, with
/// the error its request's parse gave.
pub(super) fn tantivy_params<T: serde::de::DeserializeOwned>(body: &Value) -> Result<T> {
    serde_json::from_value(body.clone()).map_err(|e| SearchError::parsing(format!("[aggs] {e}")))
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::TermsParams;
    use crate::error::Result;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    fn parsed(params: Value) -> Result<TermsParams> {
        match typed("t", "terms", params)? {
            TypedParams::Terms(t) => Ok(t),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn parameters_are_read_as_tantivy_reads_them() {
        let t = parsed(
            json!({"field": "k", "size": 5, "shard_size": 7, "min_doc_count": 2,
                              "order": {"_count": "desc"}}),
        )
        .unwrap();
        assert_eq!(t.field(), "k");
        assert_eq!(
            (
                t.request.size,
                t.request.segment_size,
                t.request.min_doc_count
            ),
            (Some(5), Some(7), Some(2))
        );
        assert!(t.plain);
        assert_eq!(
            t.tantivy_request("col.k"),
            json!({"field": "col.k", "size": 5, "segment_size": 7, "min_doc_count": 2,
                   "order": {"_count": "desc"}})
        );
        // Elasticsearch's keys tantivy ignores pass, and are not plain.
        let hinted =
            parsed(json!({"field": "k", "execution_hint": "map", "missing": "x"})).unwrap();
        assert!(!hinted.plain);
        assert_eq!(
            hinted.tantivy_request("c"),
            json!({"field": "c", "missing": "x"})
        );
        assert!(!parsed(json!({"field": "k", "size": null})).unwrap().plain);
        let listed = parsed(json!({"field": "k", "order": [{"_key": "asc"}]})).unwrap();
        assert!(!listed.plain);
    }

    #[test]
    fn bad_parameters_are_refused_at_parse_with_tantivys_words() {
        let cases = [
            (
                json!({"field": "k", "size": "many"}),
                "[aggs] invalid type: string \"many\", expected u32",
                "parsing_exception",
            ),
            (
                json!({"field": "k", "order": {"_count": "down"}}),
                "[aggs] unknown variant `down`, expected `asc` or `desc`",
                "parsing_exception",
            ),
            (
                json!({"size": 3}),
                "Required one of fields [field, script], but none were specified (aggregation [t])",
                "illegal_argument_exception",
            ),
            (
                json!({"field": 3}),
                "Required one of fields [field, script], but none were specified (aggregation [t])",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "k", "script": "1"}),
                "scripts are not supported",
                "illegal_argument_exception",
            ),
            (
                json!(["k"]),
                "[terms] of [t] must be an object",
                "parsing_exception",
            ),
        ];
        assert_refusals("t", "terms", &cases);
    }
}
