//! The `sort` parameter: criteria (`"f"`, `{"f": "desc"}`, `{"f":
//! {"order", "missing", "unmapped_type", "numeric_type", "format"}}`),
//! their validation against a mapping, the orders sort keys follow, how a
//! hit shows its sort values, and `search_after` values.

use serde_json::{Map, Value};

use super::sort::SortValue;
pub use super::sort_numeric::NumericType;
use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::mapping::{FieldType, Mappings};

/// The tiebreak of point-in-time and scroll pages: a document's place in
/// its snapshot (`snapshot::shard_doc_base`).
pub const SHARD_DOC: &str = "_shard_doc";

/// Whether `field` sorts by a number the engine makes (not a mapped field).
fn builtin_numeric(field: &str) -> bool {
    matches!(field, "_score" | "_doc" | SHARD_DOC)
}

/// Whether a field of type `ty` sorts by a number (dates by their
/// milliseconds, booleans as 0 and 1).
fn sorts_as_number(ty: FieldType) -> bool {
    ty.is_integer() || ty.is_float() || ty == FieldType::Date || ty == FieldType::Boolean
}

/// One sort criterion.
#[derive(Debug, Clone, PartialEq)]
pub struct SortField {
    /// Field path, `_score` or `_doc`.
    pub field: String,
    /// Descending?
    pub descending: bool,
    /// Type assumed where the field is unmapped.
    pub unmapped_type: Option<String>,
    /// Where documents without a value go, or the value they sort as.
    pub(crate) missing: Missing,
    /// `numeric_type`: the type the values are converted to.
    pub(crate) numeric_type: Option<NumericType>,
    /// `format`: how a date criterion's values are shown in hits (and
    /// read back from `search_after`).
    pub(crate) format: Option<DateFormat>,
}

/// The `missing` parameter of a sort criterion.
#[derive(Debug, Clone, PartialEq)]
pub enum Missing {
    /// After every value, in either order (the default).
    Last,
    /// Before every value, in either order.
    First,
    /// Sorted as this value.
    Value(Value),
}

/// How one criterion orders keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyOrder {
    /// Descending values.
    pub descending: bool,
    /// Missing values first.
    pub missing_first: bool,
}

/// The key orders of `sort`'s criteria.
pub fn key_orders(sort: &[SortField]) -> Vec<KeyOrder> {
    sort.iter()
        .map(|s| KeyOrder {
            descending: s.descending,
            missing_first: s.missing == Missing::First,
        })
        .collect()
}

/// Checks `search_after` values against the criteria: numbers for
/// numeric, date, boolean and score keys (numeric strings allowed, and for
/// dates text in the criterion's or the field's format), strings for the
/// rest; `null` stands for a missing value.
pub fn validate_search_after(
    sort: &[SortField],
    values: &[Value],
    mappings: &Mappings,
) -> Result<()> {
    for (field, value) in sort.iter().zip(values) {
        let ty = field.key_type(Some(mappings));
        let numeric = field.sorts_as_number(ty);
        let date = ty == Some(FieldType::Date) && !builtin_numeric(&field.field);
        let ok = match value {
            Value::Null => true,
            Value::Number(_) => numeric || ty.is_none(),
            Value::String(s) if date => {
                s.trim().parse::<f64>().is_ok()
                    || field.date_format(Some(mappings)).parse_str(s).is_ok()
            }
            Value::String(s) => !numeric || s.trim().parse::<f64>().is_ok(),
            Value::Bool(_) => ty == Some(FieldType::Boolean),
            _ => false,
        };
        if !ok {
            return Err(SearchError::illegal(format!(
                "Failed to parse search_after value for field [{}].",
                field.field
            )));
        }
    }
    Ok(())
}

impl SortField {
    /// Parses `"f"`, `{"f": "desc"}`, `{"f": {"order": "desc", "unmapped_type": "long"}}` or a list.
    pub fn parse_list(v: &Value) -> Result<Vec<SortField>> {
        let items = match v {
            Value::Array(a) => a.clone(),
            other => vec![other.clone()],
        };
        items.iter().map(SortField::parse_one).collect()
    }

