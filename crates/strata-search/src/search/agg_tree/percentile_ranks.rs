//! [`PercentileRanksParams`]: a `percentile_ranks` aggregation's
//! parameters, typed when the request is parsed, as Elasticsearch 8 reads
//! them: `values` required, not empty, numbers (on a date field epoch
//! milliseconds: Elasticsearch reads `values` as doubles, so a date
//! string is refused), sorted (a result lists them in that order);
//! `keyed` a boolean; `missing` a number, or on a date field a date or
//! date math; `format` kept for the `_as_string` values (a date field's
//! own format applies without one). As for `percentiles`, `tdigest` is
//! checked but changes nothing, `hdr` and scripts are refused: ranks come
//! from Strata's digest (`percentiles/`). Whether the field is numeric is the scan's to judge,
//! against the mapping.

use serde_json::Value;

use super::source::{number, object_of, unknown_key, MissingValue, SourceParams};
use crate::error::{Result, SearchError};

const KIND: &str = "percentile_ranks";

/// The parameters of one `percentile_ranks` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct PercentileRanksParams {
    /// The field whose values are ranked.
    pub(crate) field: String,
    /// The values whose ranks are asked for, ascending (not empty).
    pub(crate) values: Vec<f64>,
    /// Whether the result is an object keyed by value (else a list).
    pub(crate) keyed: bool,
    /// The value documents without one count as.
    pub(crate) missing: Option<MissingValue>,
    /// `format`: how a date field's ranks are written (else the field's
    /// format); not read on other fields.
    pub(crate) format: Option<String>,
}

impl PercentileRanksParams {
    /// The parameters `body` of the `percentile_ranks` aggregation `name`.
    pub(crate) fn parse(name: &str, body: &Value) -> Result<PercentileRanksParams> {
        let mut source = SourceParams::dated();
        let (mut values, mut keyed) = (None, true);
        for (key, value) in object_of(KIND, name, body)? {
            if source.read(KIND, name, key, value)? {
                continue;
            }
            match key.as_str() {
                "values" => values = Some(parse_values(name, value)?),
                "keyed" => {
                    keyed = value.as_bool().ok_or_else(|| {
                        SearchError::parsing(format!(
                            "[keyed] of [{KIND}] aggregation [{name}] must be a boolean, got [{value}]"
                        ))
                    })?;
                }
                "tdigest" => super::percentiles::check_tdigest(KIND, name, value)?,
                "hdr" => {
                    return Err(SearchError::illegal(format!(
                        "[hdr] of [{KIND}] aggregation [{name}] is not supported by this server: ranks are computed as Elasticsearch's t-digest computes them"
                    )))
                }
                other => return Err(unknown_key(KIND, other)),
            }
        }
        // Elasticsearch's constructing parser wants `values` before it
        // builds anything else.
        let values = values.ok_or_else(|| SearchError::FieldParse {
            reason: "Required [values]".into(),
            cause: None,
        })?;
        let (field, missing, format) = source.finish_dated(name)?;
        Ok(PercentileRanksParams {
            field,
            values,
            keyed,
            missing,
            format,
        })
    }
}

