//! `percentile_ranks`: the share of the matching documents' values at or
//! below each requested value. Every value of a multi-valued field
//! counts; `missing` stands in for a document without one. Numeric and
//! boolean fields are ranked in the log histogram `percentiles` uses
//! (`percentiles::percent_rank` says how a rank is read from it); a date
//! field in a [`SpanDigest`](crate::search::percentiles::SpanDigest)
//! (exact up to 2,000 values, then within 0.4% of each date's distance
//! from the field's smallest; the histogram alone would keep a date
//! within about 80 days), its `values` epoch milliseconds and `missing` a
//! date or millis (`date_values.rs`). Keyword and ip fields are refused
//! in Elasticsearch's words.
//!
//! The reply is Elasticsearch 8's (`percent_values.rs`): `values` keyed
//! by the value as Java prints a double (`"50.0"`), or a list of `{key,
//! value}`; a rank is `null` when no document had a value; on a date
//! field each rank also comes formatted as a date (`<key>_as_string`,
//! `value_as_string`), as Elasticsearch formats any value of a date
//! field's metric with the aggregation's or the field's format, a rank
//! of 37 reading `1970-01-01T00:00:00.037Z`.
//!
//! Memory: one histogram per part, bounded by its construction (at most
//! 2^18 counts per sign); a date digest's bytes are reserved on the
//! search's account.

use serde_json::Value;

use super::date_values::DateMetric;
use super::env::ScanEnv;
use super::percent_values::render;
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::agg_tree::PercentileRanksParams;
use crate::search::percentiles::{percent_rank, LogHistogram};

/// A parsed `percentile_ranks` over the mapping.
pub(crate) struct PercentileRanks {
    params: PercentileRanksParams,
    /// `None`: the field is unmapped (only `missing` values count).
    kind: Option<ValueKind>,
    /// On a date field: its format and `missing` as millis.
    date: Option<DateMetric>,
    /// Elsewhere: `missing` as a number.
    missing: Option<f64>,
}

impl PercentileRanks {
    /// The ranks `params` (of the aggregation `name`) asks for, over the
    /// field's type in `mappings`.
    pub(crate) fn new(
        name: &str,
        params: &PercentileRanksParams,
        mappings: &Mappings,
    ) -> Result<PercentileRanks> {
        let kind = ValueKind::of(mappings, &params.field, "percentile_ranks")?;
        let leaf = mappings.leaf(&params.field);
        if kind == Some(ValueKind::Str) {
            let ty = leaf.map_or("keyword", |l| l.ty.name());
            return Err(SearchError::illegal(format!(
                "Field [{}] of type [{ty}] is not supported for aggregation [percentile_ranks]",
                params.field
            )));
        }
        let (date, missing) = match leaf.filter(|_| kind == Some(ValueKind::Date)) {
            Some(leaf) => {
                let format = params.format.as_deref();
                let date = DateMetric::new(&params.field, leaf, format, params.missing.as_ref())?;
                (Some(date), None)
            }
            None => {
                let missing = params.missing.as_ref();
                let number = missing.map(|m| m.number("percentile_ranks", name));
                (None, number.transpose()?)
            }
        };
        Ok(PercentileRanks {
            params: params.clone(),
            kind,
            date,
            missing,
        })
    }

    pub(crate) fn run(self, env: &ScanEnv<'_>, name: &str) -> Result<Value> {
        let values = &self.params.values;
        if let Some(date) = &self.date {
            let ranks = date.scan(env, name)?.percent_ranks(values);
            let text = |rank: f64| date.text(rank);
            return Ok(render(values, &ranks, self.params.keyed, Some(&text)));
        }
        let histogram = if self.kind.is_none() && self.missing.is_none() {
            LogHistogram::default()
        } else {
            let scan = Ranked {
                field: self.params.field.clone(),
                kind: self.kind,
                missing: self.missing,
            };
            env.scan(env.query, scan)?
        };
        let ranks: Vec<_> = values
            .iter()
            .map(|&v| percent_rank(&histogram, v))
            .collect();
        Ok(render(values, &ranks, self.params.keyed, None))
    }
}

/// The scan of a field that is not a date: its values (or `missing`)
/// into a histogram.
struct Ranked {
    field: String,
    kind: Option<ValueKind>,
    missing: Option<f64>,
}

impl Scan for Ranked {
    type Acc = LogHistogram;

    fn fields(&self) -> Vec<(String, ValueKind)> {
        // An unmapped field reads as absent, whatever the kind.
        vec![(self.field.clone(), self.kind.unwrap_or(ValueKind::Double))]
    }

    fn doc(&self, values: &[Vec<Key>], acc: &mut LogHistogram) {
        if values[0].is_empty() {
            if let Some(m) = self.missing {
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
