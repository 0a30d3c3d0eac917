//! [`CompositeSource`]: one entry of a `composite`'s `sources`, typed when
//! the request is parsed: `{<name>: {<type>: {...}}}` with a `terms`,
//! `histogram` (`interval`, a positive number) or `date_histogram`
//! (`calendar_interval`, `fixed_interval` or `interval`, `time_zone`,
//! `offset`, `format`: [`DateHistogramParams`]) type, and the keys every
//! type takes: `field` (required), `order` (`asc` or `desc`),
//! `missing_bucket` (a boolean), `missing_order` (`first`, `last` or
//! `default`: first when ascending, last when descending) and
//! `value_type` (accepted, unused). The field's type, and whether it fits
//! the source's type, are the scan's to judge against the mapping.

use serde_json::Value;

use super::date_histogram::DateHistogramParams;
use super::source::{check_keys, field_param};
use crate::error::{Result, SearchError};

/// The keys every source type takes.
const COMMON: [&str; 5] = [
    "field",
    "order",
    "missing_bucket",
    "missing_order",
    "value_type",
];

/// The keys of a `date_histogram` source beyond [`COMMON`].
const DATE_HISTOGRAM: [&str; 6] = [
    "calendar_interval",
    "fixed_interval",
    "interval",
    "time_zone",
    "offset",
    "format",
];

/// How a source turns values into keys.
#[derive(Debug, Clone, PartialEq)]
pub enum Grouping {
    /// Each value is its own key.
    Terms,
    /// Values rounded down to a multiple of the interval (positive, finite).
    Histogram(f64),
    /// Dates rounded down to their interval's start; whether the request
    /// names a `format` (keys are then written formatted).
    DateHistogram(Box<DateHistogramParams>, bool),
}

/// Where `null` keys (of `missing_bucket`) sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NullOrder {
    First,
    Last,
}

/// One of a `composite`'s `sources`.
#[derive(Debug, Clone, PartialEq)]
pub struct CompositeSource {
    /// The name its key has in a bucket's `key` (and in `after`).
    pub name: String,
    /// The field whose values make the keys.
    pub field: String,
    /// How values become keys.
    pub grouping: Grouping,
    /// `order: desc`.
    pub descending: bool,
    /// Whether documents without a value get a `null` key.
    pub missing_bucket: bool,
    /// Where `null` keys sort (`missing_order`, resolved).
    pub nulls: NullOrder,
}

impl CompositeSource {
    /// The entry `entry` of `sources` of the composite `agg`.
    pub(super) fn parse(agg: &str, entry: &Value) -> Result<CompositeSource> {
        let (name, body) = match entry.as_object().map(|o| (o.len(), o.iter().next())) {
            Some((1, Some((name, body)))) => (name.clone(), body),
            _ => {
                return Err(SearchError::parsing(format!(
                    "[composite] sources of [{agg}] must be objects with one named source each"
                )))
            }
        };
        let (ty, params) = match body.as_object().map(|o| (o.len(), o.iter().next())) {
            Some((1, Some((ty, params)))) => (ty.as_str(), params),
            _ => {
                return Err(SearchError::parsing(format!(
                    "[composite] source [{name}] of [{agg}] must have one type"
                )))
            }
        };
        let field = field_param(agg, "composite", params)?.to_string();
        let grouping = match ty {
            "terms" => {
                check_keys(agg, "composite", params, &COMMON)?;
                Grouping::Terms
            }
            "histogram" => {
                check_keys(
                    agg,
                    "composite",
                    params,
                    &[&COMMON[..], &["interval"]].concat(),
                )?;
                let interval = params
                    .get("interval")
                    .and_then(Value::as_f64)
                    .filter(|i| *i > 0.0 && i.is_finite())
                    .ok_or_else(|| {
                        SearchError::illegal(format!(
                            "[interval] must be a positive number in [histogram] source [{name}] of [{agg}]"
                        ))
                    })?;
                Grouping::Histogram(interval)
            }
            "date_histogram" => date_histogram(agg, &name, &field, params)?,
            other => {
                return Err(SearchError::parsing(format!(
                    "Invalid source type: [{other}] in [{agg}]"
                )))
            }
        };
        let descending = match params.get("order") {
            None | Some(Value::Null) => false,
            Some(Value::String(o)) if o == "asc" => false,
            Some(Value::String(o)) if o == "desc" => true,
            Some(o) => {
                return Err(SearchError::parsing(format!(
                    "Unknown order [{}] in source [{name}] of [{agg}]",
                    text(o)
                )))
            }
        };
        let missing_bucket = match params.get("missing_bucket") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(v) => {
                return Err(SearchError::parsing(format!(
                    "[missing_bucket] must be a boolean, got [{v}]"
                )))
            }
        };
        let nulls = match params.get("missing_order") {
            None | Some(Value::Null) => default_nulls(descending),
            Some(Value::String(o)) => match o.as_str() {
                "default" => default_nulls(descending),
                "first" => NullOrder::First,
                "last" => NullOrder::Last,
                _ => return Err(unknown_missing_order(agg, &name, o)),
            },
            Some(o) => return Err(unknown_missing_order(agg, &name, &o.to_string())),
        };
        Ok(CompositeSource {
            name,
            field,
            grouping,
            descending,
            missing_bucket,
            nulls,
        })
    }
}

/// The grouping of the `date_histogram` source `name` of `agg` on `field`.
fn date_histogram(agg: &str, name: &str, field: &str, params: &Value) -> Result<Grouping> {
    let mut own = params.as_object().cloned().unwrap_or_default();
    own.retain(|k, _| k == "field" || !COMMON.contains(&k.as_str()));
    if let Some(k) = own
        .keys()
        .find(|k| *k != "field" && !DATE_HISTOGRAM.contains(&k.as_str()))
    {
        return Err(SearchError::parsing(format!(
            "[date_histogram] unknown field [{k}] in source [{name}] of [{agg}]"
        )));
    }
    let formatted = own.contains_key("format");
    let params = DateHistogramParams::parse(agg, field, &own)?;
    Ok(Grouping::DateHistogram(Box::new(params), formatted))
}

/// Where `null` keys sort by default: first ascending, last descending.
fn default_nulls(descending: bool) -> NullOrder {
    if descending {
        NullOrder::Last
    } else {
        NullOrder::First
    }
}

/// A value as an error quotes it: a string's text, else its JSON.
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

fn unknown_missing_order(agg: &str, name: &str, order: &str) -> SearchError {
    SearchError::parsing(format!(
        "Unknown missing_order [{order}] in source [{name}] of [{agg}]"
    ))
}
