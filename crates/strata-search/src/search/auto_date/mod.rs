//! `auto_date_histogram`: a date histogram whose interval is chosen so
//! that at most `buckets` buckets cover the data, as Elasticsearch 8's
//! final reduce chooses it, then computed as a calendar `date_histogram`
//! ([`DateHistogram`], as ranges) so sub-aggregations and pipelines work
//! as under any date histogram.
//!
//! The choice needs only the data's bounds under the query (the min/max
//! pass calendar histograms already use), with `missing` among them when
//! some document lacks the field. For a single shard Elasticsearch ends
//! on the finest rounding (from `minimum_interval` on, [`LEVELS`]) where
//! both hold:
//!
//! - the buckets from the first date's to the last's, empty ones
//!   included, number at most `buckets` times the rounding's largest inner
//!   interval (the reduce's merge after filling empty buckets);
//! - the distance between the first and last date (rounded to the finest
//!   rounding) is at most `buckets` times the rounding's rough length times
//!   that inner interval (the shard collector's promotion; it compares the
//!   keys it held when promoting, so in rare orders its distance is up to
//!   one unit shorter than this one);
//!
//! or on the last rounding (years). More buckets than `buckets` are then
//! merged by the first inner interval that brings them within it, runs of
//! that many units counted from the first bucket; `interval` names the
//! unit and run length (`7d`). Without data: no bucket, `1` and the first
//! rounding's letter (`1s`).

mod levels;

use std::collections::HashMap;

pub use levels::{level_named, widest_inner, LEVELS};

use super::agg_tree::{AggNode, AutoDateHistogramParams, DateValue, TypedParams};
use super::calendar::Rounding;
use super::date_histogram::DateHistogram;
use super::time_zone::TimeZone;
use crate::error::{Result, SearchError};
use crate::mapping::date::{DateFormat, DEFAULT_DATE_FORMAT};
use crate::mapping::{FieldType, Mappings};
use crate::query::date_math;

/// The rounding chosen: an index in [`LEVELS`], and the units per bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The level.
    pub level: usize,
    /// The inner interval (1: no merge).
    pub group: i64,
}

fn rounding(level: usize, tz: TimeZone) -> Rounding {
    Rounding {
        unit: Some(LEVELS[level].unit),
        fixed: 0,
        tz,
        offset: 0,
    }
}

/// The buckets of `r` from the one holding `lo` to the one holding `hi`,
/// counted up to `cap + 1` (the count only matters up to a limit; the
/// walk stays bounded for any span).
fn count(r: &Rounding, lo: i64, hi: i64, cap: i64) -> i64 {
    let last = r.round_down(hi);
    let mut start = r.round_down(lo);
    let mut n = 1;
    while start < last && n <= cap {
        start = r.next(start);
        n += 1;
    }
    n
}

/// The rounding for the target `buckets` from level `first` on, in zone
/// `tz`, over data from `lo` to `hi` (`None`: no data).
pub fn choose(first: usize, buckets: i64, tz: TimeZone, data: Option<(i64, i64)>) -> Choice {
    let last = LEVELS.len() - 1;
    let first = first.min(last);
    let Some((lo, hi)) = data else {
        return Choice {
            level: first,
            group: 1,
        };
    };
    let finest = rounding(first, tz);
    let span = finest.round_down(hi) - finest.round_down(lo);
    for (level, l) in LEVELS.iter().enumerate().skip(first) {
        // At most 65,536 * 100 buckets times a year's milliseconds: no
        // overflow (`buckets` is within the parse's ceiling).
        let limit = buckets * l.widest();
        let n = count(&rounding(level, tz), lo, hi, limit);
        if (n <= limit && span <= limit * l.rough) || level == last {
            let group = if n > buckets {
                let fits = |m: &i64| (n + m - 1) / m <= buckets;
                l.inner.iter().copied().find(fits).unwrap_or(1)
            } else {
                1
            };
            return Choice { level, group };
        }
    }
    Choice {
        level: last,
        group: 1,
    }
}

/// The fields of the (top-level) `auto_date_histogram`s of `aggs` with
/// `missing`: whether any document lacks them decides whether `missing`
/// is a date of the data.
pub fn missing_fields(aggs: &[AggNode]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for node in aggs {
        if let TypedParams::AutoDateHistogram(p) = &node.typed {
            if p.missing.is_some() && !out.contains(&p.field) {
                out.push(p.field.clone());
            }
        }
    }
    out
}

/// The date histogram `params` asks for over the field's mapping at
/// `now`, given the field's bounds under the query (`bounds`) and how
/// many documents of it lack the field (`missing_docs`); and the bounds
/// of its dates (`missing` among them when it counts).
pub fn resolve(
    params: &AutoDateHistogramParams,
    mappings: &Mappings,
    now: i64,
    bounds: &HashMap<String, (i64, i64)>,
    missing_docs: &HashMap<String, u64>,
) -> Result<(DateHistogram, Option<(i64, i64)>)> {
    let field = &params.field;
    let leaf = mappings.leaf(field);
    if let Some(l) = leaf.filter(|l| l.ty != FieldType::Date) {
        return Err(SearchError::illegal(format!(
            "Field [{field}] of type [{}] is not supported for aggregation [auto_date_histogram]",
            l.ty.name()
        )));
    }
    let format = match (&params.format, leaf) {
        (Some(f), _) => f.clone(),
        (None, Some(l)) => l.date_format(),
        (None, None) => DateFormat::parse(DEFAULT_DATE_FORMAT)?,
    };
    let tz = params.time_zone;
    let missing = match &params.missing {
        None => None,
        Some(DateValue::Millis(ms)) => Some(*ms),
        Some(DateValue::Math(s)) => Some(date_math::eval(s, now, tz, &format, false)?),
    };
    // `missing` counts only when some document lacks the field: then it
    // is a date of the data like any other.
    let missing = missing.filter(|_| missing_docs.get(field).is_some_and(|n| *n > 0));
    let mut data = bounds.get(field).copied();
    if let Some(m) = missing {
        data = Some(data.map_or((m, m), |(lo, hi)| (lo.min(m), hi.max(m))));
    }
    let choice = choose(params.first_level, params.buckets, tz, data);
    let level = &LEVELS[choice.level];
    let r = rounding(choice.level, tz);
    let histogram = DateHistogram::auto(
        field,
        r,
        format,
        missing,
        (choice.group, data.map_or(0, |(lo, _)| r.round_down(lo))),
        format!("{}{}", choice.group, level.letter),
    );
    Ok((histogram, data))
}

#[cfg(test)]
mod tests;
