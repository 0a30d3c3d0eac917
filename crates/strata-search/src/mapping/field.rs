//! One mapped field: its type and parameters, parsed from and written back
//! to Elasticsearch's mapping JSON.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::date::DateFormat;
use crate::error::{Result, SearchError};

/// The field types this engine indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// Exact strings (`ignore_above` skips long values).
    Keyword,
    /// Analyzed full text (standard-like analyzer: words, lower-cased).
    Text,
    /// 64-bit integers.
    Long,
    /// 32-bit integers.
    Integer,
    /// 16-bit integers.
    Short,
    /// 8-bit integers.
    Byte,
    /// 64-bit floats.
    Double,
    /// 32-bit floats (kept as 64-bit).
    Float,
    /// 16-bit floats (kept as 64-bit).
    HalfFloat,
    /// Floats rounded to a `scaling_factor`.
    ScaledFloat,
    /// Dates, kept as epoch milliseconds.
    Date,
    /// Booleans.
    Boolean,
    /// IPv4/IPv6 addresses, kept in canonical text form.
    Ip,
    /// Latitude/longitude points (`store::geo_columns`).
    GeoPoint,
}

impl FieldType {
    /// Parses an Elasticsearch type name.
    pub(crate) fn from_name(name: &str) -> Option<FieldType> {
        Some(match name {
            "keyword" => FieldType::Keyword,
            "text" => FieldType::Text,
            "long" => FieldType::Long,
            "integer" => FieldType::Integer,
            "short" => FieldType::Short,
            "byte" => FieldType::Byte,
            "double" => FieldType::Double,
            "float" => FieldType::Float,
            "half_float" => FieldType::HalfFloat,
            "scaled_float" => FieldType::ScaledFloat,
            "date" => FieldType::Date,
            "boolean" => FieldType::Boolean,
            "ip" => FieldType::Ip,
            "geo_point" => FieldType::GeoPoint,
            _ => return None,
        })
    }

    /// The Elasticsearch type name.
    pub fn name(self) -> &'static str {
        match self {
            FieldType::Keyword => "keyword",
            FieldType::Text => "text",
            FieldType::Long => "long",
            FieldType::Integer => "integer",
            FieldType::Short => "short",
            FieldType::Byte => "byte",
            FieldType::Double => "double",
            FieldType::Float => "float",
            FieldType::HalfFloat => "half_float",
            FieldType::ScaledFloat => "scaled_float",
            FieldType::Date => "date",
            FieldType::Boolean => "boolean",
            FieldType::Ip => "ip",
            FieldType::GeoPoint => "geo_point",
        }
    }

    /// Numeric types: integers or floating point.
    pub fn is_numeric(self) -> bool {
        self.is_integer() || self.is_float()
    }

    /// Integer types (values kept as i64).
    pub(crate) fn is_integer(self) -> bool {
        matches!(
            self,
            FieldType::Long | FieldType::Integer | FieldType::Short | FieldType::Byte
        )
    }

    /// Floating-point types (values kept as f64).
    pub(crate) fn is_float(self) -> bool {
        matches!(
            self,
            FieldType::Double | FieldType::Float | FieldType::HalfFloat | FieldType::ScaledFloat
        )
    }

    /// The inclusive range of an integer type.
    pub(crate) fn integer_range(self) -> (i64, i64) {
        match self {
            FieldType::Integer => (i32::MIN.into(), i32::MAX.into()),
            FieldType::Short => (i16::MIN.into(), i16::MAX.into()),
            FieldType::Byte => (i8::MIN.into(), i8::MAX.into()),
            _ => (i64::MIN, i64::MAX),
        }
    }
}

/// A leaf field's mapping.
#[derive(Debug, Clone)]
pub struct FieldMapping {
    /// The type.
    pub ty: FieldType,
    /// `keyword`: values longer than this many characters are not indexed.
    pub(crate) ignore_above: Option<usize>,
    /// `scaled_float`: values are rounded to multiples of 1/scaling_factor.
    pub(crate) scaling_factor: Option<f64>,
    /// `date`: accepted formats.
    pub(crate) format: Option<DateFormat>,
    /// Multi-fields (`fields`): the same value indexed again under `<name>.<sub>`.
    pub(crate) fields: BTreeMap<String, FieldMapping>,
    /// `geo_point`: malformed values are skipped instead of failing the document.
    pub(crate) ignore_malformed: bool,
    /// `text`: the `norms` parameter as mapped. Scores never use length
    /// norms here (text lives in one tantivy JSON field whose field norm is
    /// not per path), so `false` states this engine's behaviour and `true`
    /// (Elasticsearch's default) is a documented difference.
    pub(crate) norms: bool,
}

impl FieldMapping {
    /// A mapping of type `ty` with default parameters.
    pub(crate) fn of(ty: FieldType) -> FieldMapping {
        FieldMapping {
            ty,
            ignore_above: None,
            scaling_factor: None,
            format: None,
            fields: BTreeMap::new(),
            ignore_malformed: false,
            norms: true,
        }
    }

    /// Dynamic mapping of a string: `text` with a `keyword` sub-field.
    pub(crate) fn dynamic_string() -> FieldMapping {
        let mut keyword = FieldMapping::of(FieldType::Keyword);
        keyword.ignore_above = Some(256);
        let mut text = FieldMapping::of(FieldType::Text);
        text.fields.insert("keyword".into(), keyword);
        text
    }

