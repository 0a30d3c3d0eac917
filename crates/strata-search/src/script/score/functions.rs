//! The functions of `function_score` and how their values combine.

use serde_json::{Map, Value};
use strata_script::{Context, DocLookup, DocValue, Limits};
use tantivy::{DocId, SegmentReader};

use crate::error::{Result, SearchError};
use crate::mapping::FieldType;
use crate::query::context::QueryContext;
use crate::script::doc_values::SegmentDocValues;
use crate::script::run::{illegal, run_number};
use crate::script::{compile, Compiled};

/// `field_value_factor`'s `modifier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    None,
    Log,
    Log1p,
    Log2p,
    Ln,
    Ln1p,
    Ln2p,
    Square,
    Sqrt,
    Reciprocal,
}

/// A decay curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Curve {
    Gauss,
    Exp,
    Linear,
}

/// What a function computes.
#[derive(Debug)]
pub enum Kind {
    /// `weight` alone: the constant 1 (times the weight).
    Constant,
    FieldValueFactor {
        field: String,
        factor: f64,
        modifier: Modifier,
        missing: Option<f64>,
    },
    Decay {
        field: String,
        curve: Curve,
        origin: f64,
        scale: f64,
        offset: f64,
        decay: f64,
    },
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
            "field_value_factor" => field_value_factor(value)?,
            "gauss" => decay(ctx, value, Curve::Gauss)?,
            "exp" => decay(ctx, value, Curve::Exp)?,
            "linear" => decay(ctx, value, Curve::Linear)?,
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
            Kind::FieldValueFactor {
                field,
                factor,
                modifier,
                missing,
            } => {
                let value = match first_number(doc_values, field)? {
                    Some(v) => v,
                    None => missing
                        .ok_or_else(|| illegal(format!("Missing value for field [{field}]")))?,
                };
                let v = modifier.apply(value * factor);
                if !v.is_finite() || v < 0.0 {
                    return Err(illegal(format!(
                        "field value function must not produce negative scores, but got: [{v}] for field value: [{value}]"
                    )));
                }
                v
            }
            Kind::Decay {
                field,
                curve,
                origin,
                scale,
                offset,
                decay,
            } => match first_number(doc_values, field)? {
                None => 1.0,
                Some(v) => curve.score((v - origin).abs(), *scale, *offset, *decay),
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

fn field_value_factor(value: &Value) -> Result<Kind> {
    let field = value
        .get("field")
        .and_then(Value::as_str)
        .ok_or_else(|| SearchError::parsing("[field_value_factor] requires a [field]"))?;
    let modifier = match value
        .get("modifier")
        .and_then(Value::as_str)
        .unwrap_or("none")
    {
        "none" => Modifier::None,
        "log" => Modifier::Log,
        "log1p" => Modifier::Log1p,
        "log2p" => Modifier::Log2p,
        "ln" => Modifier::Ln,
        "ln1p" => Modifier::Ln1p,
        "ln2p" => Modifier::Ln2p,
        "square" => Modifier::Square,
        "sqrt" => Modifier::Sqrt,
        "reciprocal" => Modifier::Reciprocal,
        other => return Err(SearchError::illegal(format!("Illegal modifier: {other}"))),
    };
    Ok(Kind::FieldValueFactor {
        field: field.to_string(),
        factor: value.get("factor").and_then(Value::as_f64).unwrap_or(1.0),
        modifier,
        missing: value.get("missing").and_then(Value::as_f64),
    })
}

impl Modifier {
    fn apply(self, v: f64) -> f64 {
        match self {
            Modifier::None => v,
            Modifier::Log => v.log10(),
            Modifier::Log1p => (v + 1.0).log10(),
            Modifier::Log2p => (v + 2.0).log10(),
            Modifier::Ln => v.ln(),
            Modifier::Ln1p => v.ln_1p(),
            Modifier::Ln2p => (v + 2.0).ln(),
            Modifier::Square => v * v,
            Modifier::Sqrt => v.sqrt(),
            Modifier::Reciprocal => 1.0 / v,
        }
    }
}

impl Curve {
    /// The decay at `distance` from the origin.
    pub fn score(self, distance: f64, scale: f64, offset: f64, decay: f64) -> f64 {
        let d = (distance - offset).max(0.0);
        match self {
            Curve::Gauss => {
                let sigma_sq = -scale * scale / (2.0 * decay.ln());
                (-(d * d) / (2.0 * sigma_sq)).exp()
            }
            Curve::Exp => (decay.ln() / scale * d).exp(),
            Curve::Linear => {
                let s = scale / (1.0 - decay);
                ((s - d) / s).max(0.0)
            }
        }
    }
}

/// `{"<field>": {"origin", "scale", "offset", "decay"}, "multi_value_mode": ..}`.
fn decay(ctx: &QueryContext<'_>, value: &Value, curve: Curve) -> Result<Kind> {
    let obj = value
        .as_object()
        .ok_or_else(|| SearchError::parsing("decay function must be an object"))?;
    let mut field = None;
    for (key, v) in obj {
        match key.as_str() {
            "multi_value_mode" => {}
            _ => field = Some((key.clone(), v)),
        }
    }
    let (name, params) =
        field.ok_or_else(|| SearchError::parsing("decay function needs a field"))?;
    let leaf = ctx.leaf(&name);
    let is_date = leaf.is_some_and(|l| l.ty == FieldType::Date);
    if leaf.is_some_and(|l| l.ty == FieldType::GeoPoint) {
        return Err(SearchError::illegal(format!(
            "[{name}]: decay functions on geo_point fields are not supported by this server"
        )));
    }
    let get = |k: &str| params.get(k);
    let parse_distance = |v: Option<&Value>, what: &str| -> Result<Option<f64>> {
        match v {
            None => Ok(None),
            Some(v) if is_date => match v {
                Value::Number(n) => Ok(n.as_f64()),
                Value::String(s) => duration_millis(s).map(Some).ok_or_else(|| {
                    SearchError::parsing(format!(
                        "failed to parse setting [{what}] with value [{s}] as a time value"
                    ))
                }),
                _ => Err(SearchError::parsing(format!(
                    "[{what}] must be a time value"
                ))),
            },
            Some(v) => v
                .as_f64()
                .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                .map(Some)
                .ok_or_else(|| SearchError::parsing(format!("[{what}] must be a number"))),
        }
    };
    let scale = parse_distance(get("scale"), "scale")?.ok_or_else(|| {
        SearchError::parsing(format!("[{name}] decay function requires a [scale]"))
    })?;
    if scale <= 0.0 {
        return Err(SearchError::illegal(format!(
            "[scale] must be > 0, got [{scale}]"
        )));
    }
    let offset = parse_distance(get("offset"), "offset")?.unwrap_or(0.0);
    let decay = get("decay").and_then(Value::as_f64).unwrap_or(0.5);
    if !(decay > 0.0 && decay < 1.0) {
        return Err(SearchError::illegal(format!(
            "decay must be in the range [0..1], got [{decay}]"
        )));
    }
    let origin = match get("origin") {
        None if is_date => ctx.now_millis as f64,
        None => {
            return Err(SearchError::parsing(format!(
                "[{name}] decay function requires an [origin]"
            )))
        }
        Some(v) if is_date => match v {
            Value::Number(n) => n.as_f64().unwrap_or(0.0),
            Value::String(s) => {
                let format = match leaf {
                    Some(l) => l.date_format(),
                    None => crate::mapping::date::DateFormat::parse(
                        crate::mapping::date::DEFAULT_DATE_FORMAT,
                    )?,
                };
                crate::query::date_math::eval(
                    s,
                    ctx.now_millis,
                    crate::search::time_zone::TimeZone::UTC,
                    &format,
                    false,
                )? as f64
            }
            _ => return Err(SearchError::parsing("[origin] must be a date")),
        },
        Some(v) => v
            .as_f64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
            .ok_or_else(|| SearchError::parsing("[origin] must be a number"))?,
    };
    Ok(Kind::Decay {
        field: name,
        curve,
        origin,
        scale,
        offset,
        decay,
    })
}

/// `10d`, `12h`, `30m`, `5s`, `100ms`, `2w` in milliseconds.
fn duration_millis(text: &str) -> Option<f64> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (n, unit) = text.split_at(split);
    let n: f64 = n.parse().ok()?;
    let unit_ms = match unit {
        "ms" => 1.0,
        "s" => 1e3,
        "m" => 60e3,
        "h" => 3600e3,
        "d" => 86_400e3,
        "w" => 7.0 * 86_400e3,
        _ => return None,
    };
    Some(n * unit_ms)
}

/// `score_mode`: how function values combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScoreMode {
    /// The product of the values.
    Multiply,
    /// The sum.
    Sum,
    /// The mean, weighted by each function's weight.
    Avg,
    /// The first matching function's value.
    First,
    /// The largest.
    Max,
    /// The smallest.
    Min,
}

