//! A `composite` source (`terms`, `histogram` or `date_histogram`) over
//! the mapping: its parameters as the request's parse typed them
//! ([`CompositeSource`]), the field's kind checked against the source's
//! type, the keys its values fall in, their order (`asc`/`desc`, `null`
//! first or last), and how a key is read from `after` (the value as
//! written, converted to the field's type here), written in a bucket and
//! turned into the filter of its documents.

use std::cmp::Ordering;

use serde_json::{json, Value};

use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::agg_tree::{CompositeGrouping, CompositeSource, NullOrder};
use crate::search::date_histogram::DateHistogram;
use crate::search::scan_aggs::values::{Key, Num, ValueKind};

/// How a source turns values into keys.
pub(super) enum Grouping {
    Terms,
    Histogram(f64),
    DateHistogram(Box<DateHistogram>, bool),
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
    /// The source `params` of composite `agg` over the mapping: the
    /// field's kind, checked against the source's type.
    pub(super) fn new(agg: &str, params: &CompositeSource, mappings: &Mappings) -> Result<Source> {
        let field = &params.field;
        let kind = ValueKind::of(mappings, field, agg)?.unwrap_or(ValueKind::Str);
        let grouping = match &params.grouping {
            CompositeGrouping::Terms => Grouping::Terms,
            CompositeGrouping::Histogram(interval) => {
                if kind == ValueKind::Str {
                    return Err(SearchError::illegal(format!(
                        "Field [{field}] of type [keyword] is not supported for aggregation [histogram]"
                    )));
                }
                Grouping::Histogram(*interval)
            }
            CompositeGrouping::DateHistogram(h, formatted) => {
                let h = DateHistogram::resolve(h, mappings, 0)?;
                if kind != ValueKind::Date && mappings.leaf(field).is_some() {
                    return Err(SearchError::illegal(format!(
                        "Field [{field}] is not a date field, as [date_histogram] source [{}] needs",
                        params.name
                    )));
                }
                Grouping::DateHistogram(Box::new(h), *formatted)
            }
        };
        Ok(Source {
            name: params.name.clone(),
            field: field.clone(),
            kind,
            grouping,
            descending: params.descending,
            missing_bucket: params.missing_bucket,
            nulls: params.nulls,
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
