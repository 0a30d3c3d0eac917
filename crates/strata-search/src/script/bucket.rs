//! The `bucket_script` and `bucket_selector` pipeline aggregations: per
//! bucket of their parent multi-bucket aggregation, a script over the
//! values `buckets_path` names (`params.<var>`) either adds a value
//! (`bucket_script`) or keeps the bucket only when it returns `true`
//! (`bucket_selector`). With them, `moving_fn` (`moving_fn.rs`), whose
//! script runs over a window of values.
//!
//! They run after the other aggregations: [`split`] takes them out of the
//! request, the search runs without them, and [`Pipelines::apply`]
//! computes them on the response (the moving functions first, then the
//! bucket scripts, then the selectors). `buckets_path` forms: `_count`,
//! `_key`, `agg` (its `value`), `agg.metric` (a stats field or a
//! percentile), `agg>sub...` through single-bucket aggregations.
//! `gap_policy`: `skip` (default) or `insert_zeros`.

use serde_json::{Map, Value};
use strata_script::{Context, Input, Limits};

use super::moving_fn::MovingFn;
use super::{compile, script_error, Compiled};
use crate::error::{Result, SearchError};
use crate::search::agg_tree::{AggKind, AggTree, TypedParams};
use crate::search::pipelines::for_each_scope;
use crate::search::request::SearchRequest;
use crate::search::taken_aggs::take_out;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Script,
    Selector,
}

#[derive(Debug, Clone)]
struct Pipeline {
    /// Names of the aggregations from the top down to the parent.
    parent: Vec<String>,
    name: String,
    kind: Kind,
    vars: Vec<(String, String)>,
    script: Compiled,
    insert_zeros: bool,
}

/// The pipelines taken out of a request.
#[derive(Debug, Clone)]
pub struct Pipelines {
    moving: Vec<MovingFn>,
    scripts: Vec<Pipeline>,
}

/// A pipeline taken out of the request.
enum Taken {
    Moving(MovingFn),
    Script(Pipeline),
}

/// The request without its bucket pipelines, and the pipelines (their
/// scripts compiled); `None` when it has none. The tree's parse typed
/// them and refused them at the top level.
pub fn split(req: &SearchRequest) -> Result<Option<(SearchRequest, Pipelines)>> {
    let Some(aggs) = &req.aggs else {
        return Ok(None);
    };
    let (kept, found) = take_out(aggs.nodes(), &mut |_, node, parent| {
        let p = match &node.typed {
            TypedParams::BucketScript(p) => p,
            TypedParams::MovingFn(m) => {
                return Ok(Some(Taken::Moving(MovingFn {
                    parent: parent.to_vec(),
                    name: node.name.clone(),
                    path: m.buckets_path.clone(),
                    window: m.window,
                    shift: m.shift,
                    gap_policy: m.gap_policy,
                    script: compile(&m.script, Context::MovingFn)?,
                })))
            }
            _ => return Ok(None),
        };
        Ok(Some(Taken::Script(Pipeline {
            parent: parent.to_vec(),
            name: node.name.clone(),
            kind: if node.kind == AggKind::BucketSelector {
                Kind::Selector
            } else {
                Kind::Script
            },
            vars: p.buckets_path.clone(),
            script: compile(&p.script, Context::Bucket)?,
            insert_zeros: p.insert_zeros,
        })))
    })?;
    if found.is_empty() {
        return Ok(None);
    }
    let (mut moving, mut scripts) = (Vec::new(), Vec::new());
    for taken in found {
        match taken {
            Taken::Moving(m) => moving.push(m),
            Taken::Script(p) => scripts.push(p),
        }
    }
    // Values first, then the selectors that may read them.
    scripts.sort_by_key(|p| p.kind == Kind::Selector);
    let stripped = SearchRequest {
        // Never empty: the top level holds no bucket pipeline.
        aggs: AggTree::from_nodes(kept),
        ..req.clone()
    };
    Ok(Some((stripped, Pipelines { moving, scripts })))
}

