//! `percentiles` of a date field, at any depth: the matching documents'
//! dates (and `missing`) in a [`SpanDigest`](crate::search::percentiles::SpanDigest)
//! (exact up to 2,000 values, then within 0.4% of each date's distance
//! from the field's smallest), read as Elasticsearch's t-digest reads
//! them. A numeric field's percentiles are not taken here (they stay in
//! tantivy's pass, with Strata's own collector at the top level:
//! `percentiles::split`); see [`here`].
//!
//! The reply is Elasticsearch 8's: values as epoch milliseconds
//! (doubles), keyed by percent (`"50.0"`) or a list of `{key, value}`,
//! each with its date written in the aggregation's `format` (else the
//! field's): `"50.0_as_string"`, `value_as_string`; `null` values and no
//! strings when no document had a value.

use serde_json::Value;

use super::date_values::DateMetric;
use super::env::ScanEnv;
use super::percent_values::render;
use crate::error::{Result, SearchError};
use crate::mapping::{FieldType, Mappings};
use crate::search::agg_tree::PercentilesParams;

/// Whether the `percentiles` `params` is computed here: on a mapped date
/// field.
pub(crate) fn here(params: &PercentilesParams, mappings: &Mappings) -> bool {
    mappings
        .leaf(&params.field)
        .is_some_and(|l| l.ty == FieldType::Date)
}

/// A parsed `percentiles` on a date field.
pub(crate) struct DatePercentiles {
    name: String,
    params: PercentilesParams,
    metric: DateMetric,
}

impl DatePercentiles {
    /// The percentiles `params` asks for, over the date field `mappings`
    /// maps (the caller checked it with [`here`]).
    pub(crate) fn new(
        name: &str,
        params: &PercentilesParams,
        mappings: &Mappings,
    ) -> Result<DatePercentiles> {
        let leaf = mappings
            .leaf(&params.field)
            .filter(|l| l.ty == FieldType::Date)
            .ok_or_else(|| {
                SearchError::illegal(format!(
                    "[percentiles] aggregation [{name}] on field [{}] is computed here only for a date field",
                    params.field
                ))
            })?;
        let metric = DateMetric::new(
            &params.field,
            leaf,
            params.format.as_deref(),
            params.missing.as_ref(),
        )?;
        Ok(DatePercentiles {
            name: name.to_string(),
            params: params.clone(),
            metric,
        })
    }

    pub(crate) fn run(self, env: &ScanEnv<'_>) -> Result<Value> {
        let digest = self.metric.scan(env, &self.name)?;
        let values = digest.percentiles(&self.params.percents);
        let text = |v: f64| self.metric.text(v);
        Ok(render(
            &self.params.percents,
            &values,
            self.params.keyed,
            Some(&text),
        ))
    }
}
