//! `range` on a numeric field: the ends of each range (numbers, or strings
//! of numbers) converted and sorted, one tantivy aggregation per range,
//! gathered back by [`range_buckets`](super::range_buckets). Buckets are
//! written as Elasticsearch writes them: `from`/`to` as doubles, the
//! default key of the ends as Java writes a double (`*-100.0`,
//! `100.0-200.0`, `200.0-*`), or in `format` when one is given, which
//! also adds `from_as_string`/`to_as_string`. `missing`: documents
//! without the field count in each range holding the value
//! (`range_buckets`; sub-aggregations included).

use serde_json::{json, Value};

use super::agg_tree::{RangeEdge, RangeParams};
use super::decimal_format::DecimalFormat;
use super::java_double::java_double;
use super::range_buckets::{self, default_key, Bounds, FieldRanges};
use crate::error::{Result, SearchError};

/// A parsed numeric `range`.
#[derive(Debug, Clone)]
pub struct NumberRange {
    /// The numeric field's ranges and `missing`.
    pub ranges: FieldRanges,
    format: Option<DecimalFormat>,
    keyed: bool,
}

impl NumberRange {
    /// The numeric `range` `name` of parameters `params`: its ends as
    /// finite numbers (else the error), its `format` as a decimal pattern.
    pub fn parse(name: &str, params: &RangeParams) -> Result<NumberRange> {
        let missing = params
            .missing
            .as_ref()
            .map(|m| missing_number(name, m))
            .transpose()?;
        let mut ranges = Vec::with_capacity(params.ranges.len());
        for r in &params.ranges {
            ranges.push(Bounds {
                key: r.key.clone(),
                from: number_end(name, "from", &r.from)?,
                to: number_end(name, "to", &r.to)?,
                or_missing: false,
            });
        }
        let format = params
            .format
            .as_deref()
            .map(DecimalFormat::parse)
            .transpose()?;
        Ok(NumberRange {
            ranges: FieldRanges::new(&params.field, false, ranges, missing),
            format,
            keyed: params.keyed(),
        })
    }

    fn text(&self, v: f64) -> String {
        match &self.format {
            Some(f) => f.format(v),
            None => java_double(v),
        }
    }

    /// Writes `r`'s `key`, `from`/`to` (and their strings when formatted)
    /// into `bucket`.
    fn write(&self, r: &Bounds, bucket: &mut Value) {
        let from = r.from.map(|f| self.text(f));
        let to = r.to.map(|t| self.text(t));
        let key = r
            .key
            .clone()
            .unwrap_or_else(|| default_key(from.as_deref(), to.as_deref()));
        bucket["key"] = json!(key);
        for (k, v, text) in [("from", r.from, from), ("to", r.to, to)] {
            if let (Some(v), Some(text)) = (v, text) {
                bucket[k] = json!(v);
                if self.format.is_some() {
                    bucket[format!("{k}_as_string")] = json!(text);
                }
            }
        }
    }

    /// Gathers the per-range results of `name` in `result` into
    /// Elasticsearch's buckets (their sub-aggregations are then fixed as
    /// any bucket aggregation's).
    pub fn reshape(&self, result: &mut Value, name: &str) -> Result<()> {
        range_buckets::gather(
            result,
            name,
            &self.ranges.ranges,
            self.keyed,
            |r, b| self.write(r, b),
            |_| Ok(()),
        )
    }
}

impl NumberRange {
    /// After the buckets' sub-aggregations and pipelines: keyed buckets
    /// lose their `key` (Elasticsearch writes it only as the bucket's
    /// name; it was kept until here for what reads the buckets).
    pub fn finish(&self, agg: &mut Value) {
        if !self.keyed {
            return;
        }
        if let Some(Value::Object(buckets)) = agg.get_mut("buckets") {
            for b in buckets.values_mut() {
                if let Some(b) = b.as_object_mut() {
                    b.remove("key");
                }
            }
        }
    }
}

/// `missing` of the range `name` as a finite number (a number, or a
/// string of one, as Elasticsearch reads it).
fn missing_number(name: &str, m: &Value) -> Result<f64> {
    let n = match m {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    n.filter(|n| n.is_finite()).ok_or_else(|| {
        SearchError::parsing(format!(
            "[range] [missing] [{m}] of [{name}] is not a number"
        ))
    })
}

/// The end `which` of a range of `name` as a finite number.
fn number_end(name: &str, which: &str, e: &Option<RangeEdge>) -> Result<Option<f64>> {
    let Some(e) = e else {
        return Ok(None);
    };
    e.number()
        .filter(|n| n.is_finite())
        .map(Some)
        .ok_or_else(|| {
            let written = match e {
                RangeEdge::Number(n) => n.to_string(),
                RangeEdge::Text(s) => s.clone(),
            };
            SearchError::parsing(format!(
                "[range] [{which}] [{written}] of [{name}] is not a number"
            ))
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::mapping::Mappings;
    use crate::search::agg_tree::{AggKind, RangeParams};

    fn parsed(body: Value) -> NumberRange {
        let p = RangeParams::parse(AggKind::Range, "r", &body).unwrap();
        NumberRange::parse("r", &p).unwrap()
    }

    #[test]
    fn ends_are_checked() {
        let p = RangeParams::parse(
            AggKind::Range,
            "r",
            &json!({"field": "n", "ranges": [{"from": "x"}]}),
        )
        .unwrap();
        let err = NumberRange::parse("r", &p).unwrap_err();
        assert_eq!(err.to_string(), "[range] [from] [x] of [r] is not a number");
    }

    #[test]
    fn sorted_gathered_and_keyed_as_elasticsearch() {
        let r = parsed(json!({"field": "n", "ranges": [
            {"from": 200}, {"from": "100", "to": 200}, {"to": 100}, {"to": 50, "key": "low"}]}));
        let reqs = r.ranges.tantivy_requests("a", &Mappings::default(), 0);
        assert_eq!(reqs.len(), 4);
        assert_eq!(
            reqs[0].1["range"]["ranges"],
            json!([{"key": "r", "to": 50.0}])
        );
        // Tantivy's answer for part 0 only; the others answered nothing.
        let mut result = json!({"a\u{1f}0": {"buckets": [
            {"key": "r", "doc_count": 3, "to": 50.0, "s": {"value": 1.0}}]}});
        r.reshape(&mut result, "a").unwrap();
        assert_eq!(
            result,
            json!({"a": {"buckets": [
                {"key": "low", "to": 50.0, "doc_count": 3, "s": {"value": 1.0}},
                {"key": "*-100.0", "to": 100.0, "doc_count": 0},
                {"key": "100.0-200.0", "from": 100.0, "to": 200.0, "doc_count": 0},
                {"key": "200.0-*", "from": 200.0, "doc_count": 0},
            ]}})
        );
    }

    #[test]
    fn formatted_and_keyed() {
        let r = parsed(json!({"field": "n", "keyed": true, "format": "0.00",
            "ranges": [{"from": 1.5, "to": 3}]}));
        let mut result = json!({});
        r.reshape(&mut result, "a").unwrap();
        assert_eq!(
            result,
            json!({"a": {"buckets": {"1.50-3.00": {"key": "1.50-3.00", "doc_count": 0,
                "from": 1.5, "from_as_string": "1.50", "to": 3.0, "to_as_string": "3.00"}}}})
        );
    }
}
