//! `date_histogram`'s parameters parsed into a [`DateHistogram`]: the
//! interval (calendar or fixed), zone, offset, bounds and format, and
//! whether the buckets must be computed as calendar ranges.

use serde_json::{Map, Value};

use super::DateHistogram;
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::mapping::{FieldType, Mappings};
use crate::query::date_math;
use crate::search::calendar::{CalendarUnit, Rounding, MAX_MILLIS};
use crate::search::time_zone::TimeZone;

/// Every zone's offset from UTC is a whole number of these (since 1970).
const QUARTER_HOUR: i64 = 900_000;

fn fixed_interval(text: &str) -> Option<i64> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (n, unit) = text.split_at(split);
    let n: i64 = n.parse().ok().filter(|n| *n > 0)?;
    let ms = match unit {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return None,
    };
    n.checked_mul(ms).filter(|ms| *ms <= MAX_MILLIS)
}

/// `offset`: `+1h`, `-30m`, or milliseconds.
fn parse_offset(v: &Value) -> Option<i64> {
    if let Some(n) = v.as_i64() {
        return (n.abs() <= MAX_MILLIS).then_some(n);
    }
    let text = v.as_str()?.trim();
    let (sign, rest) = match text.strip_prefix('-') {
        Some(r) => (-1, r),
        None => (1, text.strip_prefix('+').unwrap_or(text)),
    };
    fixed_interval(rest).map(|ms| sign * ms)
}

impl DateHistogram {
    /// Parses the parameters of `date_histogram` `name` on `field`.
    pub fn parse(
        name: &str,
        field: &str,
        params: &Map<String, Value>,
        mappings: &Mappings,
        now: i64,
    ) -> Result<DateHistogram> {
        let bad = |k: &str, v: &Value| {
            SearchError::illegal(format!(
                "[date_histogram] parameter [{k}] with value [{v}] of [{name}] is not supported"
            ))
        };
        let leaf = mappings.leaf(field);
        let mut format = leaf
            .filter(|l| l.ty == FieldType::Date)
            .map(|l| l.date_format())
            .unwrap_or(DateFormat::parse(
                crate::mapping::date::DEFAULT_DATE_FORMAT,
            )?);
        let mut tz = TimeZone::UTC;
        let (mut unit, mut fixed, mut offset) = (None, 0, 0);
        let mut out = DateHistogram {
            field: field.to_string(),
            rounding: Rounding {
                unit: None,
                fixed: 0,
                tz,
                offset: 0,
            },
            min_doc_count: 0,
            extended: (None, None),
            hard: (None, None),
            keyed: false,
            format: format.clone(),
            by_ranges: false,
            missing: None,
        };
        if let Some(tz_text) = params.get("time_zone") {
            tz = TimeZone::parse(tz_text.as_str().ok_or_else(|| bad("time_zone", tz_text))?)?;
        }
        if let Some(f) = params.get("format") {
            format = DateFormat::parse(f.as_str().ok_or_else(|| bad("format", f))?)?;
        }
        for (k, v) in params {
            let text = v.as_str().unwrap_or_default();
            match k.as_str() {
                "field" | "time_zone" | "format" => {}
                "min_doc_count" => out.min_doc_count = v.as_u64().ok_or_else(|| bad(k, v))?,
                "missing" => {
                    out.missing = Some(match v {
                        Value::Number(n) => n.as_f64().ok_or_else(|| bad(k, v))? as i64,
                        Value::String(s) => date_math::eval(s, now, tz, &format, false)?,
                        _ => return Err(bad(k, v)),
                    })
                }
                "keyed" => out.keyed = v.as_bool().ok_or_else(|| bad(k, v))?,
                "offset" => offset = parse_offset(v).ok_or_else(|| bad(k, v))?,
                "calendar_interval" => {
                    unit = Some(CalendarUnit::parse(text).ok_or_else(|| {
                        SearchError::field_parse(
                            "date_histogram",
                            "calendar_interval",
                            SearchError::illegal(format!(
                                "The supplied interval [{text}] could not be parsed as a calendar interval."
                            )),
                        )
                    })?)
                }
                "fixed_interval" => {
                    fixed = fixed_interval(text).ok_or_else(|| {
                        SearchError::illegal(format!(
                            "failed to parse setting [date_histogram.fixedInterval] with value [{text}] as a time value: unit is missing or unrecognized"
                        ))
                    })?
                }
                "interval" => match CalendarUnit::parse(text) {
                    Some(u) => unit = Some(u),
                    None => fixed = fixed_interval(text).ok_or_else(|| bad(k, v))?,
                },
                "extended_bounds" | "hard_bounds" => {
                    let b = v
                        .as_object()
                        .ok_or_else(|| SearchError::parsing(format!("[{k}] must be an object")))?;
                    let edge = |e: &str| -> Result<Option<i64>> {
                        match b.get(e) {
                            None | Some(Value::Null) => Ok(None),
                            Some(Value::Number(n)) => Ok(n.as_f64().map(|f| f as i64)),
                            Some(Value::String(s)) => {
                                date_math::eval(s, now, tz, &format, false).map(Some)
                            }
                            Some(other) => Err(bad(k, other)),
                        }
                    };
                    let bounds = (edge("min")?, edge("max")?);
                    if k == "extended_bounds" {
                        out.extended = bounds;
                    } else {
                        out.hard = bounds;
                    }
                }
                _ => return Err(bad(k, v)),
            }
        }
        if unit.is_some() == (fixed > 0) {
            return Err(SearchError::illegal(
                "Required one of fields [fixed_interval, calendar_interval], but none were specified.",
            ));
        }
        out.rounding = Rounding {
            unit,
            fixed,
            tz,
            offset,
        };
        out.format = format;
        let constant = unit
            .map_or(Some(fixed), CalendarUnit::fixed_millis)
            .is_some();
        // A constant interval that divides a quarter hour has the same
        // bucket starts in every zone (offsets are whole quarter hours), so
        // a zone with daylight saving needs no calendar ranges for it.
        let zone_free = constant
            && QUARTER_HOUR % fixed.max(1) == 0
            && unit.is_none_or(|u| u.fixed_millis().is_some_and(|ms| QUARTER_HOUR % ms == 0));
        out.by_ranges = !(constant && (tz.is_fixed() || zone_free));
        Ok(out)
    }
}
