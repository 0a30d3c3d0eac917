//! Values computed by scripts for each hit:
//! - `script_fields`: `{"name": {"script": ...}}`, the script's value in
//!   the hit's `fields` (a list as it is, anything else in a list of one);
//! - `runtime_mappings`: `{"name": {"type": ..., "script": ...}}`, the
//!   values the script `emit`s, typed, in `fields` when the `fields`
//!   option asks for the name (directly or by a pattern).
//!
//! Runtime fields are computed for hits, queried (`runtime_query`),
//! sorted on (`search::runtime_sort`) and aggregated by the top-level
//! aggregations `search::runtime_aggs` takes; any other aggregation on
//! one is refused (`validate_usage`).

use std::sync::Arc;

use serde_json::{Map, Value};
use strata_script::{Context, Input, Limits};
use tantivy::{DocId, SegmentReader};

use super::doc_values::SegmentDocValues;
use super::{compile, Compiled};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;

/// A runtime field's type: how emitted values are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeType {
    /// `keyword`: strings.
    Keyword,
    /// `long`: integers.
    Long,
    /// `double`: numbers.
    Double,
    /// `date`: epoch milliseconds or date strings.
    Date,
    /// `boolean`.
    Boolean,
    /// `ip`: IPv4 or IPv6 addresses.
    Ip,
}

impl RuntimeType {
    /// The Elasticsearch type name.
    pub fn name(self) -> &'static str {
        match self {
            RuntimeType::Keyword => "keyword",
            RuntimeType::Long => "long",
            RuntimeType::Double => "double",
            RuntimeType::Date => "date",
            RuntimeType::Boolean => "boolean",
            RuntimeType::Ip => "ip",
        }
    }
}

/// The scripted values a search asks for.
#[derive(Debug, Clone, Default)]
pub(crate) struct ScriptedFields {
    script_fields: Vec<(String, Compiled, bool)>,
    runtime: Vec<(String, RuntimeType, Compiled)>,
}

impl ScriptedFields {
    /// Parses `script_fields`.
    pub(crate) fn parse_script_fields(&mut self, value: &Value) -> Result<()> {
        let obj = value
            .as_object()
            .ok_or_else(|| SearchError::parsing("[script_fields] must be an object"))?;
        for (name, body) in obj {
            let body = body.as_object().ok_or_else(|| {
                SearchError::parsing(format!("[script_fields] [{name}] must be an object"))
            })?;
            let mut script = None;
            let mut ignore_failure = false;
            for (key, v) in body {
                match key.as_str() {
                    "script" => script = Some(compile(v, Context::Field)?),
                    "ignore_failure" => ignore_failure = v.as_bool().unwrap_or(false),
                    other => {
                        return Err(SearchError::parsing(format!(
                            "Unknown key for a START_OBJECT in [{other}]."
                        )))
                    }
                }
            }
            let script = script.ok_or_else(|| {
                SearchError::parsing(format!("[script_fields] [{name}] requires a [script]"))
            })?;
            self.script_fields
                .push((name.clone(), script, ignore_failure));
        }
        Ok(())
    }

    /// Parses `runtime_mappings`.
    pub(crate) fn parse_runtime_mappings(&mut self, value: &Value) -> Result<()> {
        let obj = value
            .as_object()
            .ok_or_else(|| SearchError::parsing("[runtime_mappings] must be an object"))?;
        for (name, body) in obj {
            let ty = match body.get("type").and_then(Value::as_str) {
                Some("keyword") => RuntimeType::Keyword,
                Some("long") => RuntimeType::Long,
                Some("double") => RuntimeType::Double,
                Some("date") => RuntimeType::Date,
                Some("boolean") => RuntimeType::Boolean,
                Some("ip") => RuntimeType::Ip,
                Some(other) => {
                    return Err(SearchError::MapperParsing(format!(
                        "No handler for type [{other}] declared on runtime field [{name}]"
                    )))
                }
                None => {
                    return Err(SearchError::MapperParsing(format!(
                        "No type specified for field [{name}]"
                    )))
                }
            };
            let script = body.get("script").ok_or_else(|| {
                SearchError::illegal(format!(
                    "runtime field [{name}] without a script (read from _source) is not supported by this server"
                ))
            })?;
            self.runtime
                .push((name.clone(), ty, compile(script, Context::RuntimeField)?));
        }
        Ok(())
    }

