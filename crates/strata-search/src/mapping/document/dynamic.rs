//! Dynamic mapping of a field a document brings: the type detected from
//! its first value, a dynamic template's mapping, or a refusal under
//! `dynamic: strict`.

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::mapping::date::looks_like_date;
use crate::mapping::{DetectedType, Dynamic, FieldMapping, FieldType, Mappings, TemplateMapping};

fn leaf_name(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// A new object at `path` that a dynamic template maps to a leaf type.
/// `new_fields` are the fields this document has added so far.
pub(super) fn object_as_leaf(
    mappings: &Mappings,
    new_fields: &[(String, FieldMapping)],
    path: &str,
) -> Result<Option<FieldMapping>> {
    // Cheapest first: every object of a document after the first of its
    // kind is in the mapping.
    if mappings.dynamic != Dynamic::True || mappings.is_object(path) {
        return Ok(None);
    }
    let below =
        |p: &str| p.len() > path.len() && p.starts_with(path) && p.as_bytes()[path.len()] == b'.';
    if new_fields.iter().any(|(p, _)| below(p)) {
        return Ok(None);
    }
    let Some(template) = mappings.find_template(path, DetectedType::Object) else {
        return Ok(None);
    };
    match template.mapping_for(leaf_name(path), DetectedType::Object)? {
        TemplateMapping::Object => Ok(None),
        TemplateMapping::Field(leaf) => Ok(Some(leaf)),
    }
}

/// The type dynamic mapping detects for a scalar.
fn detect(mappings: &Mappings, value: &Value) -> DetectedType {
    match value {
        Value::Bool(_) => DetectedType::Boolean,
        Value::Number(n) if n.is_i64() || n.is_u64() => DetectedType::Long,
        Value::Number(_) => DetectedType::Double,
        Value::String(s) if mappings.date_detection && looks_like_date(s) => DetectedType::Date,
        _ => DetectedType::String,
    }
}

/// The mapping dynamic mapping gives a new scalar field at `path` (`None`
/// with `dynamic: false`).
pub(super) fn dynamic_leaf(
    mappings: &Mappings,
    path: &str,
    value: &Value,
) -> Result<Option<FieldMapping>> {
    match mappings.dynamic {
        Dynamic::False => return Ok(None),
        Dynamic::Strict => {
            return Err(SearchError::StrictDynamicMapping(format!(
            "mapping set to strict, dynamic introduction of [{path}] within [_doc] is not allowed"
        )))
        }
        Dynamic::True => {}
    }
    let as_object = || {
        SearchError::MapperParsing(format!(
            "object mapping for [{path}] tried to parse field [{path}] as object, but found a concrete value"
        ))
    };
    if mappings.is_object(path) {
        return Err(as_object());
    }
    let ty = detect(mappings, value);
    if let Some(template) = mappings.find_template(path, ty) {
        return match template.mapping_for(leaf_name(path), ty)? {
            TemplateMapping::Field(leaf) => Ok(Some(leaf)),
            TemplateMapping::Object => Err(as_object()),
        };
    }
    let leaf = match ty {
        DetectedType::Boolean => FieldMapping::of(FieldType::Boolean),
        DetectedType::Long => FieldMapping::of(FieldType::Long),
        DetectedType::Double => FieldMapping::of(FieldType::Float),
        DetectedType::Date => FieldMapping::of(FieldType::Date),
        _ => FieldMapping::dynamic_string(),
    };
    Ok(Some(leaf))
}
