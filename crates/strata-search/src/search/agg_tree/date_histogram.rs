//! [`DateHistogramParams`]: a `date_histogram` aggregation's parameters,
//! typed when the request is parsed: the interval (calendar or fixed, in
//! either spelling), `time_zone`, `offset`, `format`, `min_doc_count`,
//! `keyed`, and `missing` and the bounds as written (numbers are epoch
//! milliseconds; date-math text is read later, with the field's mapped
//! format and the search's "now": `DateHistogram::resolve`). Any other key,
//! or a value of the wrong kind, is refused in the words translation used.

use serde_json::{Map, Value};

use super::source::{checked_field, object_of};
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::search::calendar::{CalendarUnit, MAX_MILLIS};
use crate::search::time_zone::TimeZone;

/// Every zone's offset from UTC is a whole number of these (since 1970).
const QUARTER_HOUR: i64 = 900_000;

/// A date as a request writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum DateValue {
    /// Epoch milliseconds (a JSON number).
    Millis(i64),
    /// Date math (`now-1d/d`) or a date in the format.
    Math(String),
}

/// The parameters of one `date_histogram` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct DateHistogramParams {
    /// The date field.
    pub field: String,
    /// `calendar_interval` (or `interval` naming a calendar unit).
    pub unit: Option<CalendarUnit>,
    /// `fixed_interval` (or `interval` naming a length), in milliseconds;
    /// 0 with a calendar unit.
    pub fixed: i64,
    /// The zone buckets start in.
    pub time_zone: TimeZone,
    /// `offset` in milliseconds.
    pub offset: i64,
    /// `format`, when the request names one (else the field's).
    pub format: Option<DateFormat>,
    /// Buckets with fewer documents are not shown.
    pub min_doc_count: u64,
    /// Buckets keyed by `key_as_string` (else a list).
    pub keyed: bool,
    /// The date documents without the field count at.
    pub missing: Option<DateValue>,
    /// `extended_bounds` (min, max).
    pub extended: (Option<DateValue>, Option<DateValue>),
    /// `hard_bounds` (min, max).
    pub hard: (Option<DateValue>, Option<DateValue>),
}

impl DateHistogramParams {
    /// The parameters `body` of the `date_histogram` aggregation `name`,
    /// which must name its field (and no script).
    pub fn parse_body(name: &str, body: &Value) -> Result<Self> {
        let params = object_of("date_histogram", name, body)?;
        checked_field(name, params)?;
        let field = params
            .get("field")
            .and_then(Value::as_str)
            .unwrap_or_default();
        DateHistogramParams::parse(name, field, params)
    }

