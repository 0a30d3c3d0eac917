//! `weighted_avg`: `sum(value * weight) / sum(weight)` over the matching
//! documents; each value of a multi-valued `value` field counts with the
//! document's weight, a document with several weights is an error (as in
//! Elasticsearch), `missing` stands in for an absent value or weight.

use serde_json::{json, Value};

use super::env::ScanEnv;
use super::params::{check_keys, field_param};
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;

/// One side (`value` or `weight`): a numeric field and its `missing`.
struct Side {
    field: String,
    mapped: bool,
    missing: Option<f64>,
}

impl Side {
    fn parse(name: &str, key: &str, params: &Value, mappings: &Mappings) -> Result<Side> {
        let obj = params.get(key).ok_or_else(|| {
            SearchError::parsing(format!("[weighted_avg] [{name}] requires [{key}]"))
        })?;
        check_keys(name, "weighted_avg", obj, &["field", "missing"])?;
        let field = field_param(name, "weighted_avg", obj)?.to_string();
        let kind = ValueKind::of(mappings, &field, name)?;
        if matches!(kind, Some(ValueKind::Str)) {
            return Err(SearchError::illegal(format!(
                "Field [{field}] of type [keyword] is not supported for aggregation [weighted_avg]"
            )));
        }
        let missing = match obj.get("missing") {
            None | Some(Value::Null) => None,
            Some(v) => Some(
                v.as_f64()
                    .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
                    .ok_or_else(|| {
                        SearchError::parsing(format!(
                            "[missing] of [{key}] in [{name}] must be a number, got [{v}]"
                        ))
                    })?,
            ),
        };
        Ok(Side {
            field,
            mapped: kind.is_some(),
            missing,
        })
    }
}

/// A parsed `weighted_avg`.
pub struct WeightedAvg {
    name: String,
    value: Side,
    weight: Side,
}

/// Sum of products, sum of weights, and whether a document had several weights.
#[derive(Default)]
pub struct Sums {
    products: f64,
    weights: f64,
    multi_weight: bool,
}

impl WeightedAvg {
    pub fn parse(name: &str, params: &Value, mappings: &Mappings) -> Result<WeightedAvg> {
        check_keys(
            name,
            "weighted_avg",
            params,
            &["value", "weight", "format", "value_type"],
        )?;
        if params.get("format").is_some_and(|f| !f.is_null()) {
            return Err(SearchError::illegal(format!(
                "[format] of [weighted_avg] aggregation [{name}] is not supported"
            )));
        }
        Ok(WeightedAvg {
            name: name.to_string(),
            value: Side::parse(name, "value", params, mappings)?,
            weight: Side::parse(name, "weight", params, mappings)?,
        })
    }

    pub fn run(self, env: &ScanEnv<'_>) -> Result<Value> {
        if !self.value.mapped && self.value.missing.is_none() {
            return Ok(json!({"value": null}));
        }
        let name = self.name.clone();
        let sums = env.scan(env.query, self)?;
        if sums.multi_weight {
            return Err(SearchError::illegal(format!(
                "Encountered more than one weight for a single document. Use a script to combine multiple weights-per-doc into a single value. (aggregation [{name}])"
            )));
        }
        Ok(if sums.weights == 0.0 {
            json!({"value": null})
        } else {
            json!({"value": sums.products / sums.weights})
        })
    }
}

impl Scan for WeightedAvg {
    type Acc = Sums;

    fn fields(&self) -> Vec<(String, ValueKind)> {
        vec![
            (self.value.field.clone(), ValueKind::Double),
            (self.weight.field.clone(), ValueKind::Double),
        ]
    }

    fn doc(&self, values: &[Vec<Key>], acc: &mut Sums) {
        let weight = match values[1].as_slice() {
            [] => match self.weight.missing {
                Some(w) => w,
                None => return,
            },
            [w] => w.num().unwrap_or(0.0),
            _ => {
                acc.multi_weight = true;
                return;
            }
        };
        if values[0].is_empty() {
            if let Some(v) = self.value.missing {
                acc.products += v * weight;
                acc.weights += weight;
            }
            return;
        }
        for v in values[0].iter().filter_map(Key::num) {
            acc.products += v * weight;
            acc.weights += weight;
        }
    }

    fn merge(&self, into: &mut Sums, part: Sums) {
        into.products += part.products;
        into.weights += part.weights;
        into.multi_weight |= part.multi_weight;
    }
}
