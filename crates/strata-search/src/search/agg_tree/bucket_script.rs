//! [`BucketScriptParams`]: the parameters of the `bucket_script` and
//! `bucket_selector` pipelines, typed when the request is parsed, with
//! the errors (and their order) the script module gave when it read them
//! from the JSON: a pipeline at the top level, then `buckets_path`,
//! `script`, `gap_policy`. The script is kept as written: the script
//! module, above this tree, compiles it when it takes these pipelines
//! out of the request (`script::bucket`).

use serde_json::Value;

use super::AggKind;
use crate::error::{Result, SearchError};

/// The parameters of one `bucket_script` or `bucket_selector`.
#[derive(Debug, Clone, PartialEq)]
pub struct BucketScriptParams {
    /// `buckets_path`: (script variable, path), in the JSON map's order
    /// (by name); the string form is the one variable `_value`.
    pub buckets_path: Vec<(String, String)>,
    /// `script` as written (a string or `{source, params, lang}`).
    pub script: Value,
    /// `gap_policy` `insert_zeros` (else `skip`: the bucket is left as is).
    pub insert_zeros: bool,
}

impl BucketScriptParams {
    /// Whether `kind` is one of these pipelines.
    pub(crate) fn covers(kind: AggKind) -> bool {
        matches!(kind, AggKind::BucketScript | AggKind::BucketSelector)
    }

    /// The parameters `params` of pipeline `name` of `kind`, which sits in
    /// a `parent` aggregation (`None`: at the top level, refused).
    pub(crate) fn parse(
        kind: AggKind,
        name: &str,
        params: &Value,
        parent: Option<AggKind>,
    ) -> Result<BucketScriptParams> {
        let key = kind.name();
        if parent.is_none() {
            return Err(SearchError::illegal(format!(
                "{key} aggregation [{name}] must be declared inside of another aggregation"
            )));
        }
        let buckets_path = match params.get("buckets_path") {
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| {
                    v.as_str()
                        .map(|p| (k.clone(), p.to_string()))
                        .ok_or_else(|| {
                            SearchError::parsing(format!(
                                "[{key}] [buckets_path] values must be strings"
                            ))
                        })
                })
                .collect::<Result<Vec<_>>>()?,
            Some(Value::String(p)) => vec![("_value".to_string(), p.clone())],
            _ => {
                return Err(SearchError::parsing(format!(
                    "Required parameter [buckets_path] is missing for aggregation [{name}]"
                )))
            }
        };
        let script = params.get("script").cloned().ok_or_else(|| {
            SearchError::parsing(format!(
                "Required parameter [script] is missing for aggregation [{name}]"
            ))
        })?;
        let insert_zeros = match params.get("gap_policy").and_then(Value::as_str) {
            None | Some("skip") => false,
            Some("insert_zeros") => true,
            Some(other) => {
                return Err(SearchError::parsing(format!(
                    "Invalid gap policy: [{other}], accepted values: [skip, insert_zeros]"
                )))
            }
        };
        Ok(BucketScriptParams {
            buckets_path,
            script,
            insert_zeros,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::BucketScriptParams;
    use crate::error::{QueryStep, Result};
    use crate::search::agg_tree::{AggTree, TypedParams};

    /// `{"p": {kind: params}}` under a `terms` aggregation `outer`, or at
    /// the top level; its parameters or the parse error.
    fn parsed(nested: bool, kind: &str, params: Value) -> Result<BucketScriptParams> {
        let pipe = json!({"p": {kind: params}});
        let json = if nested {
            json!({"outer": {"terms": {"field": "k"}, "aggs": pipe}})
        } else {
            pipe
        };
        let tree = AggTree::parse(json)?;
        let node = tree.nodes()[0].subs.first().unwrap_or(&tree.nodes()[0]);
        match &node.typed {
            TypedParams::BucketScript(p) => Ok(p.clone()),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn both_forms_of_buckets_path_and_the_gap_policy_are_read() {
        let map = parsed(
            true,
            "bucket_script",
            json!({"buckets_path": {"s": "sum", "n": "_count"}, "script": "params.s / params.n",
                   "gap_policy": "insert_zeros"}),
        )
        .unwrap();
        let vars: Vec<(&str, &str)> = map
            .buckets_path
            .iter()
            .map(|(v, p)| (v.as_str(), p.as_str()))
            .collect();
        assert_eq!(vars, [("n", "_count"), ("s", "sum")]);
        assert_eq!(map.script, json!("params.s / params.n"));
        assert!(map.insert_zeros);
        let one = parsed(
            true,
            "bucket_selector",
            json!({"buckets_path": "m", "script": {"source": "params._value > 1"}}),
        )
        .unwrap();
        assert_eq!(one.buckets_path, [("_value".to_string(), "m".to_string())]);
        assert!(!one.insert_zeros);
    }

    #[test]
    fn bad_parameters_are_refused_at_parse_with_their_path() {
        let cases = [
            (
                json!({"script": "1"}),
                "Required parameter [buckets_path] is missing for aggregation [p]",
            ),
            (
                json!({"buckets_path": {"a": 1}, "script": "1"}),
                "[bucket_script] [buckets_path] values must be strings",
            ),
            (
                json!({"buckets_path": "a"}),
                "Required parameter [script] is missing for aggregation [p]",
            ),
            (
                json!({"buckets_path": "a", "script": "1", "gap_policy": "keep_values"}),
                "Invalid gap policy: [keep_values], accepted values: [skip, insert_zeros]",
            ),
        ];
        let key = |k: &str| QueryStep::Key(k.into());
        let path = [key("outer"), key("aggs"), key("p"), key("bucket_script")];
        for (params, message) in cases {
            let err = parsed(true, "bucket_script", params).unwrap_err();
            assert_eq!(err.to_string(), message);
            assert_eq!(err.es_type(), "parsing_exception");
            assert_eq!(err.query_path(), Some(&path[..]), "{message}");
        }
        let top = parsed(false, "bucket_selector", json!({"buckets_path": "a"})).unwrap_err();
        assert_eq!(
            top.to_string(),
            "bucket_selector aggregation [p] must be declared inside of another aggregation"
        );
        assert_eq!(top.es_type(), "illegal_argument_exception");
    }
}
