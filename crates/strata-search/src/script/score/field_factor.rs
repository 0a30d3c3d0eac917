//! `field_value_factor`: a document's numeric field, scaled by `factor`
//! and passed through a `modifier`.

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::query::params::{check_params, number_of};
use crate::script::run::illegal;

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

/// A parsed `field_value_factor`.
#[derive(Debug, Clone)]
pub struct FieldValueFactor {
    /// The field read.
    pub field: String,
    factor: f64,
    modifier: Modifier,
    /// Used where the document has no value.
    missing: Option<f64>,
}

impl FieldValueFactor {
    /// `{"field", "factor", "modifier", "missing"}`.
    pub fn parse(value: &Value) -> Result<FieldValueFactor> {
        let obj = value
            .as_object()
            .ok_or_else(|| SearchError::parsing("[field_value_factor] must be an object"))?;
        check_params(
            "field_value_factor",
            obj,
            &["field", "factor", "modifier", "missing"],
        )?;
        let field = value
            .get("field")
            .and_then(Value::as_str)
            .ok_or_else(|| SearchError::parsing("[field_value_factor] requires a [field]"))?;
        let modifier = match value.get("modifier") {
            None => "none",
            Some(Value::String(name)) => name.as_str(),
            Some(other) => {
                return Err(SearchError::parsing(format!(
                    "[field_value_factor] modifier must be a string, got [{other}]"
                )))
            }
        };
        let modifier = match modifier {
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
        Ok(FieldValueFactor {
            field: field.to_string(),
            factor: number_of(value, "factor")?.unwrap_or(1.0),
            modifier,
            missing: number_of(value, "missing")?,
        })
    }

    /// The function's value for a document whose field holds `value`
    /// (`None`: no numeric value); a missing value without `missing`, or a
    /// negative or non-finite result, fails the search.
    pub fn value(&self, value: Option<f64>) -> tantivy::Result<f64> {
        let field = &self.field;
        let value = match value {
            Some(v) => v,
            None => self
                .missing
                .ok_or_else(|| illegal(format!("Missing value for field [{field}]")))?,
        };
        let v = self.modifier.apply(value * self.factor);
        if !v.is_finite() || v < 0.0 {
            return Err(illegal(format!(
                "field value function must not produce negative scores, but got: [{v}] for field value: [{value}]"
            )));
        }
        Ok(v)
    }
}
