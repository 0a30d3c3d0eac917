//! The functions of `function_score`: each one parsed from its entry and
//! evaluated per document.

use serde_json::{Map, Value};
use strata_script::{Context, DocLookup, DocValue, Limits};
use tantivy::{DocId, SegmentReader};

use super::decay::{Curve, Decay};
use super::field_factor::FieldValueFactor;
use crate::error::{Result, SearchError};
use crate::query::context::QueryContext;
use crate::script::doc_values::SegmentDocValues;
use crate::script::run::{illegal, run_number};
use crate::script::{compile, Compiled};

/// What a function computes.
#[derive(Debug)]
pub enum Kind {
    /// `weight` alone: the constant 1 (times the weight).
    Constant,
    FieldValueFactor(FieldValueFactor),
    Decay(Decay),
    /// `random_score`: with a seed, stable per document (and `field`).
    Random {
        seed: Option<u64>,
        field: Option<String>,
    },
    Script(Compiled),
}

/// One function with its weight.
#[derive(Debug)]
pub struct Function {
    /// What the function computes.
    pub kind: Kind,
    /// Its `weight` (1 when not given).
    pub weight: f64,
}

impl Function {
    /// Only a weight.
    pub fn weight_only(weight: f64) -> Function {
        Function {
            kind: Kind::Constant,
            weight,
        }
    }

    /// An entry of `functions`: one function key, `filter`, `weight`.
    pub fn parse_entry(ctx: &QueryContext<'_>, item: &Map<String, Value>) -> Result<Function> {
        let weight = match item.get("weight") {
            Some(w) => w.as_f64().ok_or_else(|| {
                SearchError::parsing("[function_score] [weight] must be a number")
            })?,
            None => 1.0,
        };
        let mut found = None;
        for (key, value) in item {
            if matches!(key.as_str(), "filter" | "weight") {
                continue;
            }
            if found.is_some() {
                return Err(SearchError::parsing(format!(
                    "failed to parse function_score: more than one function in an entry ([{key}])"
                )));
            }
            found = Some(Function::parse(ctx, key, value, weight)?);
        }
        Ok(found.unwrap_or_else(|| Function::weight_only(weight)))
    }

    /// The function named `name` with body `value`.
    pub fn parse(
        ctx: &QueryContext<'_>,
        name: &str,
        value: &Value,
        weight: f64,
    ) -> Result<Function> {
        let kind = match name {
            "field_value_factor" => Kind::FieldValueFactor(FieldValueFactor::parse(value)?),
            "gauss" => Kind::Decay(Decay::parse(ctx, value, Curve::Gauss)?),
            "exp" => Kind::Decay(Decay::parse(ctx, value, Curve::Exp)?),
            "linear" => Kind::Decay(Decay::parse(ctx, value, Curve::Linear)?),
            "random_score" => Kind::Random {
                seed: value.get("seed").and_then(|s| {
                    s.as_u64()
                        .or_else(|| s.as_str().map(|t| xxhash_rust::xxh3::xxh3_64(t.as_bytes())))
                }),
                field: value
                    .get("field")
                    .and_then(Value::as_str)
                    .map(str::to_string),
            },
            "script_score" => {
                let script = value
                    .get("script")
                    .ok_or_else(|| SearchError::parsing("[script_score] requires a [script]"))?;
                Kind::Script(compile(script, Context::Score)?)
            }
            other => {
                return Err(SearchError::parsing(format!(
                    "function_score: unknown function [{other}]"
                )))
            }
        };
        Ok(Function { kind, weight })
    }

    /// The function's value for `doc` (before its weight).
    pub fn value(
        &self,
        doc_values: &SegmentDocValues,
        doc: DocId,
        reader: &SegmentReader,
        query_score: f64,
        limits: Limits,
    ) -> tantivy::Result<f64> {
        Ok(match &self.kind {
            Kind::Constant => 1.0,
            Kind::FieldValueFactor(factor) => {
                factor.value(first_number(doc_values, &factor.field)?)?
            }
            Kind::Decay(decay) => match first_number(doc_values, &decay.field)? {
                None => 1.0,
                Some(v) => decay.score(v),
            },
            Kind::Random { seed, field } => {
                let key = match field {
                    Some(f) => format!("{:?}", doc_values.field(f).map_err(|e| illegal(e.reason))?),
                    None => format!("{}:{doc}", reader.segment_id().uuid_string()),
                };
                let seed = seed.unwrap_or_else(|| {
                    use std::hash::{BuildHasher, Hasher};
                    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
                    h.write_u32(doc);
                    h.finish()
                });
                let h = xxhash_rust::xxh3::xxh3_64_with_seed(key.as_bytes(), seed);
                (h >> 40) as f64 / (1u64 << 24) as f64
            }
            Kind::Script(script) => run_number(script, doc_values, Some(query_score), limits)?,
        })
    }
}

fn first_number(doc_values: &SegmentDocValues, field: &str) -> tantivy::Result<Option<f64>> {
    let values = doc_values.field(field).map_err(|e| illegal(e.reason))?;
    Ok(values.into_iter().find_map(|v| match v {
        DocValue::Int(n) | DocValue::Date(n) => Some(n as f64),
        DocValue::Double(f) => Some(f),
        DocValue::Bool(b) => Some(f64::from(u8::from(b))),
        DocValue::Str(_) => None,
    }))
}
