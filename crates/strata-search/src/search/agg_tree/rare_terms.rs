//! [`RareTermsParams`]: a `rare_terms` aggregation's parameters, typed
//! when the request is parsed: the values counted ([`TermValues`]:
//! `field`, `include`, `exclude`, `missing`), `max_doc_count` (default 1,
//! from 1 to 100 as in Elasticsearch) and `precision` (at least 0.00001;
//! Elasticsearch tunes its cuckoo filter with it, the counts here are
//! exact, so it only has its range checked). `script` and any other key
//! are refused, in the words the scan used before the parameters were
//! typed; converting the values to the field's type is the scan's
//! (`scan_aggs`), against the mapping.

use serde_json::Value;

use super::source::{check_keys, count_param, object_of};
use super::term_values::TermValues;
use crate::error::{Result, SearchError};

const KIND: &str = "rare_terms";

/// Elasticsearch's default `precision`.
const DEFAULT_PRECISION: f64 = 0.001;

/// The smallest `precision` Elasticsearch takes.
const MIN_PRECISION: f64 = 0.00001;

/// The largest `max_doc_count` Elasticsearch takes.
const MAX_DOC_COUNT: u64 = 100;

/// The parameters of one `rare_terms` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct RareTermsParams {
    /// The values counted.
    pub values: TermValues,
    /// A value is rare when at most this many documents hold it.
    pub max_doc_count: u64,
    /// Elasticsearch's filter precision (checked, unused: counts are
    /// exact here).
    pub precision: f64,
}

impl RareTermsParams {
    /// The parameters `body` of the `rare_terms` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<RareTermsParams> {
        object_of(KIND, name, body)?;
        let params = body;
        check_keys(
            name,
            KIND,
            params,
            &[
                "field",
                "max_doc_count",
                "precision",
                "include",
                "exclude",
                "missing",
            ],
        )?;
        let max_doc_count = count_param(name, params, "max_doc_count", 1)?;
        if max_doc_count == 0 {
            return Err(SearchError::illegal(format!(
                "[max_doc_count] must be greater than 0. Found [0] in [{name}]"
            )));
        }
        if max_doc_count > MAX_DOC_COUNT {
            return Err(SearchError::illegal(format!(
                "[max_doc_count] must be smaller than or equal to [{MAX_DOC_COUNT}]. Found [{max_doc_count}] in [{name}]"
            )));
        }
        let precision = match params.get("precision") {
            None => DEFAULT_PRECISION,
            Some(p) => p.as_f64().filter(|p| *p >= MIN_PRECISION).ok_or_else(|| {
                SearchError::illegal(format!(
                    "[precision] must be greater than 0.00001. Found [{p}] in [{name}]"
                ))
            })?,
        };
        Ok(RareTermsParams {
            values: TermValues::parse(KIND, name, params)?,
            max_doc_count,
            precision,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{RareTermsParams, TermValues};
    use crate::error::Result;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    fn parsed(params: Value) -> Result<RareTermsParams> {
        match typed("r", "rare_terms", params)? {
            TypedParams::RareTerms(r) => Ok(r),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn defaults_and_values_as_written() {
        let plain = parsed(json!({"field": "tag"})).unwrap();
        assert_eq!(
            plain,
            RareTermsParams {
                values: plain_values("tag"),
                max_doc_count: 1,
                precision: 0.001,
            }
        );
        let full = parsed(
            json!({"field": "n", "max_doc_count": "100", "precision": 0.00001,
            "include": [1, "2"], "exclude": [3], "missing": 0}),
        )
        .unwrap();
        assert_eq!(full.max_doc_count, 100);
        assert_eq!(full.precision, 0.00001);
        assert_eq!(full.values.include, Some(vec![json!(1), json!("2")]));
        assert_eq!(full.values.exclude, vec![json!(3)]);
        assert_eq!(full.values.missing, Some(json!(0)));
        // `null` is as good as not written.
        let nulls =
            parsed(json!({"field": "n", "include": null, "exclude": null, "missing": null}));
        assert_eq!(nulls.unwrap().values, plain_values("n"));
        // An empty include counts no value, unlike no include.
        let empty = parsed(json!({"field": "n", "include": []})).unwrap();
        assert_eq!(empty.values.include, Some(Vec::new()));
    }

    fn plain_values(field: &str) -> TermValues {
        TermValues {
            field: field.into(),
            include: None,
            exclude: Vec::new(),
            missing: None,
        }
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let cases = [
            (
                json!("tag"),
                "[rare_terms] of [r] must be an object",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "size": 3}),
                "[rare_terms] unknown field [size]",
                "x_content_parse_exception",
            ),
            (
                json!({"field": "tag", "script": "1"}),
                "[script] of [rare_terms] aggregation [r] is not supported",
                "illegal_argument_exception",
            ),
            (
                json!({"max_doc_count": 2}),
                "Required one of fields [field, script], but none were specified (aggregation [r])",
                "illegal_argument_exception",
            ),
            (
                json!({"field": ["tag"]}),
                "[field] of [rare_terms] aggregation [r] must be a string, got [[\"tag\"]]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "max_doc_count": 0}),
                "[max_doc_count] must be greater than 0. Found [0] in [r]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "max_doc_count": 101}),
                "[max_doc_count] must be smaller than or equal to [100]. Found [101] in [r]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "max_doc_count": -1}),
                "[max_doc_count] of aggregation [r] must be a non-negative integer, got [-1]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "max_doc_count": null}),
                "[max_doc_count] of aggregation [r] must be a non-negative integer, got [null]",
                "parsing_exception",
            ),
            (
                json!({"field": "tag", "precision": 0.000001}),
                "[precision] must be greater than 0.00001. Found [1e-6] in [r]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "precision": "0.01"}),
                "[precision] must be greater than 0.00001. Found [\"0.01\"] in [r]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "include": "t.*"}),
                "[include] of [r] must be an array of values (regular expressions are not supported), got [\"t.*\"]",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "tag", "exclude": {"partition": 0, "num_partitions": 2}}),
                "[exclude] of [r] must be an array of values (regular expressions are not supported), got [{\"num_partitions\":2,\"partition\":0}]",
                "illegal_argument_exception",
            ),
        ];
        assert_refusals("r", "rare_terms", &cases);
    }
}
