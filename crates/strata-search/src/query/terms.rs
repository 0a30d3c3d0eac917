//! Query values turned into tantivy terms of the shard schema, by the
//! field's mapped type (the same conversions indexing uses).

use serde_json::Value;
use tantivy::query::{BooleanQuery, EmptyQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::TokenizerManager;
use tantivy::Term;

use super::column_set::ColumnSetQuery;
use super::date_math;
use super::ip_range::{parse_ip, IpQuery};
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::mapping::document::{convert, FieldValue};
use crate::mapping::{FieldMapping, FieldType};
use crate::search::time_zone::TimeZone;
use crate::store::{json_term, SchemaFields, KEYWORDS};

/// Whether values of this type are found by their columns, not terms.
fn by_column(ty: FieldType) -> bool {
    ty.is_integer() || ty.is_float() || ty == FieldType::Date
}

/// Documents with one of `values` at `path`: a term query per value
/// (scored with `record`), or one column lookup for numbers, dates and
/// addresses.
pub fn exact_query(
    fields: &SchemaFields,
    path: &str,
    leaf: &FieldMapping,
    values: &[Value],
    record: IndexRecordOption,
) -> Result<Box<dyn Query>> {
    if by_column(leaf.ty) {
        let mut typed = Vec::with_capacity(values.len());
        for value in values {
            typed.extend(converted(path, leaf, value)?);
        }
        return Ok(match typed.is_empty() {
            true => Box::new(EmptyQuery),
            false => Box::new(ColumnSetQuery::new(format!("{KEYWORDS}.{path}"), typed)),
        });
    }
    if leaf.ty == FieldType::Ip {
        let mut addresses = Vec::with_capacity(values.len());
        for value in values {
            if let Some(FieldValue::Ip(text)) = converted(path, leaf, value)? {
                addresses.extend(parse_ip(&text));
            }
        }
        return Ok(match addresses.is_empty() {
            true => Box::new(EmptyQuery),
            false => Box::new(IpQuery::addresses(path, &addresses)),
        });
    }
    let mut terms = Vec::with_capacity(values.len());
    for value in values {
        terms.extend(exact_term(fields, path, leaf, value)?);
    }
    Ok(match terms.len() {
        0 => Box::new(EmptyQuery),
        1 => Box::new(TermQuery::new(terms.remove(0), record)),
        _ => {
            let any = terms
                .into_iter()
                .map(|t| -> Box<dyn Query> { Box::new(TermQuery::new(t, record)) })
                .map(|q| (Occur::Should, q))
                .collect();
            Box::new(BooleanQuery::new(any))
        }
    })
}

/// `value` converted as indexing converts it (no `ignore_above`: a query
/// value is looked up whatever its length).
fn converted(path: &str, leaf: &FieldMapping, value: &Value) -> Result<Option<FieldValue>> {
    let as_query_error =
        |e: SearchError| SearchError::parsing(format!("failed to create query: {e}"));
    let mut leaf = leaf.clone();
    leaf.ignore_above = None;
    convert(path, &leaf, value).map_err(as_query_error)
}

/// The term of one exact value at `path` (None when the value indexes to
/// nothing). For numbers and dates this is a term of indices created
/// before `k` only: query them with [`exact_query`].
pub fn exact_term(
    fields: &SchemaFields,
    path: &str,
    leaf: &FieldMapping,
    value: &Value,
) -> Result<Option<Term>> {
    if leaf.ty == FieldType::Text {
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let mut t = json_term(fields.text, path);
        t.append_type_and_str(&text);
        return Ok(Some(t));
    }
    let converted = converted(path, leaf, value)?;
    Ok(converted.map(|v| typed_term(fields.terms, path, &v)))
}

/// The term of an already typed value in `field` (`k`, or `f` for a
/// range's bound: tantivy's range reads `f`'s columns).
pub fn typed_term(field: Field, path: &str, value: &FieldValue) -> Term {
    let mut t = json_term(field, path);
    match value {
        FieldValue::Text(s) | FieldValue::Keyword(s) | FieldValue::Ip(s) => {
            t.append_type_and_str(s)
        }
        FieldValue::Long(n) | FieldValue::Date(n) => t.append_type_and_fast_value(*n),
        FieldValue::Bool(b) => t.append_type_and_fast_value(*b),
        FieldValue::Double(f) => {
            // The inverted index keeps integral floats as i64 terms.
            if f.fract() == 0.0 && *f >= i64::MIN as f64 && *f <= i64::MAX as f64 {
                t.append_type_and_fast_value(*f as i64)
            } else {
                t.append_type_and_fast_value(*f)
            }
        }
    }
    t
}

/// The tokens of `text` under the index's text analyzer, as terms at `path`.
pub fn analyzed_terms(
    fields: &SchemaFields,
    tokenizers: &TokenizerManager,
    path: &str,
    text: &str,
) -> Result<Vec<Term>> {
    let mut analyzer = tokenizers
        .get("default")
        .ok_or_else(|| SearchError::illegal("the default analyzer is missing"))?;
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        let mut t = json_term(fields.text, path);
        t.append_type_and_str(&stream.token().text);
        out.push(t);
    }
    Ok(out)
}

/// A range bound value as a typed value of the field (dates through `format`).
/// Date strings are date math (`now-1d/d`, `2024-01-01||+1M`) read in
/// `tz`; `round_up` rounds `/unit` to the unit's last millisecond (for
/// `lte` and `gt` bounds).
pub fn bound_value(
    path: &str,
    leaf: &FieldMapping,
    value: &Value,
    format: Option<&DateFormat>,
    now_millis: i64,
    tz: TimeZone,
    round_up: bool,
) -> Result<FieldValue> {
    let fail = || {
        SearchError::parsing(format!(
            "failed to create query: field [{path}] of type [{}] cannot take range value [{value}]",
            leaf.ty.name()
        ))
    };
    match leaf.ty {
        FieldType::Date => {
            let format = format.cloned().unwrap_or_else(|| leaf.date_format());
            if let Some(s) = value.as_str() {
                let millis = date_math::eval(s, now_millis, tz, &format, round_up)
                    .map_err(|e| SearchError::parsing(format!("failed to create query: {e}")))?;
                return Ok(FieldValue::Date(millis));
            }
            let millis = format
                .parse_value(value)
                .map_err(|e| SearchError::parsing(format!("failed to create query: {e}")))?;
            Ok(FieldValue::Date(millis))
        }
        ty if ty.is_integer() || ty.is_float() => {
            let f = match value {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            }
            .filter(|f| f.is_finite())
            .ok_or_else(fail)?;
            Ok(FieldValue::Double(f))
        }
        FieldType::Keyword | FieldType::Ip | FieldType::Text => {
            Ok(FieldValue::Keyword(match value {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }))
        }
        _ => Err(fail()),
    }
}