/// `values`: numbers (or numeric strings), sorted; errors in
/// Elasticsearch's words, under its builder's parse failure.
fn parse_values(name: &str, value: &Value) -> Result<Vec<f64>> {
    let built = |message: String| SearchError::FieldParse {
        reason: format!("Failed to build [{KIND}] after last required field arrived"),
        cause: Some(Box::new(SearchError::illegal(message))),
    };
    let list = match value {
        Value::Null => return Err(built(format!("[values] must not be null: [{name}]"))),
        Value::Array(list) => list,
        other => {
            return Err(SearchError::parsing(format!(
                "[values] of [{KIND}] aggregation [{name}] must be an array, got [{other}]"
            )))
        }
    };
    let mut values = list
        .iter()
        .map(|v| number(KIND, name, "values", v))
        .collect::<Result<Vec<f64>>>()?;
    if values.is_empty() {
        return Err(built(format!(
            "[values] must not be an empty array: [{name}]"
        )));
    }
    values.sort_by(f64::total_cmp);
    Ok(values)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::PercentileRanksParams;
    use crate::error::Result;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::MissingValue;
    use crate::search::agg_tree::TypedParams;

    fn parsed(params: Value) -> Result<PercentileRanksParams> {
        match typed("r", "percentile_ranks", params)? {
            TypedParams::PercentileRanks(p) => Ok(p),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn values_are_sorted_and_keyed_defaults_to_true() {
        let p = parsed(json!({"field": "n", "values": [99, "50", 1.5]})).unwrap();
        assert_eq!(p.values, vec![1.5, 50.0, 99.0]);
        assert!(p.keyed);
        assert_eq!((p.field.as_str(), p.missing), ("n", None));
        let p = parsed(json!({"field": "n", "values": [5], "keyed": false, "missing": 3})).unwrap();
        assert!(!p.keyed);
        assert_eq!(p.missing, Some(MissingValue::Number(3.0)));
        let p = parsed(json!({"field": "t", "values": [5], "missing": "2024-01-02",
                              "format": "yyyy-MM-dd"}))
        .unwrap();
        assert_eq!(p.missing, Some(MissingValue::Date("2024-01-02".into())));
        assert_eq!(p.format.as_deref(), Some("yyyy-MM-dd"));
    }

    #[test]
    fn bad_parameters_are_refused_in_elasticsearchs_words() {
        let cases = [
            (
                json!({"field": "n", "values": []}),
                "Failed to build [percentile_ranks] after last required field arrived",
                "x_content_parse_exception",
            ),
            (
                json!({"field": "n", "values": null}),
                "Failed to build [percentile_ranks] after last required field arrived",
                "x_content_parse_exception",
            ),
            (
                json!({"field": "n"}),
                "Required [values]",
                "x_content_parse_exception",
            ),
            (
                json!({"field": "n", "values": ["foo"]}),
                "[values] of [percentile_ranks] aggregation [r] must be a number, got [\"foo\"]",
                "parsing_exception",
            ),
            (
                json!({"field": "n", "values": 5}),
                "[values] of [percentile_ranks] aggregation [r] must be an array, got [5]",
                "parsing_exception",
            ),
            (
                json!({"field": "n", "values": [1], "keyed": "no"}),
                "[keyed] of [percentile_ranks] aggregation [r] must be a boolean, got [\"no\"]",
                "parsing_exception",
            ),
            (
                json!({"field": "n", "values": [1], "valuez": [1]}),
                "[percentile_ranks] unknown field [valuez]",
                "x_content_parse_exception",
            ),
            (
                json!({"values": [1]}),
                "Required one of fields [field, script], but none were specified (aggregation [r])",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "n", "values": [1], "hdr": {}}),
                "[hdr] of [percentile_ranks] aggregation [r] is not supported by this server: ranks are computed as Elasticsearch's t-digest computes them",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "n", "values": [1], "script": "doc.n.value"}),
                "scripts are not supported",
                "illegal_argument_exception",
            ),
        ];
        assert_refusals("r", "percentile_ranks", &cases);
        let cause = parsed(json!({"field": "n", "values": []})).unwrap_err();
        assert!(format!("{cause:?}").contains("[values] must not be an empty array: [r]"));
        let cause = parsed(json!({"field": "n", "values": null})).unwrap_err();
        assert!(format!("{cause:?}").contains("[values] must not be null: [r]"));
    }

    #[test]
    fn it_takes_no_sub_aggregations() {
        let err = crate::search::agg_tree::AggTree::parse(json!({"r": {
            "percentile_ranks": {"field": "n", "values": [1]},
            "aggs": {"m": {"max": {"field": "n"}}}
        }}))
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "Aggregator [r] of type [percentile_ranks] cannot accept sub-aggregations"
        );
    }
}
