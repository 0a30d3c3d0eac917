//! The functions of `function_score`, parsed: `weight` alone,
//! `field_value_factor`, the decays (`gauss`, `exp`, `linear`),
//! `random_score` and `script_score`. What depends on the index (a decay
//! field's type, which decides how its origin and distances read) is
//! resolved when the query is translated.

use serde_json::Value;
use strata_script::ScriptSpec;

use crate::error::{Result, SearchError};
use crate::query::params::{check_params, number_of};
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
        "random_score" => random(value)?,
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
    let decay = number_of(params, "decay")?.unwrap_or(0.5);
    // The curves divide by ln(decay): 0 and 1 would give infinite or NaN
    // scores.
    if !(decay > 0.0 && decay < 1.0) {
        return Err(SearchError::illegal(format!(
            "decay must be in the range (0..1), got [{decay}]"
        )));
    }
    Ok(DecayAst {
        curve,
        field,
        origin: get("origin"),
        scale: get("scale"),
        offset: get("offset"),
        decay,
    })
}

/// `random_score`: `seed` an integer (negative ones too) or a string
/// (hashed), `field` a field name; nothing else.
fn random(value: &Value) -> Result<FunctionAst<'_>> {
    let obj = value
        .as_object()
        .ok_or_else(|| SearchError::parsing("[random_score] must be an object"))?;
    check_params("random_score", obj, &["seed", "field"])?;
    let seed = match obj.get("seed") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(xxhash_rust::xxh3::xxh3_64(text.as_bytes())),
        // A negative seed keeps its bits: any i64 is a valid seed.
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {
            n.as_u64().or_else(|| n.as_i64().map(|i| i as u64))
        }
        Some(other) => {
            return Err(SearchError::parsing(format!(
                "random_score seed must be an int, long or string, not [{other}]"
            )))
        }
    };
    let field = match obj.get("field") {
        None => None,
        Some(Value::String(name)) => Some(name.as_str()),
        Some(other) => {
            return Err(SearchError::parsing(format!(
                "[random_score] field must be a string, not [{other}]"
            )))
        }
    };
    Ok(FunctionAst::Random { seed, field })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{function, FunctionAst};

    fn refused(name: &str, body: serde_json::Value) -> String {
        function(name, &body).expect_err("refused").to_string()
    }

    #[test]
    fn random_score_takes_integer_and_string_seeds_and_refuses_the_rest() {
        let seed = |body| match function("random_score", &body).unwrap() {
            FunctionAst::Random { seed, .. } => seed,
            other => panic!("not random: {other:?}"),
        };
        assert_eq!(seed(json!({"seed": 7, "field": "_seq_no"})), Some(7));
        assert_eq!(seed(json!({"seed": -1})), Some(u64::MAX));
        assert_eq!(seed(json!({})), None);
        assert_eq!(seed(json!({"seed": "abc"})), seed(json!({"seed": "abc"})));
        assert_ne!(seed(json!({"seed": "abc"})), seed(json!({"seed": "abd"})));
        assert!(refused("random_score", json!({"seed": 1.5})).contains("seed must be an int"));
        assert!(refused("random_score", json!({"seed": [1]})).contains("seed must be an int"));
        assert!(refused("random_score", json!({"sed": 1})).contains("does not support [sed]"));
        assert!(refused("random_score", json!({"field": 3})).contains("field must be a string"));
    }

    #[test]
    fn field_value_factor_refuses_what_it_would_ignore() {
        let FunctionAst::FieldValueFactor(f) = function(
            "field_value_factor",
            &json!({"field": "n", "factor": "2.5", "missing": 1}),
        )
        .unwrap() else {
            panic!("not a field_value_factor")
        };
        // The fields are the function's own; its Debug form shows them.
        let shown = format!("{f:?}");
        assert!(shown.contains("factor: 2.5") && shown.contains("missing: Some(1.0)"));
        let bad = |body| refused("field_value_factor", body);
        assert!(bad(json!({"field": "n", "factor": "x"})).contains("[factor] must be a number"));
        assert!(bad(json!({"field": "n", "missing": true})).contains("[missing] must be a number"));
        assert!(bad(json!({"field": "n", "modifier": 1})).contains("modifier must be a string"));
        assert!(bad(json!({"field": "n", "factr": 2})).contains("does not support [factr]"));
    }

    #[test]
    fn decay_must_be_a_number_strictly_between_zero_and_one() {
        let ok = json!({"n": {"origin": 0, "scale": 1, "decay": "0.25"}});
        let FunctionAst::Decay(d) = function("gauss", &ok).unwrap() else {
            panic!("not a decay")
        };
        assert_eq!(d.decay, 0.25);
        for decay in [json!(0), json!(1), json!(-0.5), json!(2)] {
            let body = json!({"n": {"origin": 0, "scale": 1, "decay": decay}});
            assert!(refused("exp", body).contains("decay must be in the range"));
        }
        let body = json!({"n": {"origin": 0, "scale": 1, "decay": "half"}});
        assert!(refused("linear", body).contains("[decay] must be a number"));
    }
}
