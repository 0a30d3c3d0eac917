//! The `fields` search option (Kibana Discover asks for `[{"field": "*",
//! "include_unmapped": "true"}]` with `_source: false`): each hit's
//! `fields` gets the values of the mapped fields a pattern names, read
//! from `_source` in source order, normalised by the field's type (text
//! and keyword as strings, numbers as numbers, dates written in the
//! requested or the field's format, booleans as booleans). Multi-fields
//! (`title.keyword`) get their parent's values. `include_unmapped` is
//! accepted; unmapped source fields are not returned.

use serde_json::{Map, Value};

use crate::error::{Result, SearchError};
use crate::mapping::date::DateFormat;
use crate::mapping::{FieldMapping, FieldType, Mappings};

/// One requested pattern.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldRequest {
    /// Name or `*` pattern.
    pub field: String,
    /// Date output format.
    pub format: Option<String>,
}

/// Parses the `fields` option.
pub fn parse(value: &Value) -> Result<Vec<FieldRequest>> {
    let items = match value {
        Value::Array(items) => items.as_slice(),
        other => {
            return Err(SearchError::parsing(format!(
                "[fields] must be an array, got [{other}]"
            )))
        }
    };
    items
        .iter()
        .map(|item| match item {
            Value::String(f) => Ok(FieldRequest {
                field: f.clone(),
                format: None,
            }),
            Value::Object(obj) => {
                let mut out = FieldRequest {
                    field: String::new(),
                    format: None,
                };
                for (k, v) in obj {
                    match (k.as_str(), v) {
                        ("field", Value::String(f)) => out.field = f.clone(),
                        ("format", Value::String(f)) => {
                            DateFormat::parse(f)?;
                            out.format = Some(f.clone());
                        }
                        ("format", Value::Null) | ("include_unmapped", _) => {}
                        (other, _) => {
                            return Err(SearchError::parsing(format!(
                                "[field_and_format] unknown field [{other}]"
                            )))
                        }
                    }
                }
                if out.field.is_empty() {
                    return Err(SearchError::parsing("[field_and_format] Required [field]"));
                }
                Ok(out)
            }
            other => Err(SearchError::parsing(format!(
                "[fields] entries must be strings or objects, got [{other}]"
            ))),
        })
        .collect()
}

/// Requested fields resolved against one index's mapping: (path, source
/// path, mapping, date format).
#[derive(Debug, Clone, Default)]
pub struct ResolvedFields(Vec<(String, String, FieldMapping, Option<DateFormat>)>);

/// Resolves patterns against `mappings` (each field once, first request wins).
pub fn resolve(requested: &[FieldRequest], mappings: &Mappings) -> Result<ResolvedFields> {
    let mut out: Vec<(String, String, FieldMapping, Option<DateFormat>)> = Vec::new();
    for req in requested {
        let format = req.format.as_deref().map(DateFormat::parse).transpose()?;
        for (path, leaf) in mappings.leaf_paths() {
            if !crate::catalog::wildcard_match(&req.field, path) || out.iter().any(|f| &f.0 == path)
            {
                continue;
            }
            // A multi-field (`a.keyword` under text `a`) reads its parent's value.
            let source_path = match path.rsplit_once('.') {
                Some((parent, sub))
                    if mappings
                        .leaf(parent)
                        .is_some_and(|p| p.fields.contains_key(sub)) =>
                {
                    parent.to_string()
                }
                _ => path.clone(),
            };
            out.push((path.clone(), source_path, leaf.clone(), format.clone()));
        }
    }
    Ok(ResolvedFields(out))
}

fn normalise(leaf: &FieldMapping, format: Option<&DateFormat>, v: &Value) -> Option<Value> {
    let number = || match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    Some(match leaf.ty {
        FieldType::Text | FieldType::Keyword | FieldType::Ip => {
            let s = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if leaf.ty == FieldType::Keyword
                && leaf.ignore_above.is_some_and(|m| s.chars().count() > m)
            {
                return None;
            }
            Value::String(s)
        }
        FieldType::Date => {
            let ms = leaf.date_format().parse_value(v).ok()?;
            let out = format.cloned().unwrap_or_else(|| leaf.date_format());
            Value::String(out.format_in(ms, 0, "Z"))
        }
        t if t.is_integer() => Value::from(v.as_i64().or_else(|| number().map(|f| f as i64))?),
        t if t.is_float() => Value::from(number()?),
        FieldType::Boolean => match v {
            Value::Bool(b) => Value::Bool(*b),
            Value::String(s) => Value::Bool(s == "true"),
            _ => return None,
        },
        _ => v.clone(),
    })
}

impl ResolvedFields {
    /// True when nothing was requested or matched.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The values of a hit with this `_source`, added to `out`.
    pub fn add_to(&self, source: &Value, out: &mut Map<String, Value>) {
        for (path, source_path, leaf, format) in &self.0 {
            let mut raw = Vec::new();
            super::docvalues::source_values(source, source_path, &mut raw);
            let values: Vec<Value> = raw
                .into_iter()
                .filter_map(|v| normalise(leaf, format.as_ref(), v))
                .collect();
            if !values.is_empty() && !out.contains_key(path) {
                out.insert(path.clone(), Value::Array(values));
            }
        }
    }
}
