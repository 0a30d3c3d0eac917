//! `dynamic_templates`: named rules that choose the mapping of a field
//! dynamic mapping adds, by its detected JSON type (`match_mapping_type`),
//! its leaf name (`match`/`unmatch`) and its dotted path
//! (`path_match`/`path_unmatch`), with `*` wildcards. The first matching
//! template wins; `{name}` and `{dynamic_type}` in its `mapping` are
//! replaced by the field's leaf name and the detected type's default
//! mapping type.
//!
//! A template is validated when it is defined: its mapping must build for
//! every type it names (for at least one when it names none or `*`). The
//! template keeps the JSON it was defined with, which `_mapping` returns.

use serde_json::{Map, Value};

use super::field::FieldMapping;
use crate::error::{Result, SearchError};

/// A JSON value's type as dynamic mapping detects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetectedType {
    /// A string (not date-like, or `date_detection` off).
    String,
    /// An integral number.
    Long,
    /// A number with a fraction or exponent.
    Double,
    /// `true` or `false`.
    Boolean,
    /// A date-like string under `date_detection`.
    Date,
    /// A JSON object.
    Object,
    /// Base64 binary; never detected from JSON, accepted for compatibility.
    Binary,
}

const ALL_TYPES: [DetectedType; 7] = [
    DetectedType::String,
    DetectedType::Long,
    DetectedType::Double,
    DetectedType::Boolean,
    DetectedType::Date,
    DetectedType::Object,
    DetectedType::Binary,
];

impl DetectedType {
    fn from_name(name: &str) -> Option<DetectedType> {
        ALL_TYPES.into_iter().find(|t| t.name() == name)
    }

    /// The `match_mapping_type` name.
    pub fn name(self) -> &'static str {
        match self {
            DetectedType::String => "string",
            DetectedType::Long => "long",
            DetectedType::Double => "double",
            DetectedType::Boolean => "boolean",
            DetectedType::Date => "date",
            DetectedType::Object => "object",
            DetectedType::Binary => "binary",
        }
    }

    /// What `{dynamic_type}` (and a mapping without `type`) stands for.
    pub(crate) fn default_mapping_type(self) -> &'static str {
        match self {
            DetectedType::String => "text",
            DetectedType::Long => "long",
            DetectedType::Double => "float",
            DetectedType::Boolean => "boolean",
            DetectedType::Date => "date",
            DetectedType::Object => "object",
            DetectedType::Binary => "binary",
        }
    }
}

/// What a template maps a field to.
#[derive(Debug, Clone)]
pub enum TemplateMapping {
    /// An object whose sub-fields are mapped dynamically.
    Object,
    /// A leaf field.
    Field(FieldMapping),
}

/// One named template.
#[derive(Debug, Clone)]
pub struct DynamicTemplate {
    /// The template's name.
    pub name: String,
    /// `None`: `match_mapping_type` absent or `*` (every type).
    types: Option<Vec<DetectedType>>,
    names_set: bool,
    matches: Vec<String>,
    unmatches: Vec<String>,
    path_matches: Vec<String>,
    path_unmatches: Vec<String>,
    mapping: Map<String, Value>,
    body: Value,
}

