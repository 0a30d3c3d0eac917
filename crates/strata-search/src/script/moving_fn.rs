//! The `moving_fn` pipeline: per bucket of its `histogram` or
//! `date_histogram` parent, a script over a window of the buckets' values
//! (`values`, usually `MovingFunctions.unweightedAvg(values)` and the
//! like, as Kibana sends). As Elasticsearch's `MovFnPipelineAggregator`:
//! the values are those the buckets have under the gap policy (a skipped
//! gap has none); a bucket with a value gets the script's result over the
//! `window` values before it, moved forward by `shift` (1 takes the bucket
//! in); a bucket without one is left as it is.

use serde_json::{json, Value};
use strata_script::{Input, Limits};

use super::{script_error, Compiled};
use crate::error::{Result, SearchError};
use crate::search::agg_tree::GapPolicy;
use crate::search::pipelines::resolve;

/// One `moving_fn`, its script compiled.
#[derive(Debug, Clone)]
pub(super) struct MovingFn {
    /// Names of the aggregations from the top down to the parent.
    pub(super) parent: Vec<String>,
    pub(super) name: String,
    pub(super) path: String,
    pub(super) window: usize,
    pub(super) shift: i64,
    pub(super) gap_policy: GapPolicy,
    pub(super) script: Compiled,
}

impl MovingFn {
    /// Computes the pipeline over the parent's `buckets`.
    pub(super) fn apply_to(&self, buckets: &mut [Value]) -> Result<()> {
        let own: Vec<Option<f64>> = buckets
            .iter()
            .map(|b| resolve(b, &self.path, self.gap_policy))
            .collect();
        let values: Vec<f64> = own.iter().flatten().copied().collect();
        let mut index = 0i64;
        for (bucket, value) in buckets.iter_mut().zip(&own) {
            if value.is_none() {
                continue;
            }
            let from = clamp(index - self.window as i64 + self.shift, values.len());
            let to = clamp(index + self.shift, values.len());
            let window = &values[from..to.max(from)];
            let out = self
                .script
                .script
                .run(Input {
                    params: Some(&self.script.params),
                    values: Some(window),
                    limits: Limits::default(),
                    ..Input::default()
                })
                .map_err(script_error)?;
            let result = match out.value {
                Value::Number(n) => json!(n.as_f64()),
                Value::Null => Value::Null,
                other => {
                    return Err(SearchError::illegal(format!(
                        "moving_fn script [{}] must return a number, got [{other}]",
                        self.name
                    )))
                }
            };
            if let Value::Object(b) = bucket {
                b.insert(self.name.clone(), json!({ "value": result }));
            }
            index += 1;
        }
        Ok(())
    }
}

/// `i` held within `0..=len`.
fn clamp(i: i64, len: usize) -> usize {
    usize::try_from(i.max(0)).unwrap_or(0).min(len)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};
    use strata_script::Context;

    use super::MovingFn;
    use crate::script::compile;
    use crate::search::agg_tree::GapPolicy;

    fn moving(script: &str, window: usize, shift: i64, gap_policy: GapPolicy) -> Vec<Value> {
        let m = MovingFn {
            parent: vec!["h".into()],
            name: "m".into(),
            path: "s".into(),
            window,
            shift,
            gap_policy,
            script: compile(&json!(script), Context::MovingFn).unwrap(),
        };
        // Sums 1, 4, an empty bucket, 16, 25.
        let mut buckets: Vec<Value> = [(1, 1.0), (1, 4.0), (0, 0.0), (2, 16.0), (1, 25.0)]
            .iter()
            .map(|(n, s)| json!({"doc_count": n, "s": {"value": s}}))
            .collect();
        m.apply_to(&mut buckets).unwrap();
        buckets
            .iter()
            .map(|b| b.get("m").map_or(json!("-"), |m| m["value"].clone()))
            .collect()
    }

    #[test]
    fn windows_move_over_the_values_present() {
        let avg = "MovingFunctions.unweightedAvg(values)";
        // Skip: the empty bucket has no value, and no window holds it.
        let got = moving(avg, 2, 0, GapPolicy::Skip);
        assert_eq!(
            got,
            [json!(null), json!(1.0), json!("-"), json!(2.5), json!(10.0)]
        );
        let got = moving(avg, 2, 1, GapPolicy::Skip);
        assert_eq!(
            got,
            [json!(1.0), json!(2.5), json!("-"), json!(10.0), json!(20.5)]
        );
        let got = moving("MovingFunctions.sum(values)", 3, 0, GapPolicy::InsertZeros);
        assert_eq!(
            got,
            [json!(0.0), json!(1.0), json!(5.0), json!(5.0), json!(20.0)]
        );
        let got = moving("values.size()", 10, 0, GapPolicy::Skip);
        assert_eq!(
            got,
            [json!(0.0), json!(1.0), json!("-"), json!(2.0), json!(3.0)]
        );
    }
}
