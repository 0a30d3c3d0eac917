//! [`NestedParams`]: the parameters of `nested` and `reverse_nested`,
//! typed when the request is parsed: `path` alone (required for
//! `nested`; for `reverse_nested` absent means the root documents).
//! Whether the path is a nested object of the mapping, and below the
//! scope the aggregation sits in, is for the pass that runs it
//! (`nested_aggs`), against the mapping.

use serde_json::Value;

use super::AggKind;
use crate::error::{Result, SearchError};

/// The parameters of one `nested` or `reverse_nested` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedParams {
    /// The nested path (`None`: a `reverse_nested` back to the root).
    pub path: Option<String>,
}

impl NestedParams {
    /// Whether `kind` has these parameters.
    pub fn covers(kind: AggKind) -> bool {
        matches!(kind, AggKind::Nested | AggKind::ReverseNested)
    }

    /// The parameters `body` of the `kind` aggregation `name`.
    pub fn parse(kind: AggKind, name: &str, body: &Value) -> Result<NestedParams> {
        let kind = kind.name();
        let obj = body.as_object().ok_or_else(|| {
            SearchError::parsing(format!("[{kind}] aggregation [{name}] must be an object"))
        })?;
        if let Some(key) = obj.keys().find(|k| k.as_str() != "path") {
            return Err(SearchError::parsing(format!(
                "Unexpected token in [{name}] of [{kind}]: [{key}]"
            )));
        }
        let path = match obj.get("path") {
            None if kind == "nested" => {
                return Err(SearchError::parsing(format!(
                    "Missing [path] field for nested aggregation [{name}]"
                )))
            }
            None => None,
            Some(Value::String(p)) => Some(p.clone()),
            Some(_) => {
                return Err(SearchError::parsing(format!(
                    "[path] of aggregation [{name}] must be a string"
                )))
            }
        };
        Ok(NestedParams { path })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::NestedParams;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;

    fn parsed(kind: &str, params: Value) -> NestedParams {
        match typed("n", kind, params).unwrap() {
            TypedParams::Nested(n) => n,
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn paths_as_written() {
        let nested = parsed("nested", json!({"path": "items"}));
        assert_eq!(nested.path.as_deref(), Some("items"));
        let back = parsed("reverse_nested", json!({"path": "items"}));
        assert_eq!(back.path.as_deref(), Some("items"));
        assert_eq!(parsed("reverse_nested", json!({})).path, None);
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let nested = [
            (
                json!("items"),
                "[nested] aggregation [n] must be an object",
                "parsing_exception",
            ),
            (
                json!({}),
                "Missing [path] field for nested aggregation [n]",
                "parsing_exception",
            ),
            (
                json!({"path": 3}),
                "[path] of aggregation [n] must be a string",
                "parsing_exception",
            ),
            (
                json!({"path": "items", "score_mode": "avg"}),
                "Unexpected token in [n] of [nested]: [score_mode]",
                "parsing_exception",
            ),
        ];
        assert_refusals("n", "nested", &nested);
        let reverse = [
            (
                json!([]),
                "[reverse_nested] aggregation [n] must be an object",
                "parsing_exception",
            ),
            (
                json!({"path": null}),
                "[path] of aggregation [n] must be a string",
                "parsing_exception",
            ),
            (
                json!({"paths": "items"}),
                "Unexpected token in [n] of [reverse_nested]: [paths]",
                "parsing_exception",
            ),
        ];
        assert_refusals("n", "reverse_nested", &reverse);
    }
}