impl ScoreMode {
    /// Parses a mode name.
    pub fn parse(name: &str) -> Result<ScoreMode> {
        Ok(match name {
            "multiply" => ScoreMode::Multiply,
            "sum" => ScoreMode::Sum,
            "avg" => ScoreMode::Avg,
            "first" => ScoreMode::First,
            "max" => ScoreMode::Max,
            "min" => ScoreMode::Min,
            other => {
                return Err(SearchError::illegal(format!(
                    "failed to parse [function_score] query. illegal score_mode [{other}]"
                )))
            }
        })
    }

    /// Combines `(weighted value, weight)` pairs of the matching functions.
    pub fn combine(self, values: &[(f64, f64)]) -> f64 {
        let it = values.iter().map(|(v, _)| *v);
        match self {
            ScoreMode::Multiply => it.product(),
            ScoreMode::Sum => it.sum(),
            ScoreMode::Avg => {
                let weights: f64 = values.iter().map(|(_, w)| *w).sum();
                it.sum::<f64>() / weights
            }
            ScoreMode::First => values[0].0,
            ScoreMode::Max => it.fold(f64::NEG_INFINITY, f64::max),
            ScoreMode::Min => it.fold(f64::INFINITY, f64::min),
        }
    }
}

/// `boost_mode`: how the functions' score combines with the query's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoostMode {
    /// Query score times the functions' score.
    Multiply,
    /// The functions' score only.
    Replace,
    /// Their sum.
    Sum,
    /// Their mean.
    Avg,
    /// The larger.
    Max,
    /// The smaller.
    Min,
}

