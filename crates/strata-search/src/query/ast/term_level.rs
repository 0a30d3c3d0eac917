//! The term-level queries with a typed node: `term`, `terms`, `ids`,
//! `exists`, `range`. Their values stay JSON scalars (borrowed from the
//! request): which term a value makes depends on the field's mapping.

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::query::params::{boost_of, check_params, single_field, value_and_params};
use crate::search::time_zone::TimeZone;

/// `term`.
#[derive(Debug)]
pub(crate) struct TermAst<'a> {
    pub field: &'a str,
    pub value: &'a Value,
    pub boost: f64,
}

/// `terms` (a list of values; lookups are refused).
#[derive(Debug)]
pub(crate) struct TermsAst<'a> {
    pub field: &'a str,
    pub values: &'a [Value],
    pub boost: f64,
}

/// `ids`.
#[derive(Debug)]
pub(crate) struct IdsAst<'a> {
    pub values: &'a [Value],
    pub boost: f64,
}

/// `exists`.
#[derive(Debug)]
pub(crate) struct ExistsAst<'a> {
    pub field: &'a str,
    pub boost: f64,
}

/// One end of a `range`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RangeBound<'a> {
    pub value: &'a Value,
    pub inclusive: bool,
}

/// `range`: `gte`/`gt` (or legacy `from` with `include_lower`) and
/// `lte`/`lt` (or `to` with `include_upper`), resolved to one bound each.
#[derive(Debug)]
pub(crate) struct RangeAst<'a> {
    pub field: &'a str,
    pub lower: Option<RangeBound<'a>>,
    pub upper: Option<RangeBound<'a>>,
    /// `format`, parsed against the field's type when translated.
    pub format: Option<&'a str>,
    pub time_zone: TimeZone,
    pub boost: f64,
}

pub(super) fn term(body: &Value) -> Result<TermAst<'_>> {
    let (field, params) = single_field("term", body)?;
    let (value, params) = value_and_params("term", params, &["value", "case_insensitive"])?;
    if params.get("case_insensitive") == Some(&Value::Bool(true)) {
        return Err(SearchError::illegal(
            "[term] case_insensitive is not supported",
        ));
    }
    Ok(TermAst {
        field,
        value,
        boost: boost_of(params)?,
    })
}

pub(super) fn terms(body: &Value) -> Result<TermsAst<'_>> {
    let (field, values) = single_field("terms", body)?;
    let values = values.as_array().ok_or_else(|| {
        SearchError::parsing(
            "[terms] query does not support lookup of terms; expected an array of values",
        )
    })?;
    Ok(TermsAst {
        field,
        values,
        boost: boost_of(body)?,
    })
}

pub(super) fn ids(body: &Value) -> Result<IdsAst<'_>> {
    let obj = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[ids] malformed"))?;
    check_params("ids", obj, &["values"])?;
    let values = obj
        .get("values")
        .and_then(Value::as_array)
        .ok_or_else(|| SearchError::parsing("[ids] requires [values]"))?;
    Ok(IdsAst {
        values,
        boost: boost_of(body)?,
    })
}

pub(super) fn exists(body: &Value) -> Result<ExistsAst<'_>> {
    let obj = body
        .as_object()
        .ok_or_else(|| SearchError::parsing("[exists] malformed"))?;
    check_params("exists", obj, &["field"])?;
    let field = obj
        .get("field")
        .and_then(Value::as_str)
        .ok_or_else(|| SearchError::parsing("[exists] must be provided with a [field]"))?;
    Ok(ExistsAst {
        field,
        boost: boost_of(body)?,
    })
}

pub(super) fn range(body: &Value) -> Result<RangeAst<'_>> {
    let (field, params) = single_field("range", body)?;
    let obj = params.as_object().ok_or_else(|| {
        SearchError::parsing("[range] query malformed, no start_object after field name")
    })?;
    check_params(
        "range",
        obj,
        &[
            "gt",
            "gte",
            "lt",
            "lte",
            "from",
            "to",
            "include_lower",
            "include_upper",
            "format",
            "time_zone",
            "relation",
        ],
    )?;
    let time_zone = match obj.get("time_zone") {
        None => TimeZone::UTC,
        Some(Value::String(tz)) => TimeZone::parse(tz)?,
        Some(other) => {
            return Err(SearchError::parsing(format!(
                "[range] time_zone must be a string, got [{other}]"
            )))
        }
    };
    // A flag that is not a boolean is taken as its default.
    let flag = |key: &str| obj.get(key).and_then(Value::as_bool).unwrap_or(true);
    let (include_lower, include_upper) = (flag("include_lower"), flag("include_upper"));
    // The first non-null of the inclusive key, the exclusive one and the
    // legacy one (inclusive as its `include_*` flag says).
    let bound = |inc: &str, exc: &str, legacy: &str, legacy_inclusive: bool| {
        let at = |key: &str| obj.get(key).filter(|v| !v.is_null());
        at(inc)
            .map(|value| (value, true))
            .or_else(|| at(exc).map(|value| (value, false)))
            .or_else(|| at(legacy).map(|value| (value, legacy_inclusive)))
            .map(|(value, inclusive)| RangeBound { value, inclusive })
    };
    Ok(RangeAst {
        field,
        lower: bound("gte", "gt", "from", include_lower),
        upper: bound("lte", "lt", "to", include_upper),
        format: obj.get("format").and_then(Value::as_str),
        time_zone,
        boost: boost_of(params)?,
    })
}
