//! [`CardinalityParams`]: a `cardinality` aggregation's parameters, typed
//! when the request is parsed: `field` (required), `precision_threshold`
//! (default 3000, capped at 40000 as Elasticsearch caps it), `missing`
//! (kept as written: what it means depends on the field's type, which the
//! scan reads from the mapping), and `rehash` and `execution_hint`
//! (accepted as Elasticsearch accepts them; they change nothing here).
//! `script` and any other key are refused, in the words the scan used
//! before the parameters were typed.

use serde_json::{Map, Value};

use super::source::{field_name, object_of, required_field, unknown_key};
use crate::error::{Result, SearchError};
use crate::search::distinct_count::{DEFAULT_THRESHOLD, MAX_THRESHOLD};

/// The parameters of one `cardinality` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct CardinalityParams {
    /// The field whose distinct values are counted.
    pub field: String,
    /// Exact up to this many distinct values, estimated beyond.
    pub precision_threshold: u64,
    /// The value documents without one count as (`null`: none), as
    /// written.
    pub missing: Option<Value>,
    /// `rehash` or `execution_hint` was written (or `missing`, even
    /// `null`): such a request is counted by the scan, not by
    /// `distinct_terms`, whose requests name no other parameter than the
    /// field and the threshold.
    pub other_keys: bool,
}

impl CardinalityParams {
    /// The parameters `body` of the `cardinality` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<CardinalityParams> {
        const KIND: &str = "cardinality";
        let (mut field, mut missing, mut other_keys) = (None, None, false);
        let mut precision_threshold = DEFAULT_THRESHOLD;
        // Keys are judged in order, so the first bad one is reported.
        for (key, value) in object_of(KIND, name, body)? {
            match key.as_str() {
                "field" => field = Some(field_name(KIND, name, value)?),
                "precision_threshold" => precision_threshold = threshold(name, value)?,
                "missing" => {
                    missing = (!value.is_null()).then(|| value.clone());
                    other_keys = true;
                }
                "rehash" | "execution_hint" => other_keys = true,
                "script" => {
                    return Err(SearchError::illegal(format!(
                        "[script] of [{KIND}] aggregation [{name}] is not supported"
                    )))
                }
                other => return Err(unknown_key(KIND, other)),
            }
        }
        Ok(CardinalityParams {
            field: required_field(name, field)?,
            precision_threshold,
            missing,
            other_keys,
        })
    }

    /// tantivy's parameters, over the column `column` (the field's schema
    /// path), for a count `distinct_terms` takes out of tantivy's request:
    /// the field and the threshold.
    pub fn tantivy_request(&self, column: &str) -> Value {
        let mut out = Map::new();
        out.insert("field".into(), Value::from(column));
        out.insert(
            "precision_threshold".into(),
            Value::from(self.precision_threshold),
        );
        Value::Object(out)
    }
}

/// `precision_threshold`: a non-negative number (or numeric string; a
/// fraction is cut to its integer part), capped at [`MAX_THRESHOLD`].
fn threshold(name: &str, value: &Value) -> Result<u64> {
    value
        .as_u64()
        .or_else(|| value.as_str().and_then(|s| s.trim().parse().ok()))
        .or_else(|| value.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64))
        .map(|t| t.min(MAX_THRESHOLD))
        .ok_or_else(|| {
            SearchError::parsing(format!(
                "[precision_threshold] of [{name}] must be a non-negative number, got [{value}]"
            ))
        })
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::CardinalityParams;
    use crate::error::Result;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    fn parsed(params: Value) -> Result<CardinalityParams> {
        match typed("c", "cardinality", params)? {
            TypedParams::Cardinality(c) => Ok(c),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn parameters_are_typed_with_elasticsearch_defaults_and_cap() {
        let plain = parsed(json!({"field": "k"})).unwrap();
        assert_eq!(
            plain,
            CardinalityParams {
                field: "k".into(),
                precision_threshold: 3000,
                missing: None,
                other_keys: false,
            }
        );
        assert_eq!(
            plain.tantivy_request("col.k"),
            json!({"field": "col.k", "precision_threshold": 3000})
        );
        assert_eq!(
            parsed(json!({"field": "k", "precision_threshold": "100"}))
                .unwrap()
                .precision_threshold,
            100
        );
        assert_eq!(
            parsed(json!({"field": "k", "precision_threshold": 12.7}))
                .unwrap()
                .precision_threshold,
            12
        );
        let capped = parsed(json!({"field": "k", "precision_threshold": 1_000_000})).unwrap();
        assert_eq!(capped.precision_threshold, 40_000);
        assert!(!capped.other_keys);
        let tuned = parsed(json!({"field": "k", "missing": "x", "execution_hint": "direct"}));
        let tuned = tuned.unwrap();
        assert_eq!((tuned.missing, tuned.other_keys), (Some(json!("x")), true));
        // `missing: null` names no value but still asks for the scan.
        let null = parsed(json!({"field": "k", "missing": null})).unwrap();
        assert_eq!((null.missing, null.other_keys), (None, true));
        assert!(
            parsed(json!({"field": "k", "rehash": false}))
                .unwrap()
                .other_keys
        );
    }

    #[test]
    fn bad_parameters_are_refused_with_the_path() {
        let cases = [
            (
                json!({"field": "k", "precision_threshold": -1}),
                "[precision_threshold] of [c] must be a non-negative number, got [-1]",
                "parsing_exception",
            ),
            (
                json!({"field": "k", "precision_threshold": null}),
                "[precision_threshold] of [c] must be a non-negative number, got [null]",
                "parsing_exception",
            ),
            (
                json!({"field": 3}),
                "[field] of [cardinality] aggregation [c] must be a string, got [3]",
                "parsing_exception",
            ),
            (
                json!({"field": "k", "format": "0"}),
                "[cardinality] unknown field [format]",
                "x_content_parse_exception",
            ),
            (
                json!({"script": "1"}),
                "[script] of [cardinality] aggregation [c] is not supported",
                "illegal_argument_exception",
            ),
            (
                json!({"precision_threshold": 10}),
                "Required one of fields [field, script], but none were specified (aggregation [c])",
                "illegal_argument_exception",
            ),
            (
                json!("k"),
                "[cardinality] of [c] must be an object",
                "parsing_exception",
            ),
        ];
        assert_refusals("c", "cardinality", &cases);
    }
}