    /// The runtime field `name`: its type and script.
    pub(crate) fn runtime_field(&self, name: &str) -> Option<(RuntimeType, &Compiled)> {
        self.runtime
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, ty, script)| (*ty, script))
    }

    /// Adds the runtime fields of an index mapping's `runtime` section
    /// that the request does not define itself (the request's win).
    pub(crate) fn add_mapped_runtime(&mut self, section: &Value) -> Result<()> {
        let mut mapped = ScriptedFields::default();
        mapped.parse_runtime_mappings(section)?;
        for field in mapped.runtime {
            if self.runtime_field(&field.0).is_none() {
                self.runtime.push(field);
            }
        }
        Ok(())
    }

    /// Nothing to compute.
    pub(crate) fn is_empty(&self) -> bool {
        self.script_fields.is_empty() && self.runtime.is_empty()
    }

    /// Refuses an aggregation (or another request part given) that names
    /// a runtime field: what `search::runtime_aggs` did not take.
    pub(crate) fn validate_usage(&self, mappings: &Mappings, parts: &[&Value]) -> Result<()> {
        for (name, _, _) in &self.runtime {
            if mappings.leaf(name).is_some() {
                continue;
            }
            if parts.iter().any(|p| names_field(p, name)) {
                return Err(SearchError::illegal(format!(
                    "runtime field [{name}] is aggregated by this server only in top-level terms, histogram, range, avg, sum, min, max, stats, value_count and cardinality aggregations (sub-aggregations below terms, histogram and range)"
                )));
            }
        }
        Ok(())
    }

    /// Adds the hit's scripted values to `out`: every script field, and
    /// the runtime fields `wanted` names.
    pub(crate) fn add_to(
        &self,
        segment: &SegmentReader,
        doc: DocId,
        mappings: &Arc<Mappings>,
        wanted: &dyn Fn(&str) -> bool,
        out: &mut Map<String, Value>,
    ) -> Result<()> {
        let doc_values = SegmentDocValues::new(segment, mappings.clone());
        doc_values.set_doc(doc);
        for (name, compiled, ignore_failure) in &self.script_fields {
            let run = compiled.script.run(Input {
                params: Some(&compiled.params),
                doc: Some(&doc_values),
                limits: Limits::default(),
                ..Input::default()
            });
            match run {
                Ok(output) => {
                    let values = match output.value {
                        Value::Array(items) => items,
                        other => vec![other],
                    };
                    out.insert(name.clone(), Value::Array(values));
                }
                Err(_) if *ignore_failure => {}
                Err(e) => return Err(super::script_error(e)),
            }
        }
        for (name, ty, compiled) in &self.runtime {
            if !wanted(name) {
                continue;
            }
            let output = compiled
                .script
                .run(Input {
                    params: Some(&compiled.params),
                    doc: Some(&doc_values),
                    limits: Limits::default(),
                    ..Input::default()
                })
                .map_err(super::script_error)?;
            let mut values = Vec::with_capacity(output.emitted.len());
            for v in output.emitted {
                values.push(typed(name, *ty, v)?);
            }
            if !values.is_empty() {
                out.insert(name.clone(), Value::Array(values));
            }
        }
        Ok(())
    }
}

/// Whether `part` uses `name` as a field: as a key, or as the value of
/// `field`/`fields` (serde_json bounds the nesting of parsed bodies).
fn names_field(part: &Value, name: &str) -> bool {
    match part {
        Value::Object(obj) => obj.iter().any(|(k, v)| {
            k == name
                || (matches!(k.as_str(), "field" | "fields")
                    && (v.as_str() == Some(name)
                        || v.as_array()
                            .is_some_and(|a| a.iter().any(|x| x.as_str() == Some(name)))))
                || names_field(v, name)
        }),
        Value::Array(items) => items.iter().any(|v| names_field(v, name)),
        _ => false,
    }
}

/// An emitted value checked against the runtime field's type.
fn typed(name: &str, ty: RuntimeType, v: Value) -> Result<Value> {
    let ok = match ty {
        RuntimeType::Keyword | RuntimeType::Ip => v.is_string(),
        RuntimeType::Long => v.is_i64() || v.is_u64(),
        RuntimeType::Double => v.is_number(),
        RuntimeType::Boolean => v.is_boolean(),
        RuntimeType::Date => v.is_i64() || v.is_string(),
    };
    if !ok {
        return Err(SearchError::illegal(format!(
            "runtime field [{name}]: cannot emit [{v}] as a [{ty:?}] value"
        )));
    }
    Ok(match (ty, v) {
        (RuntimeType::Double, Value::Number(n)) => Value::from(n.as_f64().unwrap_or(0.0)),
        (RuntimeType::Date, Value::Number(n)) => {
            Value::String(crate::mapping::date::format_millis(n.as_i64().unwrap_or(0)))
        }
        (_, v) => v,
    })
}
