//! `cardinality` of any field (numbers, dates, booleans, keywords with
//! `missing`, and under buckets): the distinct values of the matching
//! documents, exact up to `precision_threshold`, then HyperLogLog
//! (`distinct_count`), keyword values hashed as `distinct_terms` hashes
//! them so both give the same counts.

use serde_json::{json, Value};

use super::env::ScanEnv;
use super::params::{check_keys, field_param};
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::distinct_count::{parse_threshold, value_of, DistinctCount};

/// A parsed `cardinality`.
pub struct Cardinality {
    field: String,
    /// `None`: an unmapped field (no values).
    kind: Option<ValueKind>,
    threshold: u64,
    missing: Option<Key>,
}

impl Cardinality {
    pub fn parse(name: &str, params: &Value, mappings: &Mappings) -> Result<Cardinality> {
        check_keys(
            name,
            "cardinality",
            params,
            &[
                "field",
                "precision_threshold",
                "missing",
                "rehash",
                "execution_hint",
            ],
        )?;
        let field = field_param(name, "cardinality", params)?.to_string();
        let kind = ValueKind::of(mappings, &field, name)?;
        let missing = match (params.get("missing"), kind) {
            (None | Some(Value::Null), _) => None,
            (Some(v), Some(kind)) => Some(kind.key_of(v).ok_or_else(|| {
                SearchError::illegal(format!(
                    "[missing] value [{v}] of [{name}] does not fit field [{field}]"
                ))
            })?),
            (Some(v), None) => Some(ValueKind::Str.key_of(v).unwrap_or(Key::Str(v.to_string()))),
        };
        Ok(Cardinality {
            field,
            kind,
            threshold: parse_threshold(name, params)?,
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
            let (hash, coupon) = value_of(&key.bytes());
            acc.insert(hash, coupon, self.threshold);
        }
    }

    fn merge(&self, into: &mut DistinctCount, part: DistinctCount) {
        into.merge(part, self.threshold);
    }
}
