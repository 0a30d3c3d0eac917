//! [`SortValue`]: one sort value of a document, as read from a column or
//! a runtime field, given in `search_after` or shown in a hit's `sort`.
//!
//! A leaf of `search::sort`: the sort criteria (`sort_field`) and the
//! runtime-field readers (`runtime_sort`) use it without depending on
//! the readers and keys of `sort.rs`, which depend on them.

use std::cmp::Ordering;

use serde_json::{json, Value};

use crate::query::ip_range::parse_ip;

/// One sort value of a document.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    /// No value.
    Missing,
    /// An integer (long, date, boolean as 0/1, `_doc`).
    Int(i64),
    /// A float (`_score`, float fields).
    Float(f64),
    /// A string.
    Str(String),
    /// An address of an `ip` field: ordered as an address (IPv4 mapped
    /// into IPv6), shown as its text.
    Ip(u128, String),
}

impl SortValue {
    /// Order of two present (not missing) values, ascending.
    pub(super) fn cmp_present(&self, other: &SortValue) -> Ordering {
        match (self, other) {
            (SortValue::Int(a), SortValue::Int(b)) => a.cmp(b),
            (SortValue::Str(a), SortValue::Str(b)) => a.cmp(b),
            (SortValue::Ip(a, _), SortValue::Ip(b, _)) => a.cmp(b),
            // An address against text that is not one: as text.
            (SortValue::Ip(_, a) | SortValue::Str(a), SortValue::Ip(_, b) | SortValue::Str(b)) => {
                a.cmp(b)
            }
            (a, b) => a
                .as_f64()
                .partial_cmp(&b.as_f64())
                .unwrap_or(Ordering::Equal),
        }
    }

    fn as_f64(&self) -> f64 {
        match self {
            SortValue::Int(i) => *i as f64,
            SortValue::Float(f) => *f,
            _ => 0.0,
        }
    }

    /// The JSON value in a hit's `sort` array.
    pub fn to_json(&self) -> Value {
        match self {
            SortValue::Missing => Value::Null,
            SortValue::Int(i) => json!(i),
            SortValue::Float(f) => json!(f),
            SortValue::Str(s) | SortValue::Ip(_, s) => json!(s),
        }
    }

    /// The text of an `ip` field's value as a sort value: an address if it
    /// parses as one.
    pub fn ip(text: String) -> SortValue {
        match parse_ip(&text) {
            Some(address) => SortValue::Ip(address, text),
            None => SortValue::Str(text),
        }
    }

    /// A `search_after` value as a sort value.
    pub(crate) fn from_json(v: &Value) -> SortValue {
        match v {
            Value::Number(n) if n.is_i64() => SortValue::Int(n.as_i64().unwrap_or(0)),
            Value::Number(n) => SortValue::Float(n.as_f64().unwrap_or(0.0)),
            Value::String(s) => SortValue::Str(s.clone()),
            _ => SortValue::Missing,
        }
    }
}
