//! [`HistogramParams`]: a numeric `histogram` aggregation's parameters,
//! typed when the request is parsed. tantivy computes it, so, as for
//! `terms`, the parameters are read into tantivy's own request type with
//! the error tantivy's request parse gave (`[aggs] missing field
//! `interval``). `missing`, which tantivy's histogram lacks, is taken out
//! first and becomes a [`MissingBucket`] (widening `extended_bounds` to
//! reach it), with its own errors, as translation did it before. `order`
//! is accepted and, as before, changes nothing.

use serde_json::Value;
use tantivy::aggregation::bucket::HistogramAggregation;

use super::source::{checked_field, object_of};
use super::terms::tantivy_params;
use crate::error::Result;
use crate::search::missing_bucket::MissingBucket;

/// The parameters of one `histogram` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramParams {
    /// tantivy's request over the field as the request names it, without
    /// `missing` and with `extended_bounds` widened to its bucket.
    pub request: HistogramAggregation,
    /// Where documents without the field go.
    pub missing: Option<MissingBucket>,
}

impl HistogramParams {
    /// The parameters `body` of the `histogram` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<HistogramParams> {
        let mut params = object_of("histogram", name, body)?.clone();
        checked_field(name, &params)?;
        let missing = MissingBucket::numeric(name, &mut params)?;
        let request = tantivy_params(&Value::Object(params))?;
        Ok(HistogramParams { request, missing })
    }

    /// The field the buckets are over.
    pub fn field(&self) -> &str {
        &self.request.field
    }

    /// tantivy's parameters, over the column `column` (the field's schema
    /// path).
    pub fn tantivy_request(&self, column: &str) -> Value {
        let request = HistogramAggregation {
            field: column.to_string(),
            ..self.request.clone()
        };
        // A request of numbers, booleans and one string serializes.
        serde_json::to_value(request).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::HistogramParams;
    use crate::error::Result;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    fn parsed(params: Value) -> Result<HistogramParams> {
        match typed("h", "histogram", params)? {
            TypedParams::Histogram(h) => Ok(h),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn parameters_are_read_as_tantivy_reads_them_missing_apart() {
        let h = parsed(
            json!({"field": "n", "interval": 5, "offset": "1", "min_doc_count": 0,
                              "keyed": true, "order": {"_key": "asc"}}),
        )
        .unwrap();
        assert_eq!(h.field(), "n");
        assert_eq!(
            (
                h.request.interval,
                h.request.offset,
                h.request.min_doc_count
            ),
            (5.0, Some(1.0), Some(0))
        );
        assert!(h.request.keyed && h.missing.is_none());
        let again: HistogramParams = HistogramParams {
            request: serde_json::from_value(h.tantivy_request("n")).unwrap(),
            ..h.clone()
        };
        assert_eq!(again, h);
        assert_eq!(h.tantivy_request("col.n")["field"], "col.n");

        // A numeric string is the number, as Elasticsearch reads it.
        let m = parsed(json!({"field": "n", "interval": "10", "missing": 37})).unwrap();
        assert_eq!(m.request.interval, 10.0);
        let bucket = m.missing.unwrap();
        assert_eq!(
            (bucket.start, bucket.end, bucket.widened),
            (30.0, 40.0, true)
        );
        let widened = m.request.extended_bounds.unwrap();
        assert_eq!((widened.min, widened.max), (37.0, 37.0));
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let cases = [
            (
                json!({"field": "n"}),
                "[aggs] missing field `interval`",
                "parsing_exception",
            ),
            (
                json!({"field": "n", "missing": 1}),
                "[histogram] interval of [h] must be a number",
                "parsing_exception",
            ),
            (
                json!({"field": "n", "interval": 5, "missing": "x"}),
                "[histogram] missing of [h] must be a number",
                "parsing_exception",
            ),
            (
                json!({"interval": 5}),
                "Required one of fields [field, script], but none were specified (aggregation [h])",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "n", "interval": 5, "script": "1"}),
                "scripts are not supported",
                "illegal_argument_exception",
            ),
        ];
        assert_refusals("h", "histogram", &cases);
    }
}
