//! `percentiles` computed by a scan, at any depth: a numeric, date or
//! boolean field's values of the matching documents (and `missing`) in a
//! [`SpanDigest`](crate::search::percentiles::SpanDigest) (exact up to
//! 2,000 values, then within 0.4% of each value's distance from the
//! data's smallest), read as Elasticsearch's t-digest reads them. Only
//! a top-level numeric `percentiles` without `missing` or `format` is
//! left to the pass's own collector (`percentiles::split`, the same
//! digest read by blocks); see [`here`].
//!
//! The reply is Elasticsearch 8's: values as doubles (a date's as epoch
//! milliseconds), keyed by percent (`"50.0"`) or a list of `{key,
//! value}`; with a `format` (always on a date field, whose own format
//! applies) each also written: `"50.0_as_string"`, `value_as_string`;
//! `null` values and no strings when no document had a value.

use serde_json::Value;

use super::env::ScanEnv;
use super::field_values::FieldMetric;
use super::percent_values::render;
use crate::error::Result;
use crate::mapping::{FieldType, Mappings};
use crate::search::agg_tree::PercentilesParams;
use crate::search::percentiles::SpanDigest;

/// Whether the `percentiles` `params` at nesting level `depth` is
/// computed here: all but a top-level one on a mapped numeric field
/// with neither `missing` nor `format` (the pass's collector takes it).
pub(crate) fn here(depth: usize, params: &PercentilesParams, mappings: &Mappings) -> bool {
    let numeric = mappings
        .leaf(&params.field)
        .is_some_and(|l| l.ty.is_numeric() && l.ty != FieldType::Date);
    let plain = params.missing.is_none() && params.format.is_none();
    !(depth == 1 && numeric && plain)
}

/// A parsed `percentiles` computed here.
pub(crate) struct Percentiles {
    name: String,
    params: PercentilesParams,
    metric: FieldMetric,
}

impl Percentiles {
    /// The percentiles `params` asks for, over the field `mappings` maps
    /// (a keyword, ip or text field is refused).
    pub(crate) fn new(
        name: &str,
        params: &PercentilesParams,
        mappings: &Mappings,
    ) -> Result<Percentiles> {
        let metric = FieldMetric::new(
            "percentiles",
            name,
            &params.field,
            mappings,
            params.format.as_deref(),
            params.missing.as_ref(),
        )?;
        Ok(Percentiles {
            name: name.to_string(),
            params: params.clone(),
            metric,
        })
    }

    pub(crate) fn run(self, env: &ScanEnv<'_>) -> Result<Value> {
        let digest = self.metric.scan(env, &self.name)?;
        Ok(self.render(&digest))
    }

    /// The field this reads.
    pub(crate) fn metric(&self) -> &FieldMetric {
        &self.metric
    }

    /// The reply of `digest`'s values.
    pub(crate) fn render(&self, digest: &SpanDigest) -> Value {
        let values = digest.percentiles(&self.params.percents);
        let text = |v: f64| self.metric.text(v).unwrap_or_default();
        let text: Option<&dyn Fn(f64) -> String> = self.metric.writes_text().then_some(&text);
        render(&self.params.percents, &values, self.params.keyed, text)
    }
}
