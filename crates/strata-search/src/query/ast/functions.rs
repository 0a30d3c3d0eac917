//! The functions of `function_score`, parsed: `weight` alone,
//! `field_value_factor`, the decays (`gauss`, `exp`, `linear`),
//! `random_score` and `script_score`. What depends on the index (a decay
//! field's type, which decides how its origin and distances read) is
//! resolved when the query is translated.

use serde_json::Value;
use strata_script::ScriptSpec;

use crate::error::{Result, SearchError};
use crate::script::parse_spec;
use crate::script::score::{Curve, FieldValueFactor};

/// One function of `function_score`.
#[derive(Debug)]
pub(crate) enum FunctionAst<'a> {
    /// `weight` alone: the constant 1 (times the weight).
    Weight,
    FieldValueFactor(FieldValueFactor),
    Decay(DecayAst<'a>),
    /// `random_score`: with a seed, stable per document (and `field`).
    Random {
        seed: Option<u64>,
        field: Option<&'a str>,
    },
    Script(ScriptSpec),
}

/// A decay function: `{"<field>": {"origin", "scale", "offset",
/// "decay"}, "multi_value_mode": ..}`. The origin and distances are read
/// as dates or numbers by the field's type.
#[derive(Debug)]
pub(crate) struct DecayAst<'a> {
    pub curve: Curve,
    pub field: &'a str,
    pub origin: Option<&'a Value>,
    pub scale: Option<&'a Value>,
    pub offset: Option<&'a Value>,
    /// The score at `scale` from the origin (0.5 when not given).
    pub decay: f64,
}

/// The function named `name` with body `value`.
pub(super) fn function<'a>(name: &str, value: &'a Value) -> Result<FunctionAst<'a>> {
    Ok(match name {
        "field_value_factor" => FunctionAst::FieldValueFactor(FieldValueFactor::parse(value)?),
        "gauss" => FunctionAst::Decay(decay(value, Curve::Gauss)?),
        "exp" => FunctionAst::Decay(decay(value, Curve::Exp)?),
        "linear" => FunctionAst::Decay(decay(value, Curve::Linear)?),
        "random_score" => FunctionAst::Random {
            seed: value.get("seed").and_then(|s| {
                s.as_u64()
                    .or_else(|| s.as_str().map(|t| xxhash_rust::xxh3::xxh3_64(t.as_bytes())))
            }),
            field: value.get("field").and_then(Value::as_str),
        },
        "script_score" => {
            let script = value
                .get("script")
                .ok_or_else(|| SearchError::parsing("[script_score] requires a [script]"))?;
            FunctionAst::Script(parse_spec(script)?)
        }
        other => {
            return Err(SearchError::parsing(format!(
                "function_score: unknown function [{other}]"
            )))
        }
    })
}

/// A decay function of curve `curve`; the last key other than
/// `multi_value_mode` names the field.
fn decay(value: &Value, curve: Curve) -> Result<DecayAst<'_>> {
    let obj = value
        .as_object()
        .ok_or_else(|| SearchError::parsing("decay function must be an object"))?;
    let (field, params) = obj
        .iter()
        .rfind(|(key, _)| key.as_str() != "multi_value_mode")
        .ok_or_else(|| SearchError::parsing("decay function needs a field"))?;
    let get = |k: &str| params.get(k);
    Ok(DecayAst {
        curve,
        field,
        origin: get("origin"),
        scale: get("scale"),
        offset: get("offset"),
        decay: get("decay").and_then(Value::as_f64).unwrap_or(0.5),
    })
}
