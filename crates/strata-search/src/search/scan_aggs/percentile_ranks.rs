//! `percentile_ranks`: the share of the matching documents' values at or
//! below each requested value, from the log histogram `percentiles` uses
//! (`percentiles::percent_rank` says how a rank is read from it). Every
//! value of a multi-valued field counts; `missing` stands in for a
//! document without one. Numeric and boolean fields are taken; keyword
//! and ip fields are refused in Elasticsearch's words, and date fields
//! (which Elasticsearch takes) by this server: the histogram keeps a
//! value within 0.4% of itself, about 100 days for today's dates in
//! millis. The rendering of date ranks (below) is kept for when dates are
//! sketched relative to their span.
//!
//! The reply is Elasticsearch 8's: `values` keyed by the value as Java
//! prints a double (`"50.0"`), or a list of `{key, value}`; a rank is
//! `null` when no document had a value; on a date field each rank also
//! comes formatted as a date (`<key>_as_string`, `value_as_string`), as
//! Elasticsearch formats it with the field's format.
//!
//! Memory: one histogram per part, bounded by its construction (at most
//! 2^18 counts per sign).

use serde_json::{json, Map, Value};

use super::env::ScanEnv;
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::date::format_millis;
use crate::mapping::Mappings;
use crate::search::agg_tree::PercentileRanksParams;
use crate::search::java_double::java_double;
use crate::search::percentiles::{percent_rank, LogHistogram};

/// A parsed `percentile_ranks` over the mapping.
pub(crate) struct PercentileRanks {
    params: PercentileRanksParams,
    /// `None`: the field is unmapped (only `missing` values count).
    kind: Option<ValueKind>,
}

impl PercentileRanks {
    /// The ranks `params` asks for, over the field's type in `mappings`.
    pub(crate) fn new(
        params: &PercentileRanksParams,
        mappings: &Mappings,
    ) -> Result<PercentileRanks> {
        let kind = ValueKind::of(mappings, &params.field, "percentile_ranks")?;
        if kind == Some(ValueKind::Str) {
            let ty = mappings
                .leaf(&params.field)
                .map_or("keyword", |l| l.ty.name());
            return Err(SearchError::illegal(format!(
                "Field [{}] of type [{ty}] is not supported for aggregation [percentile_ranks]",
                params.field
            )));
        }
        // The histogram keeps a value within 0.4% of itself: for a date in
        // millis that is a bucket about 100 days wide, so every rank of a
        // recent date would be a guess. Refused until dates are sketched
        // relative to their span.
        if kind == Some(ValueKind::Date) {
            return Err(SearchError::illegal(format!(
                "[percentile_ranks] on date field [{}] is not supported by this server: its sketch is not precise enough for dates",
                params.field
            )));
        }
        Ok(PercentileRanks {
            params: params.clone(),
            kind,
        })
    }

    pub(crate) fn run(self, env: &ScanEnv<'_>) -> Result<Value> {
        let histogram = if self.kind.is_none() && self.params.missing.is_none() {
            LogHistogram::default()
        } else {
            env.scan(env.query, Ranked(self.params.clone(), self.kind))?
        };
        Ok(self.render(&histogram))
    }

    /// The reply over the values counted in `histogram`.
    fn render(&self, histogram: &LogHistogram) -> Value {
        let date = self.kind == Some(ValueKind::Date);
        let ranks = self.params.values.iter().map(|&v| {
            let rank = percent_rank(histogram, v);
            let text = rank.filter(|_| date).map(|r| format_millis(r as i64));
            (v, rank, text)
        });
        let values = if self.params.keyed {
            let mut out = Map::new();
            for (v, rank, text) in ranks {
                let key = java_double(v);
                let text_key = format!("{key}_as_string");
                out.insert(key, rank.map_or(Value::Null, |r| json!(r)));
                if let Some(text) = text {
                    out.insert(text_key, json!(text));
                }
            }
            Value::Object(out)
        } else {
            ranks
                .map(|(v, rank, text)| {
                    let mut entry = Map::new();
                    entry.insert("key".into(), json!(v));
                    entry.insert("value".into(), rank.map_or(Value::Null, |r| json!(r)));
                    if let Some(text) = text {
                        entry.insert("value_as_string".into(), json!(text));
                    }
                    Value::Object(entry)
                })
                .collect()
        };
        json!({ "values": values })
    }
}

/// The scan: the field's values (or `missing`) into a histogram.
struct Ranked(PercentileRanksParams, Option<ValueKind>);

impl Scan for Ranked {
    type Acc = LogHistogram;

    fn fields(&self) -> Vec<(String, ValueKind)> {
        // An unmapped field reads as absent, whatever the kind.
        vec![(self.0.field.clone(), self.1.unwrap_or(ValueKind::Double))]
    }

    fn doc(&self, values: &[Vec<Key>], acc: &mut LogHistogram) {
        if values[0].is_empty() {
            if let Some(m) = self.0.missing {
                acc.add(m);
            }
            return;
        }
        values[0]
            .iter()
            .filter_map(Key::num)
            .for_each(|v| acc.add(v));
    }

    fn merge(&self, into: &mut LogHistogram, part: LogHistogram) {
        into.merge(&part);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(keyed: bool, kind: ValueKind) -> PercentileRanks {
        PercentileRanks {
            params: PercentileRanksParams {
                field: "f".into(),
                values: vec![50.0, 99.0],
                keyed,
                missing: None,
            },
            kind: Some(kind),
        }
    }

    fn histogram() -> LogHistogram {
        let mut h = LogHistogram::default();
        [1.0, 51.0, 101.0, 151.0].iter().for_each(|&v| h.add(v));
        h
    }

    #[test]
    fn keyed_and_unkeyed_shapes() {
        let keyed = ranks(true, ValueKind::Long).render(&histogram());
        let values = keyed["values"].as_object().unwrap();
        assert_eq!(values.keys().collect::<Vec<_>>(), ["50.0", "99.0"]);
        assert!((values["50.0"].as_f64().unwrap() - 37.0).abs() < 0.5);
        let list = ranks(false, ValueKind::Long).render(&histogram());
        assert_eq!(list["values"][0]["key"], json!(50.0));
        assert_eq!(list["values"][1]["key"], json!(99.0));
        assert!((list["values"][1]["value"].as_f64().unwrap() - 61.5).abs() < 0.5);
        assert!(list["values"][0].get("value_as_string").is_none());
    }

    #[test]
    fn no_values_rank_null_and_dates_add_strings() {
        let empty = ranks(true, ValueKind::Date).render(&LogHistogram::default());
        assert_eq!(empty, json!({"values": {"50.0": null, "99.0": null}}));
        let dates = ranks(false, ValueKind::Date).render(&histogram());
        // The rank (about 37) formatted as epoch milliseconds, as
        // Elasticsearch's date format formats any value.
        let rank = percent_rank(&histogram(), 50.0).unwrap();
        assert!((36.0..38.0).contains(&rank));
        let text = dates["values"][0]["value_as_string"].as_str().unwrap();
        assert_eq!(text, format_millis(rank as i64));
        assert!(text.starts_with("1970-01-01T00:00:00.03"));
        let keyed = ranks(true, ValueKind::Date).render(&histogram());
        let rank = percent_rank(&histogram(), 99.0).unwrap();
        assert_eq!(
            keyed["values"]["99.0_as_string"],
            format_millis(rank as i64)
        );
    }
}