    /// The date format in force (the field's or the default).
    pub(crate) fn date_format(&self) -> DateFormat {
        self.date_parser().clone()
    }

    /// The date format in force, borrowed: indexing parses every date with
    /// it, and the default is parsed once per process rather than per value.
    pub(crate) fn date_parser(&self) -> &DateFormat {
        self.format
            .as_ref()
            .unwrap_or_else(|| DateFormat::default_format())
    }

    /// Parses `{"type": ..., params}` for the field `name`.
    pub(crate) fn parse(name: &str, body: &Map<String, Value>) -> Result<FieldMapping> {
        let type_name = body.get("type").and_then(Value::as_str).unwrap_or("object");
        let ty = FieldType::from_name(type_name).ok_or_else(|| {
            SearchError::MapperParsing(format!(
                "No handler for type [{type_name}] declared on field [{name}]"
            ))
        })?;
        let mut mapping = FieldMapping::of(ty);
        for (key, value) in body {
            match (key.as_str(), ty) {
                ("type", _) => {}
                ("ignore_above", FieldType::Keyword) => {
                    mapping.ignore_above = Some(as_usize(name, key, value)?);
                }
                ("scaling_factor", FieldType::ScaledFloat) => {
                    let f = value
                        .as_f64()
                        .filter(|f| *f > 0.0)
                        .ok_or_else(|| bad_param(name, key, value, "a positive number"))?;
                    mapping.scaling_factor = Some(f);
                }
                ("format", FieldType::Date) => {
                    let text = value
                        .as_str()
                        .ok_or_else(|| bad_param(name, key, value, "a string"))?;
                    mapping.format = Some(DateFormat::parse(text)?);
                }
                ("ignore_malformed", FieldType::GeoPoint) => {
                    mapping.ignore_malformed = value
                        .as_bool()
                        .ok_or_else(|| bad_param(name, key, value, "a boolean"))?;
                }
                ("norms", FieldType::Text) => {
                    mapping.norms = value
                        .as_bool()
                        .ok_or_else(|| bad_param(name, key, value, "a boolean"))?;
                }
                // Elevation values are dropped, as with the default `true`.
                ("ignore_z_value", FieldType::GeoPoint) if value == &Value::Bool(true) => {}
                ("fields", FieldType::GeoPoint) => {
                    return Err(SearchError::MapperParsing(format!(
                        "unknown parameter [fields] on mapper [{name}] of type [geo_point]"
                    )))
                }
                ("fields", _) => {
                    let subs = value
                        .as_object()
                        .ok_or_else(|| bad_param(name, key, value, "an object"))?;
                    for (sub, sub_body) in subs {
                        let sub_body = sub_body.as_object().ok_or_else(|| {
                            bad_param(name, sub, sub_body, "a field mapping object")
                        })?;
                        let sub_name = format!("{name}.{sub}");
                        let sub_mapping = FieldMapping::parse(&sub_name, sub_body)?;
                        mapping.fields.insert(sub.clone(), sub_mapping);
                    }
                }
                // Accepted only where they state this engine's behaviour.
                ("index" | "doc_values" | "norms", _) if value == &Value::Bool(true) => {}
                ("store", _) if value == &Value::Bool(false) => {}
                _ => {
                    return Err(SearchError::MapperParsing(format!(
                        "unknown parameter [{key}] on mapper [{name}] of type [{type_name}]"
                    )))
                }
            }
        }
        if ty == FieldType::ScaledFloat && mapping.scaling_factor.is_none() {
            return Err(SearchError::MapperParsing(format!(
                "Field [scaling_factor] is required for field [{name}]"
            )));
        }
        Ok(mapping)
    }

    /// The mapping as Elasticsearch writes it.
    pub(crate) fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("type".into(), json!(self.ty.name()));
        if let Some(n) = self.ignore_above {
            out.insert("ignore_above".into(), json!(n));
        }
        if let Some(f) = self.scaling_factor {
            out.insert("scaling_factor".into(), json!(f));
        }
        if let Some(f) = &self.format {
            out.insert("format".into(), json!(f.as_str()));
        }
        if self.ignore_malformed {
            out.insert("ignore_malformed".into(), json!(true));
        }
        if !self.norms {
            out.insert("norms".into(), json!(false));
        }
        if !self.fields.is_empty() {
            let subs: Map<String, Value> = self
                .fields
                .iter()
                .map(|(k, v)| (k.clone(), v.to_json()))
                .collect();
            out.insert("fields".into(), Value::Object(subs));
        }
        Value::Object(out)
    }

    /// True when `other` may replace this mapping (same type; parameters may only be added).
    pub(crate) fn compatible_with(&self, other: &FieldMapping) -> bool {
        self.ty == other.ty
    }
}

fn as_usize(name: &str, key: &str, value: &Value) -> Result<usize> {
    value
        .as_u64()
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| bad_param(name, key, value, "a non-negative integer"))
}

fn bad_param(name: &str, key: &str, value: &Value, what: &str) -> SearchError {
    SearchError::MapperParsing(format!(
        "Failed to parse mapping: parameter [{key}] of field [{name}] must be {what}, got [{value}]"
    ))
}