    fn parse_one(v: &Value) -> Result<SortField> {
        let default_desc = |f: &str| f == "_score";
        match v {
            Value::String(f) => Ok(SortField {
                descending: default_desc(f),
                ..SortField::plain(f)
            }),
            Value::Object(o) if o.len() == 1 => {
                let (field, spec) = o
                    .iter()
                    .next()
                    .ok_or_else(|| SearchError::parsing("empty sort"))?;
                let mut s = SortField {
                    descending: default_desc(field),
                    ..SortField::plain(field)
                };
                let order = match spec {
                    Value::String(order) => Some(order.as_str()),
                    Value::Object(params) => {
                        for k in params.keys() {
                            if !matches!(
                                k.as_str(),
                                "order" | "unmapped_type" | "missing" | "format" | "numeric_type"
                            ) {
                                return Err(SearchError::parsing(format!(
                                    "[field_sort] unknown field [{k}]"
                                )));
                            }
                        }
                        s.missing = match params.get("missing") {
                            None | Some(Value::Null) => Missing::Last,
                            Some(Value::String(m)) if m == "_last" => Missing::Last,
                            Some(Value::String(m)) if m == "_first" => Missing::First,
                            Some(v @ (Value::String(_) | Value::Number(_) | Value::Bool(_))) => {
                                Missing::Value(v.clone())
                            }
                            Some(other) => {
                                return Err(SearchError::parsing(format!(
                                    "[field_sort] missing doesn't support values of type: {other}"
                                )))
                            }
                        };
                        s.unmapped_type = params
                            .get("unmapped_type")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        s.numeric_type = text_param(params, "numeric_type")?
                            .map(NumericType::parse)
                            .transpose()?;
                        s.format = text_param(params, "format")?
                            .map(DateFormat::from_request)
                            .transpose()?;
                        params.get("order").and_then(Value::as_str)
                    }
                    other => {
                        return Err(SearchError::parsing(format!("[sort] malformed: {other}")))
                    }
                };
                match order {
                    None => {}
                    Some("asc") => s.descending = false,
                    Some("desc") => s.descending = true,
                    Some(o) => {
                        return Err(SearchError::parsing(format!("[sort] unknown order [{o}]")))
                    }
                }
                Ok(s)
            }
            other => Err(SearchError::parsing(format!("[sort] malformed: {other}"))),
        }
    }

    /// Ascending on `field`, missing last, no options.
    pub fn plain(field: &str) -> SortField {
        SortField {
            field: field.to_string(),
            descending: false,
            unmapped_type: None,
            missing: Missing::Last,
            numeric_type: None,
            format: None,
        }
    }

    /// `_score`, descending: the order without `sort`.
    pub fn score() -> SortField {
        SortField {
            descending: true,
            ..SortField::plain("_score")
        }
    }

    /// Checks the field is sortable in `mappings`, and that its
    /// `numeric_type` and `format` fit its type.
    pub(crate) fn validate(&self, mappings: &Mappings) -> Result<()> {
        if builtin_numeric(&self.field) {
            return match (&self.numeric_type, &self.format) {
                (None, None) => Ok(()),
                (Some(_), _) => Err(SearchError::parsing(format!(
                    "[{}] does not support [numeric_type]",
                    self.field
                ))),
                (None, Some(_)) => Err(SearchError::parsing(format!(
                    "[{}] does not support [format]",
                    self.field
                ))),
            };
        }
        let unmapped =
            match &self.unmapped_type {
                Some(t) => Some(FieldType::from_name(t).ok_or_else(|| {
                    SearchError::illegal(format!("No mapper found for type [{t}]"))
                })?),
                None => None,
            };
        let ty = match mappings.leaf(&self.field) {
            None => unmapped.ok_or_else(|| {
                SearchError::QueryShard(format!(
                    "No mapping found for [{}] in order to sort on",
                    self.field
                ))
            })?,
            Some(leaf) if leaf.ty == FieldType::Text => return Err(SearchError::illegal(format!(
                "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{}] in order to load field data by uninverting the inverted index.",
                self.field
            ))),
            Some(leaf) => leaf.ty,
        };
        if self.numeric_type.is_some() && !sorts_as_number(ty) {
            return Err(SearchError::QueryShard(format!(
                "[numeric_type] option cannot be set on a non-numeric field, got {}",
                ty.name()
            )));
        }
        match self.format {
            Some(_) if ty.is_integer() || ty.is_float() => Err(SearchError::illegal(format!(
                "[format] on the sort of numeric field [{}] is not supported by this server (decimal patterns are not implemented); sort values are shown as numbers",
                self.field
            ))),
            Some(_) if ty != FieldType::Date => Err(SearchError::illegal(format!(
                "Field [{}] of type [{}] does not support custom formats",
                self.field,
                ty.name()
            ))),
            _ => Ok(()),
        }
    }

