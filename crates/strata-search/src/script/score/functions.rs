//! The functions of `function_score`: each one resolved from its parsed
//! form (`query::ast::FunctionAst`) and evaluated per document.

use strata_script::{Context, DocLookup, DocValue, Limits};
use tantivy::{DocId, SegmentReader};

use super::decay::Decay;
use super::field_factor::FieldValueFactor;
use crate::error::Result;
use crate::query::ast::FunctionAst;
use crate::query::context::QueryContext;
use crate::script::doc_values::SegmentDocValues;
use crate::script::run::{illegal, run_number};
use crate::script::{compile_spec, Compiled};

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
    /// The parsed function `function` with weight `weight`, resolved
    /// against the index.
    pub(crate) fn of(
        ctx: &QueryContext<'_>,
        function: &FunctionAst<'_>,
        weight: f64,
    ) -> Result<Function> {
        let kind = match function {
            FunctionAst::Weight => Kind::Constant,
            FunctionAst::FieldValueFactor(factor) => Kind::FieldValueFactor(factor.clone()),
            FunctionAst::Decay(decay) => Kind::Decay(Decay::resolve(ctx, decay)?),
            FunctionAst::Random { seed, field } => Kind::Random {
                seed: *seed,
                field: field.map(str::to_string),
            },
            FunctionAst::Script(spec) => Kind::Script(compile_spec(spec, Context::Score)?),
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
