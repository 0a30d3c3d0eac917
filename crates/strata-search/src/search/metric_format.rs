//! The `*_as_string` values of the single- and multi-value numeric
//! metrics (`min`, `max`, `avg`, `sum`, `stats`, `extended_stats`), as
//! Elasticsearch 8 writes them: in the aggregation's `format` (a Java
//! `DecimalFormat` pattern on a number field), and always on a date field
//! (its `format`, else the field's). Without either, a number field's
//! metric has no string, as Elasticsearch's raw format writes none.
//!
//! When Elasticsearch writes them (`InternalMin` ... `InternalExtendedStats`):
//! `min`/`max` and `avg` only when they have a value, `sum` always, the
//! stats' every value but `count` only when `count` is not 0, the
//! extended stats' `std_deviation_bounds` as an object of strings.

use serde_json::{Map, Value};

use super::decimal_format::DecimalFormat;
use crate::mapping::date::DateFormat;

/// How a metric's values are written.
#[derive(Debug, Clone)]
pub enum MetricFormat {
    /// A date field's: epoch milliseconds written as dates (UTC).
    Date(DateFormat),
    /// A number field's `format` pattern.
    Number(DecimalFormat),
}

impl MetricFormat {
    fn text(&self, value: f64) -> String {
        match self {
            MetricFormat::Date(format) => format.format_in(value as i64, 0, "Z"),
            MetricFormat::Number(format) => format.format(value),
        }
    }

    /// Adds the strings to `agg`, the result of the `kind` metric.
    pub fn write(&self, kind: &str, agg: &mut Value) {
        let Some(out) = agg.as_object_mut() else {
            return;
        };
        match kind {
            "min" | "max" | "avg" | "sum" => {
                if let Some(v) = out.get("value").and_then(Value::as_f64) {
                    out.insert("value_as_string".into(), Value::from(self.text(v)));
                }
            }
            "stats" | "extended_stats"
                if out.get("count").and_then(Value::as_u64).unwrap_or(0) > 0 =>
            {
                self.write_stats(out);
            }
            _ => {}
        }
    }

    fn write_stats(&self, out: &mut Map<String, Value>) {
        let mut strings: Vec<(String, Value)> = Vec::new();
        for (key, value) in out.iter() {
            if key == "count" || key.ends_with("_as_string") {
                continue;
            }
            if let Some(v) = value.as_f64() {
                strings.push((format!("{key}_as_string"), Value::from(self.text(v))));
            } else if let Some(bounds) = value.as_object() {
                let written: Map<String, Value> = bounds
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), Value::from(self.text(v.as_f64()?)))))
                    .collect();
                strings.push((format!("{key}_as_string"), Value::Object(written)));
            }
        }
        out.extend(strings);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn number(pattern: &str) -> MetricFormat {
        MetricFormat::Number(DecimalFormat::parse(pattern).unwrap())
    }

    #[test]
    fn single_values_are_written_when_elasticsearch_writes_them() {
        let f = number("0.00");
        let mut avg = json!({"value": 5.5});
        f.write("avg", &mut avg);
        assert_eq!(avg, json!({"value": 5.5, "value_as_string": "5.50"}));
        // No value (no document): no string.
        let mut min = json!({"value": null});
        f.write("min", &mut min);
        assert_eq!(min, json!({"value": null}));
        let mut sum = json!({"value": 0.0});
        f.write("sum", &mut sum);
        assert_eq!(sum["value_as_string"], "0.00");
        // Counts and unknown kinds are left alone.
        let mut count = json!({"value": 3});
        f.write("value_count", &mut count);
        assert_eq!(count, json!({"value": 3}));
    }

    #[test]
    fn stats_strings_skip_count_and_empty_results() {
        let f = number("#,##0.0");
        let mut stats =
            json!({"count": 2, "min": 1000.0, "max": 2500.25, "avg": 1750.125, "sum": 3500.25});
        f.write("stats", &mut stats);
        assert_eq!(stats["min_as_string"], "1,000.0");
        assert_eq!(stats["max_as_string"], "2,500.2");
        assert_eq!(stats["sum_as_string"], "3,500.2");
        assert!(stats.get("count_as_string").is_none());
        let mut ext =
            json!({"count": 1, "min": 1.0, "std_deviation_bounds": {"upper": 2.0, "lower": 0.0}});
        f.write("extended_stats", &mut ext);
        assert_eq!(
            ext["std_deviation_bounds_as_string"],
            json!({"upper": "2.0", "lower": "0.0"})
        );
        let mut empty = json!({"count": 0, "min": null, "max": null, "avg": null, "sum": 0.0});
        f.write("stats", &mut empty);
        assert!(empty.get("sum_as_string").is_none());
    }
}
