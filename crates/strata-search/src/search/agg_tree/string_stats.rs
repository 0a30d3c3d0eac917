//! [`StringStatsParams`]: a `string_stats` aggregation's parameters, typed
//! when the request is parsed: `field` (required), `missing` (kept as
//! written; the scan turns it into a keyword) and `show_distribution`
//! (a boolean, default false). `script`, `format` and any other key are
//! refused: this server computes neither a script nor formatted strings
//! for it. The field's type is the scan's to judge, against the mapping.

use serde_json::Value;

use super::source::{field_name, object_of, required_field, unknown_key};
use crate::error::{Result, SearchError};

const KIND: &str = "string_stats";

/// The parameters of one `string_stats` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct StringStatsParams {
    /// The keyword field read.
    pub field: String,
    /// What a document without a value counts as (`None`: it is left out).
    pub missing: Option<Value>,
    /// Whether the response holds each character's probability.
    pub show_distribution: bool,
}

impl StringStatsParams {
    /// The parameters `body` of the `string_stats` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<StringStatsParams> {
        let (mut field, mut missing, mut show_distribution) = (None, None, false);
        // Keys are judged in order, so the first bad one is reported.
        for (key, value) in object_of(KIND, name, body)? {
            match key.as_str() {
                "field" => field = Some(field_name(KIND, name, value)?),
                "missing" => missing = (!value.is_null()).then(|| value.clone()),
                "show_distribution" => {
                    show_distribution = match value {
                        Value::Bool(b) => *b,
                        Value::String(s) if s == "true" || s == "false" => s == "true",
                        other => {
                            return Err(SearchError::parsing(format!(
                                "[show_distribution] of [{name}] must be a boolean, got [{other}]"
                            )))
                        }
                    }
                }
                "script" | "format" => {
                    return Err(SearchError::illegal(format!(
                        "[{key}] of [{KIND}] aggregation [{name}] is not supported"
                    )))
                }
                other => return Err(unknown_key(KIND, other)),
            }
        }
        Ok(StringStatsParams {
            field: required_field(name, field)?,
            missing,
            show_distribution,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::StringStatsParams;
    use crate::error::Result;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    fn parsed(params: Value) -> Result<StringStatsParams> {
        match typed("s", "string_stats", params)? {
            TypedParams::StringStats(s) => Ok(s),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn parameters_are_read() {
        let s = parsed(json!({"field": "f", "missing": "x", "show_distribution": true})).unwrap();
        assert_eq!(
            s,
            StringStatsParams {
                field: "f".into(),
                missing: Some(json!("x")),
                show_distribution: true
            }
        );
        assert!(!parsed(json!({"field": "f"})).unwrap().show_distribution);
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let cases = [
            (
                json!({"field": "f", "show_distribution": 1}),
                "[show_distribution] of [s] must be a boolean, got [1]",
                "parsing_exception",
            ),
            (
                json!({"field": "f", "format": "0"}),
                "[format] of [string_stats] aggregation [s] is not supported",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "f", "script": "1"}),
                "[script] of [string_stats] aggregation [s] is not supported",
                "illegal_argument_exception",
            ),
        ];
        assert_refusals("s", "string_stats", &cases);
    }
}
