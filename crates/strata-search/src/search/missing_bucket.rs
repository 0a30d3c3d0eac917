//! `missing` on `histogram` and `date_histogram`: documents without the
//! field count in the bucket of the `missing` value, as if they held it.
//! tantivy's histogram has no such option, so the bucket that value falls
//! in is computed again by a filter aggregation (named
//! `<name>` + [`FILTER_SUFFIX`]) over "in the bucket's range, or without
//! the field", with the same sub-aggregations, and replaces tantivy's
//! bucket in the reply (sub-aggregations included, so they are exact).
//!
//! With `min_doc_count` 0 the request's `extended_bounds` are widened to
//! the value so the empty buckets up to it exist; if no document lacks the
//! field, the empty buckets that widening alone added are trimmed again.
//! (`terms` takes `missing` natively in tantivy.)

use serde_json::{json, Map, Value};

use crate::error::{Result, SearchError};

/// Appended to an aggregation's name for its missing-bucket filter.
pub const FILTER_SUFFIX: &str = "\u{1e}missing";

/// Where a histogram's `missing` documents go.
#[derive(Debug, Clone, PartialEq)]
pub struct MissingBucket {
    /// Start of the bucket (its key).
    pub start: f64,
    /// End of the bucket (exclusive).
    pub end: f64,
    /// The histogram's `min_doc_count`: below it the bucket is not shown.
    pub min_doc_count: u64,
    /// `extended_bounds` were widened to reach the bucket.
    pub widened: bool,
    /// The keys of the buckets of the `extended_bounds` asked for.
    pub asked: (Option<f64>, Option<f64>),
}

impl MissingBucket {
    /// Takes `missing` out of a numeric `histogram`'s `params` (tantivy
    /// would refuse it) and widens its `extended_bounds` as needed.
    pub fn numeric(name: &str, params: &mut Map<String, Value>) -> Result<Option<MissingBucket>> {
        let Some(missing) = params.remove("missing") else {
            return Ok(None);
        };
        let number = |v: &Value| {
            v.as_f64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
        };
        let bad = |what: &str| {
            SearchError::parsing(format!("[histogram] {what} of [{name}] must be a number"))
        };
        let value = number(&missing).ok_or_else(|| bad("missing"))?;
        let interval = params
            .get("interval")
            .and_then(number)
            .filter(|i| *i > 0.0)
            .ok_or_else(|| bad("interval"))?;
        let offset = params
            .get("offset")
            .map_or(Ok(0.0), |o| number(o).ok_or_else(|| bad("offset")))?;
        let key = |v: f64| ((v - offset) / interval).floor() * interval + offset;
        let bounds = |k: &str| -> (Option<f64>, Option<f64>) {
            let b = params.get(k);
            let edge = |e: &str| b.and_then(|b| b.get(e)).and_then(number);
            (edge("min"), edge("max"))
        };
        let hard = bounds("hard_bounds");
        if hard.0.is_some_and(|lo| value < lo) || hard.1.is_some_and(|hi| value > hi) {
            return Ok(None);
        }
        let extended = bounds("extended_bounds");
        let min_doc_count = params
            .get("min_doc_count")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let widened = min_doc_count == 0;
        if widened {
            let lo = extended.0.map_or(value, |lo| lo.min(value));
            let hi = extended.1.map_or(value, |hi| hi.max(value));
            params.insert("extended_bounds".into(), json!({"min": lo, "max": hi}));
        }
        let start = key(value);
        Ok(Some(MissingBucket {
            start,
            end: start + interval,
            min_doc_count,
            widened,
            asked: (extended.0.map(key), extended.1.map(key)),
        }))
    }

    /// The filter aggregation's query: in the bucket, or without `field`
    /// (dates as epoch milliseconds).
    pub fn query(&self, field: &str, date: bool) -> Value {
        let mut range = json!({"gte": self.start, "lt": self.end});
        if date {
            range =
                json!({"gte": self.start as i64, "lt": self.end as i64, "format": "epoch_millis"});
        }
        json!({"bool": {"minimum_should_match": 1, "should": [
            {"range": {field: range}},
            {"bool": {"must_not": [{"exists": {"field": field}}]}}
        ]}})
    }