impl Pipelines {
    /// Computes the pipelines on a response body's `aggregations`.
    pub fn apply(&self, body: &mut Value) -> Result<()> {
        let Some(aggs) = body.get_mut("aggregations") else {
            return Ok(());
        };
        for m in &self.moving {
            let Some((parent, up)) = m.parent.split_last() else {
                continue;
            };
            for_each_scope(aggs, up, &mut |level| match level
                .get_mut(parent)
                .and_then(|p| p.get_mut("buckets"))
            {
                Some(Value::Array(buckets)) => m.apply_to(buckets),
                _ => Ok(()),
            })?;
        }
        for p in &self.scripts {
            p.apply_at(aggs, &p.parent)?;
        }
        Ok(())
    }
}

impl Pipeline {
    /// `scope` holds aggregation results by name; `path` leads to the parent.
    fn apply_at(&self, scope: &mut Value, path: &[String]) -> Result<()> {
        let Some((parent, up)) = path.split_last() else {
            return Ok(());
        };
        for_each_scope(scope, up, &mut |level| match level.get_mut(parent) {
            Some(node) => self.apply_to(node, parent),
            None => Ok(()),
        })
    }

    /// Runs on each bucket of `node`, the parent aggregation `parent`.
    fn apply_to(&self, node: &mut Value, parent: &str) -> Result<()> {
        match node.get_mut("buckets") {
            Some(Value::Array(buckets)) => {
                let mut kept = Vec::with_capacity(buckets.len());
                for mut b in std::mem::take(buckets) {
                    if self.bucket(&mut b)? {
                        kept.push(b);
                    }
                }
                *buckets = kept;
            }
            Some(Value::Object(buckets)) => {
                let mut kept = Map::new();
                for (k, mut b) in std::mem::take(buckets) {
                    if self.bucket(&mut b)? {
                        kept.insert(k, b);
                    }
                }
                *buckets = kept;
            }
            _ => {
                let kind = if self.kind == Kind::Script {
                    "bucket_script"
                } else {
                    "bucket_selector"
                };
                return Err(SearchError::illegal(format!(
                    "{kind} aggregation [{}] must have a multi-bucket aggregation as its parent, [{}] is not one",
                    self.name,
                    parent
                )));
            }
        }
        Ok(())
    }

    /// Runs on one bucket; whether the bucket stays.
    fn bucket(&self, bucket: &mut Value) -> Result<bool> {
        let mut params = match &*self.script.params {
            Value::Object(p) => p.clone(),
            _ => Map::new(),
        };
        for (var, path) in &self.vars {
            let value = resolve(bucket, path)?;
            let value = match value {
                Some(v) if !v.is_null() && v.as_f64().is_none_or(|f| !f.is_nan()) => v,
                _ if self.insert_zeros => Value::from(0),
                // `skip`: the bucket is left as it is.
                _ => return Ok(true),
            };
            params.insert(var.clone(), value);
        }
        let params = Value::Object(params);
        let out = self
            .script
            .script
            .run(Input {
                params: Some(&params),
                limits: Limits::default(),
                ..Input::default()
            })
            .map_err(script_error)?;
        match self.kind {
            Kind::Script => {
                let value = match out.value {
                    Value::Number(n) => Value::from(n.as_f64().unwrap_or(0.0)),
                    Value::Null => Value::Null,
                    other => {
                        return Err(SearchError::illegal(format!(
                            "buckets_path must reference either a number value or a single value numeric metric aggregation, got: [{other}]"
                        )))
                    }
                };
                if let Value::Object(b) = bucket {
                    b.insert(self.name.clone(), serde_json::json!({"value": value}));
                }
                Ok(true)
            }
            Kind::Selector => match out.value {
                Value::Bool(keep) => Ok(keep),
                other => Err(SearchError::illegal(format!(
                    "bucket_selector script [{}] must return a boolean, got [{other}]",
                    self.name
                ))),
            },
        }
    }
}

