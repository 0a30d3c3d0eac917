//! [`MovingFnParams`]: the parameters of the `moving_fn` pipeline, typed
//! when the request is parsed (its parent must be a `histogram` or
//! `date_histogram`). The script is kept as written: the script module,
//! above this tree, compiles it when it takes the pipeline out of the
//! request (`script::bucket`) and runs it over each bucket's window.

use serde_json::Value;

use super::pipeline::{check_parent, gap_policy};
use super::{AggKind, GapPolicy};
use crate::error::{Result, SearchError};

/// The parameters of one `moving_fn`.
#[derive(Debug, Clone, PartialEq)]
pub struct MovingFnParams {
    /// The value's path in a bucket.
    pub buckets_path: String,
    /// `script` as written (a string or `{source, params, lang}`).
    pub script: Value,
    /// Values in a window, at least 1.
    pub window: usize,
    /// How far the window moves forward: 0 ends it just before the bucket,
    /// 1 takes the bucket in.
    pub shift: i64,
    /// What a gap counts as.
    pub gap_policy: GapPolicy,
}

impl MovingFnParams {
    /// The parameters `params` of `moving_fn` `name` in a `parent` aggregation.
    pub(crate) fn parse(
        name: &str,
        params: &Value,
        parent: Option<AggKind>,
    ) -> Result<MovingFnParams> {
        let obj = params.as_object().ok_or_else(|| {
            SearchError::parsing(format!("[moving_fn] of [{name}] must be an object"))
        })?;
        let known = [
            "buckets_path",
            "script",
            "window",
            "shift",
            "gap_policy",
            "format",
        ];
        if let Some(k) = obj.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(SearchError::parsing(format!(
                "[moving_fn] unknown field [{k}] in aggregation [{name}]"
            )));
        }
        if obj.get("format").is_some_and(|f| !f.is_null()) {
            return Err(SearchError::illegal(format!(
                "[format] of [moving_fn] aggregation [{name}] is not supported"
            )));
        }
        let buckets_path = match obj.get("buckets_path") {
            Some(Value::String(p)) => p.clone(),
            _ => {
                return Err(SearchError::parsing(format!(
                    "Required parameter [buckets_path] missing in [{name}]: a string"
                )))
            }
        };
        let script = obj
            .get("script")
            .cloned()
            .ok_or_else(|| SearchError::parsing(format!("[script] must not be null: [{name}]")))?;
        let window = obj
            .get("window")
            .and_then(Value::as_u64)
            .filter(|w| *w > 0)
            .ok_or_else(|| {
                SearchError::illegal("[window] must be a positive, non-zero integer.".to_string())
            })?;
        let shift = match obj.get("shift") {
            None => 0,
            Some(v) => v.as_i64().ok_or_else(|| {
                SearchError::parsing(format!("[shift] of [{name}] must be an integer"))
            })?,
        };
        let gap_policy = gap_policy(name, obj)?;
        check_parent(AggKind::MovingFn, name, parent)?;
        Ok(MovingFnParams {
            buckets_path,
            script,
            window: usize::try_from(window).unwrap_or(usize::MAX),
            shift,
            gap_policy,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::MovingFnParams;
    use crate::search::agg_tree::{AggTree, GapPolicy, TypedParams};

    fn parsed(
        parent: serde_json::Value,
        params: serde_json::Value,
    ) -> crate::error::Result<MovingFnParams> {
        let mut outer = parent;
        outer["aggs"] = json!({"m": {"moving_fn": params}});
        let tree = AggTree::parse(json!({ "outer": outer }))?;
        match &tree.nodes()[0].subs[0].typed {
            TypedParams::MovingFn(p) => Ok(p.clone()),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn parameters_and_refusals() {
        let h = json!({"date_histogram": {"field": "t", "fixed_interval": "1d"}});
        let body = json!({"buckets_path": "s", "window": 3, "shift": 1, "gap_policy": "insert_zeros",
            "script": "MovingFunctions.unweightedAvg(values)"});
        let p = parsed(h.clone(), body).unwrap();
        assert_eq!(
            (p.window, p.shift, p.gap_policy),
            (3, 1, GapPolicy::InsertZeros)
        );
        assert_eq!(p.script, json!("MovingFunctions.unweightedAvg(values)"));
        let err = |parent, body| parsed(parent, body).unwrap_err().to_string();
        let script = "MovingFunctions.max(values)";
        assert_eq!(
            err(h.clone(), json!({"buckets_path": "s", "script": script})),
            "[window] must be a positive, non-zero integer."
        );
        assert_eq!(
            err(h.clone(), json!({"buckets_path": "s", "window": 2})),
            "[script] must not be null: [m]"
        );
        assert_eq!(
            err(
                h,
                json!({"buckets_path": "s", "window": 2, "script": script, "lag": 1})
            ),
            "[moving_fn] unknown field [lag] in aggregation [m]"
        );
        let terms = json!({"terms": {"field": "k"}});
        assert_eq!(
            err(terms, json!({"buckets_path": "s", "window": 2, "script": script})),
            "moving_fn aggregation [m] must have a histogram, date_histogram or auto_date_histogram as parent"
        );
    }
}
