//! The decay functions of `function_score` (`gauss`, `exp`, `linear`): a
//! score that falls with a numeric or date field's distance from an origin.

use serde_json::Value;

use super::curve::Curve;
use crate::error::{Result, SearchError};
use crate::mapping::FieldType;
use crate::query::ast::DecayAst;
use crate::query::context::QueryContext;

/// A parsed decay function.
#[derive(Debug)]
pub struct Decay {
    /// The field read.
    pub field: String,
    curve: Curve,
    origin: f64,
    scale: f64,
    offset: f64,
    decay: f64,
}

impl Decay {
    /// The parsed decay `ast`, its origin and distances read as dates or
    /// numbers by its field's type.
    pub(crate) fn resolve(ctx: &QueryContext<'_>, ast: &DecayAst<'_>) -> Result<Decay> {
        let name = ast.field;
        let leaf = ctx.leaf(name);
        let is_date = leaf.is_some_and(|l| l.ty == FieldType::Date);
        if leaf.is_some_and(|l| l.ty == FieldType::GeoPoint) {
            return Err(SearchError::illegal(format!(
                "[{name}]: decay functions on geo_point fields are not supported by this server"
            )));
        }
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
        let scale = parse_distance(ast.scale, "scale")?.ok_or_else(|| {
            SearchError::parsing(format!("[{name}] decay function requires a [scale]"))
        })?;
        if scale <= 0.0 {
            return Err(SearchError::illegal(format!(
                "[scale] must be > 0, got [{scale}]"
            )));
        }
        let offset = parse_distance(ast.offset, "offset")?.unwrap_or(0.0);
        let decay = ast.decay;
        if !(decay > 0.0 && decay < 1.0) {
            return Err(SearchError::illegal(format!(
                "decay must be in the range [0..1], got [{decay}]"
            )));
        }
        let origin = match ast.origin {
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
        Ok(Decay {
            field: name.to_string(),
            curve: ast.curve,
            origin,
            scale,
            offset,
            decay,
        })
    }

    /// The decay for a document whose field holds `value`.
    pub fn score(&self, value: f64) -> f64 {
        self.curve.score(
            (value - self.origin).abs(),
            self.scale,
            self.offset,
            self.decay,
        )
    }
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
