//! [`WeightedAvgParams`]: a `weighted_avg` aggregation's parameters, typed
//! when the request is parsed: its `value` and `weight` sides, each a
//! `field` and a numeric `missing` (a numeric string is the number);
//! `value_type` is accepted, a `format` that is not null and any `script`
//! are refused, in the words the scan used before they were typed. The
//! fields' types are the scan's to judge (`scan_aggs`), against the
//! mapping.

use serde_json::Value;

use super::source::{check_keys, field_param, object_of};
use crate::error::{Result, SearchError};

const KIND: &str = "weighted_avg";

/// One side of a `weighted_avg`: `value` or `weight`.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedSide {
    /// The numeric field read.
    pub field: String,
    /// What a document without a value of the field counts as (`None`:
    /// such a document is left out).
    pub missing: Option<f64>,
}

/// The parameters of one `weighted_avg` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedAvgParams {
    /// The values averaged.
    pub value: WeightedSide,
    /// Their weights.
    pub weight: WeightedSide,
}

impl WeightedAvgParams {
    /// The parameters `body` of the `weighted_avg` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<WeightedAvgParams> {
        object_of(KIND, name, body)?;
        let params = body;
        check_keys(
            name,
            KIND,
            params,
            &["value", "weight", "format", "value_type"],
        )?;
        if params.get("format").is_some_and(|f| !f.is_null()) {
            return Err(SearchError::illegal(format!(
                "[format] of [{KIND}] aggregation [{name}] is not supported"
            )));
        }
        Ok(WeightedAvgParams {
            value: WeightedSide::parse(name, "value", params)?,
            weight: WeightedSide::parse(name, "weight", params)?,
        })
    }
}

impl WeightedSide {
    /// The side `key` of the parameters `params` of aggregation `name`.
    fn parse(name: &str, key: &str, params: &Value) -> Result<WeightedSide> {
        let obj = params
            .get(key)
            .ok_or_else(|| SearchError::parsing(format!("[{KIND}] [{name}] requires [{key}]")))?;
        check_keys(name, KIND, obj, &["field", "missing"])?;
        let field = field_param(name, KIND, obj)?.to_string();
        let missing = match obj.get("missing") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_f64()
                    .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                    .ok_or_else(|| {
                        SearchError::parsing(format!(
                            "[missing] of [{key}] in [{name}] must be a number, got [{v}]"
                        ))
                    })?,
            ),
        };
        Ok(WeightedSide { field, missing })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{WeightedAvgParams, WeightedSide};
    use crate::error::Result;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    fn parsed(params: Value) -> Result<WeightedAvgParams> {
        match typed("w", "weighted_avg", params)? {
            TypedParams::WeightedAvg(w) => Ok(w),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn sides_are_read_with_their_missing() {
        let w = parsed(json!({"value": {"field": "v", "missing": "2.5"},
                              "weight": {"field": "w"}, "value_type": "long", "format": null}))
        .unwrap();
        let side = |field: &str, missing| WeightedSide {
            field: field.into(),
            missing,
        };
        assert_eq!(w.value, side("v", Some(2.5)));
        assert_eq!(w.weight, side("w", None));
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let cases = [
            (
                json!([]),
                "[weighted_avg] of [w] must be an object",
                "parsing_exception",
            ),
            (
                json!({"value": {"field": "v"}}),
                "[weighted_avg] [w] requires [weight]",
                "parsing_exception",
            ),
            (
                json!({"value": {"field": "v"}, "weight": {"field": "w"}, "size": 1}),
                "[weighted_avg] unknown field [size]",
                "x_content_parse_exception",
            ),
            (
                json!({"value": {"field": "v", "script": "1"}, "weight": {"field": "w"}}),
                "[script] of [weighted_avg] aggregation [w] is not supported",
                "illegal_argument_exception",
            ),
            (
                json!({"value": {"field": "v"}, "weight": {"field": "w"}, "format": "0.0"}),
                "[format] of [weighted_avg] aggregation [w] is not supported",
                "illegal_argument_exception",
            ),
            (
                json!({"value": {"missing": 1}, "weight": {"field": "w"}}),
                "Required one of fields [field, script], but none were specified (aggregation [w])",
                "illegal_argument_exception",
            ),
            (
                json!({"value": {"field": "v"}, "weight": {"field": "w", "missing": "x"}}),
                "[missing] of [weight] in [w] must be a number, got [\"x\"]",
                "parsing_exception",
            ),
        ];
        assert_refusals("w", "weighted_avg", &cases);
    }
}
