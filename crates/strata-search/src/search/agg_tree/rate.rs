//! [`RateParams`]: the `rate` aggregation (Elasticsearch 8's, x-pack
//! analytics): a bucket's documents, or the sum or count of a numeric
//! field's values in it, per `unit` of time of the enclosing
//! `date_histogram` bucket.
//!
//! The divisor is the bucket's length in `unit`s, as Elasticsearch's
//! `Rounding.roundingSize` gives it ([`RateDivisor`]): a fixed interval or
//! a calendar unit up to a week over a rate unit up to a week is a
//! constant ratio (a calendar day is 24 hours here, as there); a month,
//! quarter or year over another of them a ratio of months; a month-based
//! bucket over a rate unit up to a week its own length, so only directly
//! under the histogram. Without `unit` the divisor is 1. The mixes
//! Elasticsearch refuses are refused in its words, when the request is
//! parsed (Elasticsearch finds them when it builds a bucket's result, so
//! it answers an empty result without the error).
//!
//! Where it may sit is checked once the tree is parsed
//! (`resolve_rates` in the tree's module): under a `date_histogram` (the nearest one counts);
//! under a `composite` it is refused (Elasticsearch takes one with a
//! `date_histogram` source; Strata does not yet).

use serde_json::Value;

use super::date_histogram::DateHistogramParams;
use super::source::{field_name, number, object_of, unknown_key};
use crate::error::{Result, SearchError};
use crate::search::calendar::{CalendarUnit, Rounding};

const KIND: &str = "rate";

/// What a rate counts in a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RateMode {
    /// The documents (no `field`).
    Documents,
    /// The sum of the field's values (`mode: sum`, the default).
    Sum,
    /// The number of the field's values (`mode: value_count`).
    ValueCount,
}

/// What a bucket's total is divided by.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RateDivisor {
    /// Not placed yet (the tree's check fills it in).
    Unplaced,
    /// The same for every bucket.
    Constant(f64),
    /// The length of the bucket (from its key to the next bucket's start
    /// under `rounding`), in units of `unit_ms` milliseconds.
    BucketLength { rounding: Rounding, unit_ms: f64 },
}

impl RateDivisor {
    /// The divisor for the bucket whose key is `key` (the date
    /// histogram's bucket directly above, for [`RateDivisor::BucketLength`]).
    pub fn for_bucket(&self, key: Option<i64>) -> Option<f64> {
        match *self {
            RateDivisor::Unplaced => None,
            RateDivisor::Constant(c) => Some(c),
            RateDivisor::BucketLength { rounding, unit_ms } => {
                let key = key?;
                Some((rounding.next(key) - key) as f64 / unit_ms)
            }
        }
    }
}

/// The parameters of one `rate` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct RateParams {
    /// The numeric field (`None`: documents are counted).
    pub field: Option<String>,
    /// What a document without a value of the field counts as.
    pub missing: Option<f64>,
    /// `unit`, when given.
    pub unit: Option<CalendarUnit>,
    /// What is counted.
    pub mode: RateMode,
    /// Set when the tree is checked (`resolve_rates`).
    pub divisor: RateDivisor,
}