/// The value `path` names in `bucket`; `None` when it has none.
fn resolve(bucket: &Value, path: &str) -> Result<Option<Value>> {
    let mut node = bucket;
    let mut steps = path.split('>').peekable();
    while let Some(step) = steps.next() {
        let last = steps.peek().is_none();
        if !last {
            node = match node.get(step) {
                Some(n) => n,
                None => return Err(unknown(path)),
            };
            continue;
        }
        // `agg.metric`, or `agg[key]` (a percentile or a percentile rank
        // by its key, which may hold a dot: `ranks[99.5]`).
        let bracketed = step
            .strip_suffix(']')
            .and_then(|s| s.split_once('['))
            .map(|(a, m)| (a, Some(m)));
        let (agg, metric) = match (bracketed, step.split_once('.')) {
            (Some(pair), _) => pair,
            (None, Some((a, m))) => (a, Some(m)),
            (None, None) => (step, None),
        };
        if agg == "_count" {
            return Ok(node.get("doc_count").cloned());
        }
        if agg == "_key" {
            return Ok(node.get("key").cloned());
        }
        let result = node.get(agg).ok_or_else(|| unknown(path))?;
        return Ok(match metric {
            None => match result.get("value") {
                Some(v) => Some(v.clone()),
                None if result.get("doc_count").is_some() => result.get("doc_count").cloned(),
                None => return Err(unknown(path)),
            },
            Some("_count") => result.get("doc_count").cloned(),
            Some(m) => result
                .get(m)
                .or_else(|| result.get("values").and_then(|v| percentile(v, m)))
                .cloned(),
        });
    }
    Err(unknown(path))
}

/// A percentile by its key as written (`99` finds `99.0`).
fn percentile<'a>(values: &'a Value, key: &str) -> Option<&'a Value> {
    values.get(key).or_else(|| {
        let wanted: f64 = key.parse().ok()?;
        values
            .as_object()?
            .iter()
            .find(|(k, _)| k.parse::<f64>().ok() == Some(wanted))
            .map(|(_, v)| v)
    })
}

fn unknown(path: &str) -> SearchError {
    SearchError::illegal(format!("No aggregation found for path [{path}]"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn buckets_path_forms_resolve() {
        let bucket = json!({
            "key": "a", "doc_count": 7,
            "s": {"value": 2.5},
            "st": {"count": 3, "avg": 1.5},
            "p": {"values": {"99.0": 42.0}},
            "f": {"doc_count": 4, "inner": {"value": 9}},
        });
        let get = |p: &str| resolve(&bucket, p).unwrap();
        assert_eq!(get("_count"), Some(json!(7)));
        assert_eq!(get("_key"), Some(json!("a")));
        assert_eq!(get("s"), Some(json!(2.5)));
        assert_eq!(get("st.avg"), Some(json!(1.5)));
        assert_eq!(get("p.99"), Some(json!(42.0)));
        assert_eq!(get("f>inner"), Some(json!(9)));
        assert_eq!(get("f._count"), Some(json!(4)));
        assert!(resolve(&bucket, "nope").is_err());
    }

    #[test]
    fn pipelines_outside_a_parent_are_refused_and_nested_ones_split_out() {
        let req = SearchRequest::parse(&json!({"aggs": {"t": {"terms": {"field": "k"}, "aggs": {
            "n": {"value_count": {"field": "k"}},
            "sel": {"bucket_selector": {"buckets_path": {"n": "n"}, "script": "params.n > 1"}}
        }}}}))
        .unwrap();
        let (stripped, pipelines) = split(&req).unwrap().unwrap();
        assert_eq!(
            stripped.aggs.unwrap().json()["t"]["aggs"],
            json!({"n": {"value_count": {"field": "k"}}})
        );
        let mut body = json!({"aggregations": {"t": {"buckets": [
            {"key": "x", "doc_count": 1, "n": {"value": 1}},
            {"key": "y", "doc_count": 2, "n": {"value": 2}},
        ]}}});
        pipelines.apply(&mut body).unwrap();
        assert_eq!(
            body["aggregations"]["t"]["buckets"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        // Refused when the request is parsed (the tree types them).
        let top = SearchRequest::parse(
            &json!({"aggs": {"x": {"bucket_script": {"buckets_path": {"a": "b"}, "script": "1"}}}}),
        );
        assert!(top.is_err());
    }
}
