//! `percentile_ranks`: the share of the matching documents' values at or
//! below each requested value, at any depth. Every value of a
//! multi-valued field counts; `missing` stands in for a document without
//! one. The values go to the digest `percentiles` uses
//! ([`SpanDigest`](crate::search::percentiles::SpanDigest): exact up to
//! 2,000 values, then within 0.4% of each value's distance from the
//! data's smallest; `field_values.rs` reads the field, its `format` and
//! `missing`), and a rank is read from it as Elasticsearch 8.15's
//! t-digest reads one (`percentiles/sorting.rs` for exact values, then
//! `tdigest.rs`): 1, 51, 101 and 151 rank 50 at 25 and 100 at 50. Keyword and ip fields are refused in
//! Elasticsearch's words.
//!
//! The reply is Elasticsearch 8's (`percent_values.rs`): `values` keyed
//! by the value as Java prints a double (`"50.0"`), or a list of `{key,
//! value}`; a rank is `null` when no document had a value; on a date
//! field each rank also comes formatted as a date (`<key>_as_string`,
//! `value_as_string`), as Elasticsearch formats any value of a date
//! field's metric with the aggregation's or the field's format, a rank
//! of 37 reading `1970-01-01T00:00:00.037Z`; on a number, only with a
//! `format`.
//!
//! Memory: the digest's bytes are reserved on the search's account.

use serde_json::Value;

use super::env::ScanEnv;
use super::field_values::FieldMetric;
use super::percent_values::render;
use crate::error::Result;
use crate::mapping::Mappings;
use crate::search::agg_tree::PercentileRanksParams;
use crate::search::percentiles::SpanDigest;

/// A parsed `percentile_ranks` over the mapping.
pub(crate) struct PercentileRanks {
    params: PercentileRanksParams,
    metric: FieldMetric,
}

impl PercentileRanks {
    /// The ranks `params` (of the aggregation `name`) asks for, over the
    /// field's type in `mappings`.
    pub(crate) fn new(
        name: &str,
        params: &PercentileRanksParams,
        mappings: &Mappings,
    ) -> Result<PercentileRanks> {
        let metric = FieldMetric::new(
            "percentile_ranks",
            name,
            &params.field,
            mappings,
            params.format.as_deref(),
            params.missing.as_ref(),
        )?;
        Ok(PercentileRanks {
            params: params.clone(),
            metric,
        })
    }

    pub(crate) fn run(self, env: &ScanEnv<'_>, name: &str) -> Result<Value> {
        let digest = self.metric.scan(env, name)?;
        Ok(self.render(&digest))
    }

    /// The field this reads.
    pub(crate) fn metric(&self) -> &FieldMetric {
        &self.metric
    }

    /// The reply of `digest`'s ranks.
    pub(crate) fn render(&self, digest: &SpanDigest) -> Value {
        let values = &self.params.values;
        let ranks = digest.percent_ranks(values);
        let text = |rank: f64| self.metric.text(rank).unwrap_or_default();
        let text: Option<&dyn Fn(f64) -> String> = self.metric.writes_text().then_some(&text);
        render(values, &ranks, self.params.keyed, text)
    }
}