    /// The parameters `params` of `date_histogram` `name` on `field`
    /// (`field` is read by the caller; a `field` key is skipped here).
    pub fn parse(name: &str, field: &str, params: &Map<String, Value>) -> Result<Self> {
        let bad = |k: &str, v: &Value| {
            SearchError::illegal(format!(
                "[date_histogram] parameter [{k}] with value [{v}] of [{name}] is not supported"
            ))
        };
        let mut out = DateHistogramParams {
            field: field.to_string(),
            unit: None,
            fixed: 0,
            time_zone: TimeZone::UTC,
            offset: 0,
            format: None,
            min_doc_count: 0,
            keyed: false,
            missing: None,
            extended: (None, None),
            hard: (None, None),
        };
        if let Some(tz) = params.get("time_zone") {
            out.time_zone = TimeZone::parse(tz.as_str().ok_or_else(|| bad("time_zone", tz))?)?;
        }
        if let Some(f) = params.get("format") {
            out.format = Some(DateFormat::parse(
                f.as_str().ok_or_else(|| bad("format", f))?,
            )?);
        }
        for (k, v) in params {
            let text = v.as_str().unwrap_or_default();
            match k.as_str() {
                "field" | "time_zone" | "format" => {}
                "min_doc_count" => out.min_doc_count = v.as_u64().ok_or_else(|| bad(k, v))?,
                "missing" => {
                    out.missing = Some(match v {
                        Value::Number(n) => DateValue::Millis(n.as_f64().ok_or_else(|| bad(k, v))? as i64),
                        Value::String(s) => DateValue::Math(s.clone()),
                        _ => return Err(bad(k, v)),
                    })
                }
                "keyed" => out.keyed = v.as_bool().ok_or_else(|| bad(k, v))?,
                "offset" => out.offset = parse_offset(v).ok_or_else(|| bad(k, v))?,
                "calendar_interval" => {
                    out.unit = Some(CalendarUnit::parse(text).ok_or_else(|| {
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
                    out.fixed = fixed_interval(text).ok_or_else(|| {
                        SearchError::illegal(format!(
                            "failed to parse setting [date_histogram.fixedInterval] with value [{text}] as a time value: unit is missing or unrecognized"
                        ))
                    })?
                }
                "interval" => match CalendarUnit::parse(text) {
                    Some(u) => out.unit = Some(u),
                    None => out.fixed = fixed_interval(text).ok_or_else(|| bad(k, v))?,
                },
                "extended_bounds" | "hard_bounds" => {
                    let b = v
                        .as_object()
                        .ok_or_else(|| SearchError::parsing(format!("[{k}] must be an object")))?;
                    let edge = |e: &str| -> Result<Option<DateValue>> {
                        match b.get(e) {
                            None | Some(Value::Null) => Ok(None),
                            Some(Value::Number(n)) => {
                                Ok(n.as_f64().map(|f| DateValue::Millis(f as i64)))
                            }
                            Some(Value::String(s)) => Ok(Some(DateValue::Math(s.clone()))),
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
        if out.unit.is_some() == (out.fixed > 0) {
            return Err(SearchError::illegal(
                "Required one of fields [fixed_interval, calendar_interval], but none were specified.",
            ));
        }
        Ok(out)
    }

    /// Whether the buckets must be computed as calendar ranges (between
    /// the data's bounds), not as a millisecond histogram.
    pub fn by_ranges(&self) -> bool {
        let (unit, fixed) = (self.unit, self.fixed);
        let constant = unit
            .map_or(Some(fixed), CalendarUnit::fixed_millis)
            .is_some();
        // A constant interval that divides a quarter hour has the same
        // bucket starts in every zone (offsets are whole quarter hours), so
        // a zone with daylight saving needs no calendar ranges for it.
        let zone_free = constant
            && QUARTER_HOUR % fixed.max(1) == 0
            && unit.is_none_or(|u| u.fixed_millis().is_some_and(|ms| QUARTER_HOUR % ms == 0));
        !(constant && (self.time_zone.is_fixed() || zone_free))
    }
}

/// A fixed interval (`90m`, `1d`) in milliseconds.
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

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{DateHistogramParams, DateValue};
    use crate::error::Result;
    use crate::search::agg_tree::tests::{assert_refusals, typed};
    use crate::search::agg_tree::TypedParams;
    use crate::search::calendar::CalendarUnit;

    fn parsed(params: Value) -> Result<DateHistogramParams> {
        match typed("d", "date_histogram", params)? {
            TypedParams::DateHistogram(d) => Ok(d),
            other => panic!("typed as {other:?}"),
        }
    }

    #[test]
    fn parameters_are_typed_and_dates_kept_as_written() {
        let d = parsed(
            json!({"field": "ts", "calendar_interval": "month", "time_zone": "+02:00",
            "offset": "-1h", "min_doc_count": 1, "keyed": true, "missing": "now-1d/d",
            "extended_bounds": {"min": 0, "max": "2020-01-01"}, "hard_bounds": {"max": null}}),
        )
        .unwrap();
        assert_eq!(d.field, "ts");
        assert_eq!(
            (d.unit, d.fixed, d.offset),
            (Some(CalendarUnit::Month), 0, -3_600_000)
        );
        assert_eq!(
            (d.min_doc_count, d.keyed, d.format.is_none()),
            (1, true, true)
        );
        assert_eq!(d.missing, Some(DateValue::Math("now-1d/d".into())));
        assert_eq!(
            d.extended,
            (
                Some(DateValue::Millis(0)),
                Some(DateValue::Math("2020-01-01".into()))
            )
        );
        assert_eq!(d.hard, (None, None));
        assert!(d.by_ranges(), "months are calendar ranges");
        let hours = parsed(json!({"field": "ts", "fixed_interval": "90m"})).unwrap();
        assert_eq!((hours.unit, hours.fixed), (None, 5_400_000));
        assert!(!hours.by_ranges());
        let legacy = parsed(json!({"field": "ts", "interval": "1d", "format": "yyyy"})).unwrap();
        assert_eq!(legacy.unit, Some(CalendarUnit::Day));
        assert!(legacy.format.is_some());
    }

    #[test]
    fn bad_parameters_are_refused_at_parse() {
        let cases = [
            (
                json!({"field": "ts"}),
                "Required one of fields [fixed_interval, calendar_interval], but none were specified.",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "ts", "fixed_interval": "1x"}),
                "failed to parse setting [date_histogram.fixedInterval] with value [1x] as a time value: unit is missing or unrecognized",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "ts", "interval": "1d", "keyed": "yes"}),
                "[date_histogram] parameter [keyed] with value [\"yes\"] of [d] is not supported",
                "illegal_argument_exception",
            ),
            (
                json!({"field": "ts", "interval": "1d", "hard_bounds": 3}),
                "[hard_bounds] must be an object",
                "parsing_exception",
            ),
            (
                json!({"calendar_interval": "day"}),
                "Required one of fields [field, script], but none were specified (aggregation [d])",
                "illegal_argument_exception",
            ),
        ];
        assert_refusals("d", "date_histogram", &cases);
        let err = parsed(json!({"field": "ts", "calendar_interval": "fortnight"})).unwrap_err();
        assert_eq!(err.es_type(), "x_content_parse_exception");
    }
}