impl RateParams {
    /// The parameters `body` of the `rate` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<RateParams> {
        let (mut field, mut missing, mut unit, mut mode) = (None, None, None, None);
        for (key, value) in object_of(KIND, name, body)? {
            match key.as_str() {
                "field" => field = Some(field_name(KIND, name, value)?),
                "missing" => missing = Some(number(KIND, name, key, value)?),
                "unit" => {
                    let text = value.as_str().unwrap_or_default();
                    unit = Some(CalendarUnit::parse(text).ok_or_else(|| {
                        SearchError::illegal(format!("Unsupported unit {}", value_text(value)))
                    })?);
                }
                "mode" => {
                    mode = Some(match value.as_str().map(str::to_ascii_lowercase).as_deref() {
                        Some("sum") => RateMode::Sum,
                        Some("value_count") => RateMode::ValueCount,
                        _ => {
                            return Err(SearchError::illegal(format!(
                                "No enum constant org.elasticsearch.xpack.analytics.rate.RateMode.{}",
                                value_text(value).to_ascii_uppercase()
                            )))
                        }
                    });
                }
                "script" => return Err(SearchError::illegal("scripts are not supported")),
                "format" | "value_type" => {
                    return Err(SearchError::illegal(format!(
                        "[{key}] of [rate] aggregation [{name}] is not supported by this server"
                    )))
                }
                other => return Err(unknown_key(KIND, other)),
            }
        }
        let mode = match (&field, mode) {
            (None, Some(_)) => {
                return Err(SearchError::illegal(
                    "The mode parameter is only supported with field or script",
                ))
            }
            (None, None) => RateMode::Documents,
            (Some(_), mode) => mode.unwrap_or(RateMode::Sum),
        };
        Ok(RateParams {
            field,
            missing,
            unit,
            mode,
            divisor: RateDivisor::Unplaced,
        })
    }
}

fn value_text(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_string)
}

/// Elasticsearch's short name of a unit, as its errors write it.
fn short_name(unit: CalendarUnit) -> &'static str {
    match unit {
        CalendarUnit::Second => "second",
        CalendarUnit::Minute => "minute",
        CalendarUnit::Hour => "hour",
        CalendarUnit::Day => "day",
        CalendarUnit::Week => "week",
        CalendarUnit::Month => "month",
        CalendarUnit::Quarter => "quarter",
        CalendarUnit::Year => "year",
    }
}

/// A month-based unit's length in months.
fn months(unit: CalendarUnit) -> Option<f64> {
    match unit {
        CalendarUnit::Month => Some(1.0),
        CalendarUnit::Quarter => Some(3.0),
        CalendarUnit::Year => Some(12.0),
        _ => None,
    }
}

/// The divisor of a rate in `unit` under the histogram `h`; `direct` when
/// the histogram is the rate's parent.
pub(super) fn divisor(
    h: &DateHistogramParams,
    unit: Option<CalendarUnit>,
    direct: bool,
) -> Result<RateDivisor> {
    let Some(unit) = unit else {
        return Ok(RateDivisor::Constant(1.0));
    };
    let rate = short_name(unit);
    let Some(interval) = h.unit else {
        // A fixed interval.
        return match unit.fixed_millis() {
            Some(ms) => Ok(RateDivisor::Constant(h.fixed as f64 / ms as f64)),
            None => Err(SearchError::illegal(format!(
                "Cannot use month-based rate unit [{rate}] with fixed interval based histogram, only week, day, hour, minute and second are supported for this histogram"
            ))),
        };
    };
    let histogram = short_name(interval);
    match (interval.fixed_millis(), unit.fixed_millis(), months(interval), months(unit)) {
        (Some(i), Some(u), _, _) => Ok(RateDivisor::Constant(i as f64 / u as f64)),
        (Some(_), None, _, _) => Err(SearchError::illegal(format!(
            "Cannot use month-based rate unit [{rate}] with non-month based calendar interval histogram [{histogram}] only week, day, hour, minute and second are supported for this histogram"
        ))),
        (None, _, Some(i), Some(u)) => Ok(RateDivisor::Constant(i / u)),
        (None, Some(u), _, None) if direct => Ok(RateDivisor::BucketLength {
            rounding: Rounding {
                unit: h.unit,
                fixed: h.fixed,
                tz: h.time_zone,
                offset: h.offset,
            },
            unit_ms: u as f64,
        }),
        _ => Err(SearchError::illegal(format!(
            "Cannot use non month-based rate unit [{rate}] with calendar interval histogram [{histogram}] only month, quarter and year are supported for this histogram"
        ))),
    }
}

#[cfg(test)]
#[path = "rate_tests.rs"]
mod tests;
