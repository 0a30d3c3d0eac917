//! A `composite` source (`terms`, `histogram` or `date_histogram`): its
//! parameters, the keys its values fall in, their order (`asc`/`desc`,
//! `null` first or last), and how a key is read from `after`, written in a
//! bucket and turned into the filter of its documents.

use std::cmp::Ordering;

use serde_json::{json, Value};

use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::date_histogram::DateHistogram;
use crate::search::scan_aggs::params::{check_keys, field_param};
use crate::search::scan_aggs::values::{Key, Num, ValueKind};

/// How a source turns values into keys.
pub(super) enum Grouping {
    Terms,
    Histogram(f64),
    DateHistogram(Box<DateHistogram>, bool),
}

/// Where `null` keys sort.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NullOrder {
    First,
    Last,
}

/// One of `sources`.
pub(super) struct Source {
    /// The name its key has in a bucket's `key`.
    pub(super) name: String,
    pub(super) field: String,
    /// The kind of the field's values.
    pub(super) kind: ValueKind,
    pub(super) grouping: Grouping,
    descending: bool,
    /// Whether documents without a value get a `null` key.
    pub(super) missing_bucket: bool,
    nulls: NullOrder,
}

impl Source {
    /// Parses the entry of `sources` of composite `agg`.
    pub(super) fn parse(agg: &str, entry: &Value, mappings: &Mappings) -> Result<Source> {
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
        let common = [
            "field",
            "order",
            "missing_bucket",
            "missing_order",
            "value_type",
        ];
        let field = field_param(agg, "composite", params)?.to_string();
        let kind = ValueKind::of(mappings, &field, agg)?.unwrap_or(ValueKind::Str);
        let grouping = match ty {
            "terms" => {
                check_keys(agg, "composite", params, &common)?;
                Grouping::Terms
            }
            "histogram" => {
                check_keys(
                    agg,
                    "composite",
                    params,
                    &[&common[..], &["interval"]].concat(),
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
                if kind == ValueKind::Str {
                    return Err(SearchError::illegal(format!(
                        "Field [{field}] of type [keyword] is not supported for aggregation [histogram]"
                    )));
                }
                Grouping::Histogram(interval)
            }
            "date_histogram" => {
                let mut own = params.as_object().cloned().unwrap_or_default();
                for k in common {
                    if k != "field" {
                        own.remove(k);
                    }
                }
                for k in own.keys() {
                    let known = [
                        "field",
                        "calendar_interval",
                        "fixed_interval",
                        "interval",
                        "time_zone",
                        "offset",
                        "format",
                    ];
                    if !known.contains(&k.as_str()) {
                        return Err(SearchError::parsing(format!(
                            "[date_histogram] unknown field [{k}] in source [{name}] of [{agg}]"
                        )));
                    }
                }
                let formatted = own.contains_key("format");
                let h = DateHistogram::parse(agg, &field, &own, mappings, 0)?;
                if kind != ValueKind::Date && mappings.leaf(&field).is_some() {
                    return Err(SearchError::illegal(format!(
                        "Field [{field}] is not a date field, as [date_histogram] source [{name}] needs"
                    )));
                }
                Grouping::DateHistogram(Box::new(h), formatted)
            }
            other => {
                return Err(SearchError::parsing(format!(
                    "Invalid source type: [{other}] in [{agg}]"
                )))
            }
        };
        let descending = match params.get("order").and_then(Value::as_str) {
            None | Some("asc") => false,
            Some("desc") => true,
            Some(o) => {
                return Err(SearchError::parsing(format!(
                    "Unknown order [{o}] in source [{name}] of [{agg}]"
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
        let nulls = match params.get("missing_order").and_then(Value::as_str) {
            None | Some("default") => {
                if descending {
                    NullOrder::Last
                } else {
                    NullOrder::First
                }
            }
            Some("first") => NullOrder::First,
            Some("last") => NullOrder::Last,
            Some(o) => {
                return Err(SearchError::parsing(format!(
                    "Unknown missing_order [{o}] in source [{name}] of [{agg}]"
                )))
            }
        };
        Ok(Source {
            name,
            field,
            kind,
            grouping,
            descending,
            missing_bucket,
            nulls,
        })
    }

    /// The keys a value falls in.
    pub(super) fn key(&self, value: &Key) -> Option<Key> {
        match &self.grouping {
            Grouping::Terms => Some(value.clone()),
            Grouping::Histogram(interval) => {
                let v = value.num()?;
                Some(Key::Num(Num((v / interval).floor() * interval)))
            }
            Grouping::DateHistogram(h, _) => {
                let v = value.num()? as i64;
                Some(Key::Num(Num(h.rounding.round_down(v) as f64)))
            }
        }
    }

    /// The order of two keys of this source.
    pub(super) fn cmp(&self, a: &Option<Key>, b: &Option<Key>) -> Ordering {
        match (a, b) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) if self.nulls == NullOrder::First => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => self.cmp(b, a).reverse(),
            (Some(x), Some(y)) if self.descending => y.cmp(x),
            (Some(x), Some(y)) => x.cmp(y),
        }
    }

    /// A request key (`after`) of this source.
    pub(super) fn parse_key(&self, agg: &str, value: &Value) -> Result<Option<Key>> {
        if value.is_null() {
            return Ok(None);
        }
        let kind = match self.grouping {
            Grouping::Terms => self.kind,
            Grouping::Histogram(_) => ValueKind::Double,
            Grouping::DateHistogram(..) => ValueKind::Date,
        };
        kind.key_of(value).map(Some).ok_or_else(|| {
            SearchError::illegal(format!(
                "invalid value [{value}] of source [{}] in [after] of [{agg}]",
                self.name
            ))
        })
    }

    /// A key as the response writes it.
    pub(super) fn write(&self, key: &Option<Key>) -> Value {
        let Some(key) = key else {
            return Value::Null;
        };
        match (&self.grouping, self.kind) {
            (Grouping::DateHistogram(h, true), _) => {
                json!(h.key_as_string(key.num().unwrap_or(0.0) as i64))
            }
            (Grouping::DateHistogram(..), _) => json!(key.num().unwrap_or(0.0) as i64),
            (Grouping::Histogram(_), _) => json!(key.num().unwrap_or(0.0)),
            (Grouping::Terms, ValueKind::Bool) => json!(key.num().is_some_and(|n| n != 0.0)),
            (Grouping::Terms, kind) => kind.write(key).0,
        }
    }

    /// The documents of a bucket with `key` for this source.
    pub(super) fn filter(&self, key: &Option<Key>) -> Value {
        let Some(key) = key else {
            return json!({"bool": {"must_not": {"exists": {"field": self.field}}}});
        };
        let n = key.num().unwrap_or(0.0);
        match &self.grouping {
            Grouping::Terms => self.kind.filter(&self.field, key),
            Grouping::Histogram(i) => json!({"range": {&self.field: {"gte": n, "lt": n + i}}}),
            Grouping::DateHistogram(h, _) => {
                let start = n as i64;
                json!({"range": {&self.field: {"gte": start, "lt": h.bucket_end(start),
                    "format": "epoch_millis"}}})
            }
        }
    }
}
