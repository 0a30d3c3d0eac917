//! `cardinality` of any field (numbers, dates, booleans, keywords with
//! `missing`, and under buckets): the distinct values of the matching
//! documents, exact up to `precision_threshold`, then HyperLogLog
//! (`distinct_count`), keyword values hashed as `distinct_terms` hashes
//! them so both give the same counts.

use serde_json::{json, Value};

use super::env::ScanEnv;
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::agg_tree::CardinalityParams;
use crate::search::distinct_count::{value_of, DistinctCount};

/// A `cardinality` over a field of the mapping.
pub struct Cardinality {
    field: String,
    /// `None`: an unmapped field (no values).
    kind: Option<ValueKind>,
    threshold: u64,
    missing: Option<Key>,
}

impl Cardinality {
    /// The count `params` of the aggregation `name` asks for, over the
    /// field's type in `mappings` (which judges `missing`).
    pub fn new(name: &str, params: &CardinalityParams, mappings: &Mappings) -> Result<Cardinality> {
        let field = params.field.clone();
        let kind = ValueKind::of(mappings, &field, name)?;
        let missing = match (&params.missing, kind) {
            (None, _) => None,
            (Some(v), Some(kind)) => Some(kind.key_of(v).ok_or_else(|| {
                SearchError::illegal(format!(
                    "[missing] value [{v}] of [{name}] does not fit field [{field}]"
                ))
            })?),
            (Some(v), None) => Some(
                ValueKind::Str
                    .key_of(v)
                    .unwrap_or(Key::Str(v.to_string().into())),
            ),
        };
        Ok(Cardinality {
            field,
            kind,
            threshold: params.precision_threshold,
            missing,
        })
    }

    pub fn run(self, env: &ScanEnv<'_>) -> Result<Value> {
        let count = env.scan(env.query, self)?;
        Ok(json!({"value": count.count()}))
    }
}

impl Scan for Cardinality {
    type Acc = DistinctCount;

    fn fields(&self) -> Vec<(String, ValueKind)> {
        vec![(self.field.clone(), self.kind.unwrap_or(ValueKind::Str))]
    }

    fn doc(&self, values: &[Vec<Key>], acc: &mut DistinctCount) {
        let own = &values[0];
        let keys = if own.is_empty() {
            self.missing.as_slice()
        } else {
            own.as_slice()
        };
        for key in keys {
            acc.insert(value_of(&key.bytes()), self.threshold);
        }
    }

    fn merge(&self, into: &mut DistinctCount, part: DistinctCount) {
        into.merge(part, self.threshold);
    }
}