impl DynamicTemplate {
    /// Parses one `{"<name>": {conditions..., "mapping": {...}}}` entry.
    pub fn parse(entry: &Value) -> Result<DynamicTemplate> {
        let obj = entry.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
            bad(format!(
                "A dynamic template must be defined with a name, got [{entry}]"
            ))
        })?;
        let Some((name, body)) = obj.iter().next() else {
            return Err(bad("A dynamic template must be defined with a name".into()));
        };
        let params = body.as_object().ok_or_else(|| {
            bad(format!(
                "dynamic template [{name}] must be an object, got [{body}]"
            ))
        })?;
        let mut t = DynamicTemplate {
            name: name.clone(),
            types: None,
            names_set: false,
            matches: Vec::new(),
            unmatches: Vec::new(),
            path_matches: Vec::new(),
            path_unmatches: Vec::new(),
            mapping: Map::new(),
            body: body.clone(),
        };
        let mut mapping = None;
        for (key, value) in params {
            match key.as_str() {
                "match_mapping_type" => {
                    let names = patterns(name, key, value)?;
                    if !names.iter().any(|n| n == "*") {
                        let types = names
                            .iter()
                            .map(|n| {
                                DetectedType::from_name(n).ok_or_else(|| {
                                    bad(format!(
                                        "No field type matched on [{n}], possible values are [object, string, long, double, boolean, date, binary] (dynamic template [{name}])"
                                    ))
                                })
                            })
                            .collect::<Result<Vec<_>>>()?;
                        t.types = Some(types);
                    }
                    t.names_set = true;
                }
                "match" => {
                    t.matches = patterns(name, key, value)?;
                    t.names_set = true;
                }
                "path_match" => {
                    t.path_matches = patterns(name, key, value)?;
                    t.names_set = true;
                }
                "unmatch" => t.unmatches = patterns(name, key, value)?,
                "path_unmatch" => t.path_unmatches = patterns(name, key, value)?,
                "match_pattern" => match value.as_str() {
                    Some("simple") => {}
                    _ => {
                        return Err(bad(format!(
                            "dynamic template [{name}]: match_pattern [{value}] is not supported (only simple wildcards are)"
                        )))
                    }
                },
                "mapping" => {
                    mapping = Some(value.as_object().cloned().ok_or_else(|| {
                        bad(format!("[mapping] of dynamic template [{name}] must be an object"))
                    })?)
                }
                "runtime" => {
                    return Err(bad(format!(
                        "dynamic template [{name}]: runtime fields are not supported"
                    )))
                }
                other => {
                    return Err(bad(format!(
                        "Illegal dynamic template parameter: [{other}] (dynamic template [{name}])"
                    )))
                }
            }
        }
        t.mapping = mapping.ok_or_else(|| {
            bad(format!(
                "template [{name}] must have either mapping or runtime set"
            ))
        })?;
        t.validate()?;
        Ok(t)
    }

    fn validate(&self) -> Result<()> {
        let mut first_error = None;
        let mut any_ok = false;
        for ty in self.types.clone().unwrap_or_else(|| ALL_TYPES.to_vec()) {
            match self.mapping_for("__dynamic__", ty) {
                Ok(_) => any_ok = true,
                Err(e) if self.types.is_some() => {
                    return Err(bad(format!(
                        "dynamic template [{}] has invalid content [{}]: {e}",
                        self.name, self.body
                    )))
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match (any_ok, first_error) {
            (false, Some(e)) => Err(bad(format!(
                "dynamic template [{}] has invalid content [{}]: {e}",
                self.name, self.body
            ))),
            _ => Ok(()),
        }
    }

    /// True when this template applies to a new field at `path` of type `ty`.
    pub fn matches(&self, path: &str, ty: DetectedType) -> bool {
        if !self.names_set {
            return false;
        }
        let leaf = path.rsplit('.').next().unwrap_or(path);
        let any = |pats: &[String], s: &str| pats.iter().any(|p| wildcard_match(p, s));
        self.types.as_ref().is_none_or(|ts| ts.contains(&ty))
            && (self.matches.is_empty() || any(&self.matches, leaf))
            && !any(&self.unmatches, leaf)
            && (self.path_matches.is_empty() || any(&self.path_matches, path))
            && !any(&self.path_unmatches, path)
    }

    /// The mapping for a field named `leaf` (placeholders replaced), detected as `ty`.
    pub(crate) fn mapping_for(&self, leaf: &str, ty: DetectedType) -> Result<TemplateMapping> {
        let Value::Object(mut body) = substitute(&Value::Object(self.mapping.clone()), leaf, ty)
        else {
            return Err(bad("a template mapping must be an object".into()));
        };
        let type_name = match body.get("type") {
            None => ty.default_mapping_type().to_string(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(bad(format!("[type] must be a string, got [{other}]"))),
        };
        if type_name == "object" {
            if let Some(key) = body.keys().find(|k| k.as_str() != "type") {
                return Err(bad(format!(
                    "unknown parameter [{key}] on mapper [{leaf}] of type [object]"
                )));
            }
            return Ok(TemplateMapping::Object);
        }
        body.insert("type".into(), Value::String(type_name));
        Ok(TemplateMapping::Field(FieldMapping::parse(leaf, &body)?))
    }

    /// The template as Elasticsearch returns it (`{"<name>": {...}}`).
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert(self.name.clone(), self.body.clone());
        Value::Object(out)
    }
}

fn bad(msg: String) -> SearchError {
    SearchError::MapperParsing(msg)
}

/// A condition's value: a string or a list of strings.
fn patterns(template: &str, key: &str, value: &Value) -> Result<Vec<String>> {
    let fail = || {
        bad(format!(
            "[{key}] of dynamic template [{template}] must be a string or a list of strings, got [{value}]"
        ))
    };
    match value {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(fail))
            .collect(),
        _ => Err(fail()),
    }
}

/// Replaces `{name}` and `{dynamic_type}` in every key and string value.
fn substitute(value: &Value, leaf: &str, ty: DetectedType) -> Value {
    let text = |s: &str| {
        s.replace("{name}", leaf)
            .replace("{dynamic_type}", ty.default_mapping_type())
    };
    match value {
        Value::String(s) => Value::String(text(s)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| substitute(v, leaf, ty)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (text(k), substitute(v, leaf, ty)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Elasticsearch's simple match: `*` stands for any run of characters.
pub fn wildcard_match(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let [first, middle @ .., last] = parts.as_slice() else {
        return pattern == text;
    };
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::mapping::FieldType;

    #[test]
    fn wildcards() {
        assert!(wildcard_match("*", "anything"));
        assert!(wildcard_match("long_*", "long_x"));
        assert!(!wildcard_match("long_*", "x_long"));
        assert!(wildcard_match("*_text", "a_text"));
        assert!(wildcard_match("a*b*c", "aXXbYc"));
        assert!(!wildcard_match("a*b*c", "aXXcYb"));
        assert!(!wildcard_match("ab*ba", "aba"));
        assert!(wildcard_match("exact", "exact"));
        assert!(!wildcard_match("exact", "exactly"));
        assert!(wildcard_match("", ""));
    }

    #[test]
    fn conditions_and_placeholders() {
        let t = DynamicTemplate::parse(&json!({"t": {
            "match_mapping_type": "string", "match": "*_kw", "unmatch": "skip_*",
            "path_match": "a.*", "mapping": {"type": "keyword", "fields": {"{name}_raw": {"type": "{dynamic_type}"}}}
        }}))
        .unwrap();
        assert!(t.matches("a.b.x_kw", DetectedType::String));
        assert!(!t.matches("a.b.x_kw", DetectedType::Long));
        assert!(!t.matches("a.skip_kw", DetectedType::String));
        assert!(!t.matches("b.x_kw", DetectedType::String));
        let TemplateMapping::Field(f) = t.mapping_for("x_kw", DetectedType::String).unwrap() else {
            panic!("expected a field");
        };
        assert_eq!(f.ty, FieldType::Keyword);
        assert_eq!(f.fields["x_kw_raw"].ty, FieldType::Text);
        // No condition: matches nothing.
        let none = DynamicTemplate::parse(&json!({"n": {"mapping": {"type": "long"}}})).unwrap();
        assert!(!none.matches("x", DetectedType::Long));
    }

    #[test]
    fn validation() {
        for bad in [
            json!({"a": {"match": "*"}}),
            json!({"a": {"match": "*", "mapping": {"type": "nope"}}}),
            json!({"a": {"match_mapping_type": "strin", "mapping": {}}}),
            json!({"a": {"match": 3, "mapping": {}}}),
            json!({"a": {"bogus": 1, "mapping": {}}}),
            json!({"a": {"match_pattern": "regex", "match": "x", "mapping": {}}}),
            json!({"a": {"match_mapping_type": "long", "mapping": {"type": "{dynamic_type}", "ignore_above": 3}}}),
            json!({"a": {}, "b": {}}),
            json!("x"),
        ] {
            let err = DynamicTemplate::parse(&bad).unwrap_err();
            assert_eq!(err.es_type(), "mapper_parsing_exception", "{bad}");
        }
        // Valid for some type when none is named: accepted.
        DynamicTemplate::parse(&json!({"a": {"match": "*", "mapping": {"type": "{dynamic_type}", "format": "epoch_millis"}}}))
            .unwrap();
    }
}