    /// Puts the filter's result (`filtered`: `doc_count` and the
    /// sub-aggregations) into the histogram's reply `agg` (after any
    /// reshaping of its keys). A new bucket gets `key` from `key_of` and,
    /// for dates, `key_as_string` from `key_text`.
    pub fn merge(
        &self,
        agg: &mut Value,
        filtered: Value,
        key_of: impl Fn(f64) -> Value,
        key_text: Option<&dyn Fn(f64) -> String>,
    ) {
        let Value::Object(mut filtered) = filtered else {
            return;
        };
        let total = filtered
            .remove("doc_count")
            .and_then(|c| c.as_u64())
            .unwrap_or(0);
        let is_start = |b: &Value| b.get("key").and_then(Value::as_f64) == Some(self.start);
        let keyed = agg.get("buckets").is_some_and(Value::is_object);
        let in_range = buckets_mut(agg)
            .into_iter()
            .find(|b| is_start(b))
            .map(|b| b.get("doc_count").and_then(Value::as_u64).unwrap_or(0));
        if total == in_range.unwrap_or(0) {
            // No document lacks the field.
            if self.widened {
                self.trim(agg);
            }
            return;
        }
        if let Some(bucket) = buckets_mut(agg).into_iter().find(|b| is_start(b)) {
            bucket["doc_count"] = json!(total);
            for (k, v) in filtered {
                bucket[&k] = v;
            }
            return;
        }
        if total < self.min_doc_count.max(1) {
            return;
        }
        let mut bucket = Map::new();
        if let Some(text) = key_text {
            bucket.insert("key_as_string".into(), json!(text(self.start)));
        }
        bucket.insert("key".into(), key_of(self.start));
        bucket.insert("doc_count".into(), json!(total));
        bucket.extend(filtered);
        match agg.get_mut("buckets") {
            Some(Value::Array(list)) => {
                let at = list
                    .iter()
                    .position(|b| {
                        b.get("key")
                            .and_then(Value::as_f64)
                            .is_some_and(|k| k > self.start)
                    })
                    .unwrap_or(list.len());
                list.insert(at, Value::Object(bucket));
            }
            Some(Value::Object(map)) if keyed => {
                let name = key_text.map_or_else(|| self.start.to_string(), |t| t(self.start));
                map.insert(name, Value::Object(bucket));
            }
            _ => {}
        }
    }

    /// Removes the empty edge buckets outside the asked `extended_bounds`
    /// (those only the widening produced).
    fn trim(&self, agg: &mut Value) {
        let Some(Value::Array(list)) = agg.get_mut("buckets") else {
            return;
        };
        let empty = |b: &Value| b.get("doc_count").and_then(Value::as_u64) == Some(0);
        let key = |b: &Value| b.get("key").and_then(Value::as_f64).unwrap_or(0.0);
        while list
            .first()
            .is_some_and(|b| empty(b) && self.asked.0.is_none_or(|lo| key(b) < lo))
        {
            list.remove(0);
        }
        while list
            .last()
            .is_some_and(|b| empty(b) && self.asked.1.is_none_or(|hi| key(b) > hi))
        {
            list.pop();
        }
    }
}

/// A histogram reply's buckets (a list, or an object when `keyed`).
fn buckets_mut(agg: &mut Value) -> Vec<&mut Value> {
    match agg.get_mut("buckets") {
        Some(Value::Array(list)) => list.iter_mut().collect(),
        Some(Value::Object(map)) => map.values_mut().collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(params: Value) -> (Option<MissingBucket>, Map<String, Value>) {
        let mut params = params.as_object().unwrap().clone();
        (MissingBucket::numeric("h", &mut params).unwrap(), params)
    }

    #[test]
    fn numeric_bucket_and_widening() {
        let (m, params) =
            histogram(json!({"field": "n", "interval": 10, "offset": 5, "missing": 42}));
        let m = m.unwrap();
        assert_eq!((m.start, m.end, m.widened), (35.0, 45.0, true));
        assert!(!params.contains_key("missing"));
        assert_eq!(params["extended_bounds"], json!({"min": 42.0, "max": 42.0}));
        let (m, params) = histogram(json!({"interval": 10, "missing": -1, "min_doc_count": 1}));
        assert_eq!(m.unwrap().start, -10.0);
        assert!(!params.contains_key("extended_bounds"));
        let (m, _) =
            histogram(json!({"interval": 10, "missing": 99, "hard_bounds": {"min": 0, "max": 50}}));
        assert_eq!(m, None);
        let mut bad = json!({"interval": 10, "missing": "x"})
            .as_object()
            .unwrap()
            .clone();
        assert!(MissingBucket::numeric("h", &mut bad).is_err());
    }

    #[test]
    fn merge_replaces_inserts_or_trims() {
        let m = MissingBucket {
            start: 20.0,
            end: 30.0,
            min_doc_count: 0,
            widened: true,
            asked: (None, None),
        };
        let buckets = json!({"buckets": [
            {"key": 0.0, "doc_count": 2}, {"key": 10.0, "doc_count": 0}, {"key": 20.0, "doc_count": 0}]});
        let mut agg = buckets.clone();
        m.merge(
            &mut agg,
            json!({"doc_count": 3, "avg": {"value": 1.5}}),
            |k| json!(k),
            None,
        );
        assert_eq!(
            agg["buckets"][2],
            json!({"key": 20.0, "doc_count": 3, "avg": {"value": 1.5}})
        );
        // Nothing missing: the widened empty buckets go again.
        let mut agg = buckets;
        m.merge(&mut agg, json!({"doc_count": 0}), |k| json!(k), None);
        assert_eq!(agg["buckets"], json!([{"key": 0.0, "doc_count": 2}]));
        // min_doc_count > 0: a bucket tantivy left out is inserted in order.
        let m = MissingBucket {
            min_doc_count: 1,
            widened: false,
            ..m
        };
        let mut agg =
            json!({"buckets": [{"key": 0.0, "doc_count": 2}, {"key": 40.0, "doc_count": 1}]});
        m.merge(
            &mut agg,
            json!({"doc_count": 4}),
            |k| json!(k as i64),
            Some(&|k: f64| format!("at {k}")),
        );
        assert_eq!(
            agg["buckets"][1],
            json!({"key_as_string": "at 20", "key": 20, "doc_count": 4})
        );
    }
}
