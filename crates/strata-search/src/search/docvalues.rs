//! `docvalue_fields`: per-hit `fields` with each requested field's values,
//! as Elasticsearch returns them from doc values (always arrays, sorted,
//! dates formatted).
//!
//! The request takes strings and `{"field": ..., "format": ...}` objects,
//! mixed; field names may contain `*` wildcards, matched against the
//! mapped fields. Dates outside nested objects are read from their
//! columns (`fetch_phase`); other values from the hit's `_source`,
//! normalised through the field's mapping (the same values the fast
//! fields hold):
//! keywords above `ignore_above` are left out, numbers and dates are
//! parsed, text fields are refused as Elasticsearch refuses them.
//!
//! Date formats: `use_field_mapping` or none (the field's first format),
//! the ISO forms (`date_time`, `strict_date_time`,
//! `strict_date_optional_time`, `date_optional_time`), `epoch_millis` and
//! `epoch_second`. Anything else is an `illegal_argument_exception`.

use serde_json::{Map, Value};

use crate::error::{Result, SearchError};
use crate::mapping::date::format_millis;
use crate::mapping::{FieldMapping, FieldType, Mappings};

/// How a date value is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateOut {
    /// The field's own (first) format.
    FieldDefault,
    /// ISO 8601 with milliseconds and `Z`.
    Iso,
    /// Epoch milliseconds, as a string.
    EpochMillis,
    /// Epoch seconds, as a string.
    EpochSecond,
}

impl DateOut {
    fn parse(text: &str) -> Option<DateOut> {
        Some(match text {
            "use_field_mapping" => DateOut::FieldDefault,
            "date_time"
            | "strict_date_time"
            | "strict_date_optional_time"
            | "date_optional_time" => DateOut::Iso,
            "epoch_millis" => DateOut::EpochMillis,
            "epoch_second" => DateOut::EpochSecond,
            _ => return None,
        })
    }

    fn write(self, leaf: &FieldMapping, millis: i64) -> String {
        match self {
            DateOut::FieldDefault => {
                let format = leaf.date_format();
                let first = format.as_str().split("||").next().unwrap_or_default();
                match DateOut::parse(first.trim()) {
                    Some(DateOut::FieldDefault) | None => format_millis(millis),
                    Some(other) => other.write(leaf, millis),
                }
            }
            DateOut::Iso => format_millis(millis),
            DateOut::EpochMillis => millis.to_string(),
            DateOut::EpochSecond => millis.div_euclid(1000).to_string(),
        }
    }
}

/// One requested field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DocvalueField {
    /// Field name or wildcard pattern.
    pub field: String,
    /// Output format of dates.
    pub format: DateOut,
    /// Whether a `format` other than `use_field_mapping` was given.
    explicit: bool,
}

/// Parses the `docvalue_fields` array.
pub fn parse(value: &Value) -> Result<Vec<DocvalueField>> {
    let items = match value {
        Value::Array(items) => items.as_slice(),
        Value::String(_) | Value::Object(_) => std::slice::from_ref(value),
        other => {
            return Err(SearchError::parsing(format!(
                "[docvalue_fields] must be an array, got [{other}]"
            )))
        }
    };
    items.iter().map(parse_one).collect()
}

fn parse_one(item: &Value) -> Result<DocvalueField> {
    match item {
        Value::String(field) => Ok(DocvalueField {
            field: field.clone(),
            format: DateOut::FieldDefault,
            explicit: false,
        }),
        Value::Object(obj) => {
            let mut field = None;
            let mut format = (DateOut::FieldDefault, false);
            for (k, v) in obj {
                match (k.as_str(), v) {
                    ("field", Value::String(f)) => field = Some(f.clone()),
                    ("format", Value::String(f)) => {
                        let out = DateOut::parse(f).ok_or_else(|| {
                            SearchError::illegal(format!(
                                "Invalid format: [{f}]: docvalue_fields support use_field_mapping, date_time, strict_date_time, strict_date_optional_time, date_optional_time, epoch_millis and epoch_second"
                            ))
                        })?;
                        format = (out, out != DateOut::FieldDefault);
                    }
                    ("format", Value::Null) => {}
                    (other, _) => {
                        return Err(SearchError::parsing(format!(
                            "[field_and_format] unknown field [{other}]"
                        )))
                    }
                }
            }
            let field = field.ok_or_else(|| {
                SearchError::parsing("[field_and_format] Required [field]".to_string())
            })?;
            Ok(DocvalueField {
                field,
                format: format.0,
                explicit: format.1,
            })
        }
        other => Err(SearchError::parsing(format!(
            "[docvalue_fields] entries must be strings or objects, got [{other}]"
        ))),
    }
}