impl BoostMode {
    /// Parses a mode name.
    pub fn parse(name: &str) -> Result<BoostMode> {
        Ok(match name {
            "multiply" => BoostMode::Multiply,
            "replace" => BoostMode::Replace,
            "sum" => BoostMode::Sum,
            "avg" => BoostMode::Avg,
            "max" => BoostMode::Max,
            "min" => BoostMode::Min,
            other => {
                return Err(SearchError::illegal(format!(
                    "failed to parse [function_score] query. illegal boost_mode [{other}]"
                )))
            }
        })
    }

    /// The final score from the query's and the functions'.
    pub fn combine(self, query: f64, functions: f64) -> f64 {
        match self {
            BoostMode::Multiply => query * functions,
            BoostMode::Replace => functions,
            BoostMode::Sum => query + functions,
            BoostMode::Avg => (query + functions) / 2.0,
            BoostMode::Max => query.max(functions),
            BoostMode::Min => query.min(functions),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decay_curves_give_decay_at_scale() {
        for curve in [Curve::Gauss, Curve::Exp, Curve::Linear] {
            assert!(
                (curve.score(10.0, 10.0, 0.0, 0.5) - 0.5).abs() < 1e-12,
                "{curve:?}"
            );
            assert_eq!(curve.score(3.0, 10.0, 5.0, 0.5), 1.0);
        }
        assert_eq!(Curve::Linear.score(30.0, 10.0, 0.0, 0.5), 0.0);
        assert_eq!(duration_millis("2d"), Some(172_800_000.0));
        assert_eq!(duration_millis("10x"), None);
    }
}
