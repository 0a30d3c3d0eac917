//! `weighted_avg`: `sum(value * weight) / sum(weight)` over the matching
//! documents; each value of a multi-valued `value` field counts with the
//! document's weight, a document with several weights is an error (as in
//! Elasticsearch), `missing` stands in for an absent value or weight.

use serde_json::{json, Value};

use super::env::ScanEnv;
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::agg_tree::{WeightedAvgParams, WeightedSide};

/// One side (`value` or `weight`): a numeric field and its `missing`.
struct Side {
    field: String,
    mapped: bool,
    missing: Option<f64>,
}

impl Side {
    /// The side `side` of the aggregation `name`, over its field's type in
    /// `mappings` (a keyword field is refused).
    fn new(name: &str, side: &WeightedSide, mappings: &Mappings) -> Result<Side> {
        let field = side.field.clone();
        let kind = ValueKind::of(mappings, &field, name)?;
        if matches!(kind, Some(ValueKind::Str)) {
            return Err(SearchError::illegal(format!(
                "Field [{field}] of type [keyword] is not supported for aggregation [weighted_avg]"
            )));
        }
        Ok(Side {
            field,
            mapped: kind.is_some(),
            missing: side.missing,
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
    /// The average `params` of the aggregation `name` asks for, over the
    /// fields' types in `mappings`.
    pub fn new(name: &str, params: &WeightedAvgParams, mappings: &Mappings) -> Result<WeightedAvg> {
        Ok(WeightedAvg {
            name: name.to_string(),
            value: Side::new(name, &params.value, mappings)?,
            weight: Side::new(name, &params.weight, mappings)?,
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