pub(crate) fn matches(pattern: &str, name: &str) -> bool {
    let Some((head, rest)) = pattern.split_once('*') else {
        return pattern == name;
    };
    let Some(mut remaining) = name.strip_prefix(head) else {
        return false;
    };
    let parts: Vec<&str> = rest.split('*').collect();
    for (i, part) in parts.iter().enumerate() {
        if i + 1 == parts.len() {
            return remaining.ends_with(part);
        }
        match remaining.find(part) {
            Some(at) => remaining = &remaining[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Requested fields resolved against one index's mapping.
#[derive(Debug, Clone, Default)]
pub struct Resolved {
    fields: Vec<ResolvedField>,
}

/// One resolved field.
#[derive(Debug, Clone)]
struct ResolvedField {
    name: String,
    leaf: FieldMapping,
    format: DateOut,
    /// Read from its column, not the source: a date outside nested
    /// objects, whose column holds exactly the millis its source values
    /// parse to (those that parse), as Elasticsearch's doc values do.
    from_column: bool,
}

/// Resolves patterns to mapped fields; text fields and formats on
/// non-date fields are errors, unmapped names are skipped.
pub fn resolve(requested: &[DocvalueField], mappings: &Mappings) -> Result<Resolved> {
    let mut fields = Vec::new();
    for req in requested {
        let names: Vec<(String, FieldMapping)> = if req.field.contains('*') {
            let mut found: Vec<_> = mappings
                .leaf_paths()
                .filter(|(p, l)| matches(&req.field, p) && l.ty != FieldType::Text)
                .map(|(p, l)| (p.clone(), l.clone()))
                .collect();
            found.sort_by(|a, b| a.0.cmp(&b.0));
            found
        } else {
            mappings
                .leaf(&req.field)
                .map(|l| vec![(req.field.clone(), l.clone())])
                .unwrap_or_default()
        };
        for (name, leaf) in names {
            if leaf.ty == FieldType::Text {
                return Err(SearchError::illegal(format!(
                    "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{name}] in order to load field data by uninverting the inverted index."
                )));
            }
            if req.explicit && leaf.ty != FieldType::Date {
                return Err(SearchError::illegal(format!(
                    "Field [{name}] of type [{}] does not support custom formats",
                    leaf.ty.name()
                )));
            }
            if !fields.iter().any(|f: &ResolvedField| f.name == name) {
                let from_column =
                    leaf.ty == FieldType::Date && mappings.nested_scope_of(&name, false).is_none();
                fields.push(ResolvedField {
                    name,
                    leaf,
                    format: req.format,
                    from_column,
                });
            }
        }
    }
    Ok(Resolved { fields })
}

/// Values of `path` in a source document: dotted keys and nested objects
/// both count, arrays are flattened (also the `fields` option's source).
pub(super) fn source_values<'a>(source: &'a Value, path: &str, out: &mut Vec<&'a Value>) {
    match source {
        Value::Array(items) => items.iter().for_each(|v| source_values(v, path, out)),
        Value::Object(obj) => {
            if let Some(v) = obj.get(path) {
                flatten(v, out);
            }
            for (at, _) in path.match_indices('.') {
                if let Some(inner) = obj.get(&path[..at]) {
                    source_values(inner, &path[at + 1..], out);
                }
            }
        }
        _ => {}
    }
}

fn flatten<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| flatten(i, out)),
        Value::Null => {}
        other => out.push(other),
    }
}

fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn convert(leaf: &FieldMapping, format: DateOut, raw: &[&Value]) -> Vec<Value> {
    match leaf.ty {
        FieldType::Date => {
            let parser = leaf.date_format();
            let mut ms: Vec<i64> = raw
                .iter()
                .filter_map(|v| parser.parse_value(v).ok())
                .collect();
            ms.sort_unstable();
            ms.into_iter()
                .map(|m| Value::String(format.write(leaf, m)))
                .collect()
        }
        FieldType::Long | FieldType::Integer | FieldType::Short | FieldType::Byte => {
            let mut n: Vec<i64> = raw
                .iter()
                .filter_map(|v| v.as_i64().or_else(|| number(v).map(|f| f as i64)))
                .collect();
            n.sort_unstable();
            n.into_iter().map(Value::from).collect()
        }
        FieldType::Double | FieldType::Float | FieldType::HalfFloat | FieldType::ScaledFloat => {
            let mut n: Vec<f64> = raw.iter().filter_map(|v| number(v)).collect();
            if let Some(f) = leaf.scaling_factor.filter(|f| *f > 0.0) {
                n.iter_mut().for_each(|x| *x = (*x * f).round() / f);
            }
            n.sort_by(f64::total_cmp);
            n.into_iter().map(Value::from).collect()
        }
        FieldType::Boolean => {
            let mut b: Vec<bool> = raw
                .iter()
                .filter_map(|v| match v {
                    Value::Bool(b) => Some(*b),
                    Value::String(s) if s == "true" => Some(true),
                    Value::String(s) if s == "false" || s.is_empty() => Some(false),
                    _ => None,
                })
                .collect();
            b.sort_unstable();
            b.into_iter().map(Value::Bool).collect()
        }
        FieldType::Keyword | FieldType::Ip => {
            let mut s: Vec<String> = raw
                .iter()
                .map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .filter(|s| leaf.ignore_above.is_none_or(|max| s.chars().count() <= max))
                .collect();
            s.sort_unstable();
            s.into_iter().map(Value::String).collect()
        }
        FieldType::GeoPoint | FieldType::Text => raw.iter().map(|v| (*v).clone()).collect(),
    }
}

impl Resolved {
    /// True when no field was resolved.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Whether some field is read from the source.
    pub fn reads_source(&self) -> bool {
        self.fields.iter().any(|f| !f.from_column)
    }

    /// The source paths the fields not read from columns are read from.
    pub fn paths(&self) -> Vec<&str> {
        self.fields
            .iter()
            .filter(|f| !f.from_column)
            .map(|f| f.name.as_str())
            .collect()
    }

    /// The fields read from their (date, `i64` millis) columns: their
    /// numbers in [`Resolved::fields`]' `column_values` and their names.
    pub fn column_fields(&self) -> impl Iterator<Item = (usize, &str)> {
        self.fields
            .iter()
            .enumerate()
            .filter(|(_, f)| f.from_column)
            .map(|(at, f)| (at, f.name.as_str()))
    }

    /// The `fields` object of a hit: the column fields' values from
    /// `column_values` (given a field's number), the others from `source`
    /// (`None` when no field reads it); fields without values are left out.
    pub fn fields(
        &self,
        source: Option<&Value>,
        column_values: &mut dyn FnMut(usize, &mut Vec<i64>),
    ) -> Map<String, Value> {
        let mut out = Map::new();
        let mut millis = Vec::new();
        for (at, field) in self.fields.iter().enumerate() {
            let values = if field.from_column {
                millis.clear();
                column_values(at, &mut millis);
                millis.sort_unstable();
                millis
                    .iter()
                    .map(|&m| Value::String(field.format.write(&field.leaf, m)))
                    .collect()
            } else if let Some(source) = source {
                let mut raw = Vec::new();
                source_values(source, &field.name, &mut raw);
                convert(&field.leaf, field.format, &raw)
            } else {
                continue;
            };
            if !values.is_empty() {
                out.insert(field.name.clone(), Value::Array(values));
            }
        }
        out
    }
}

#[cfg(test)]
#[path = "docvalues_tests.rs"]
mod tests;