    /// The type of the criterion's keys: its field's in `mappings`, else
    /// its `unmapped_type` (`None`: neither, or a built-in key).
    fn key_type(&self, mappings: Option<&Mappings>) -> Option<FieldType> {
        mappings
            .and_then(|m| m.leaf(&self.field))
            .map(|l| l.ty)
            .or_else(|| self.unmapped_type.as_deref().and_then(FieldType::from_name))
    }

    /// Whether the criterion's keys are numbers: a built-in key, or a
    /// field of key type `ty` that sorts as one.
    fn sorts_as_number(&self, ty: Option<FieldType>) -> bool {
        builtin_numeric(&self.field) || ty.is_some_and(sorts_as_number)
    }

    /// The format a date criterion's values are read and shown in: its own
    /// `format`, else its field's.
    fn date_format(&self, mappings: Option<&Mappings>) -> DateFormat {
        match (&self.format, mappings.and_then(|m| m.leaf(&self.field))) {
            (Some(format), _) => format.clone(),
            (None, Some(leaf)) => leaf.date_format(),
            (None, None) => DateFormat::default_format().clone(),
        }
    }

    /// `value` (of this criterion) as a hit shows it: formatted with
    /// `format` when one is set (a date's milliseconds, or nanoseconds
    /// under `numeric_type: date_nanos`), else as is.
    pub(crate) fn shown(&self, value: &SortValue) -> Value {
        match (&self.format, value) {
            (Some(format), SortValue::Int(n)) => {
                let millis = match self.numeric_type {
                    Some(NumericType::DateNanos) => n.div_euclid(1_000_000),
                    _ => *n,
                };
                Value::String(format.format_in(millis, 0, "Z"))
            }
            _ => value.to_json(),
        }
    }
}

/// The parameter `key` of a criterion as text (`None`: absent or null).
fn text_param<'p>(params: &'p Map<String, Value>, key: &str) -> Result<Option<&'p str>> {
    match params.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(SearchError::parsing(format!(
            "[field_sort] {key} doesn't support values of type: {other}"
        ))),
    }
}

/// `search_after` values as sort values: numeric strings and booleans
/// become numbers for numeric criteria, addresses for `ip` ones.
pub fn after_values(
    sort: &[SortField],
    values: &[Value],
    mappings: Option<&Mappings>,
) -> Vec<SortValue> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let ty = sort.get(i).and_then(|f| f.key_type(mappings));
            let numeric = sort.get(i).is_some_and(|f| f.sorts_as_number(ty));
            let by_score = sort.get(i).is_some_and(|f| f.field == "_score");
            let date_text = match (sort.get(i), v) {
                (Some(f), Value::String(s))
                    if ty == Some(FieldType::Date) && s.trim().parse::<f64>().is_err() =>
                {
                    f.date_format(mappings).parse_str(s).ok().map(|ms| (f, ms))
                }
                _ => None,
            };
            if let Some((f, ms)) = date_text {
                return match f.numeric_type {
                    Some(t) => t.convert(SortValue::Int(ms), true),
                    None => SortValue::Int(ms),
                };
            }
            let value = match v {
                Value::String(s) if ty == Some(FieldType::Ip) => SortValue::ip(s.clone()),
                Value::String(s) if numeric => match s.trim().parse::<i64>() {
                    Ok(n) => SortValue::Int(n),
                    Err(_) => s
                        .trim()
                        .parse::<f64>()
                        .map_or(SortValue::Missing, SortValue::Float),
                },
                Value::Bool(b) => SortValue::Int(i64::from(*b)),
                other => SortValue::from_json(other),
            };
            // Scores are `f32`s, written as their shortest decimal: compare
            // a score given back in `f32` too, or a hit equal to it would
            // land on either side.
            match value {
                SortValue::Float(x) if by_score => SortValue::Float(f64::from(x as f32)),
                SortValue::Int(n) if by_score => SortValue::Float(f64::from(n as f32)),
                other => other,
            }
        })
        .collect()
}
