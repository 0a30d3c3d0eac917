//! Rollover conditions: `max_docs`, `max_age`, `max_size`,
//! `max_primary_shard_size`, `max_primary_shard_docs` (any one met is
//! enough) and their `min_*` counterparts (all must hold). Each keeps the
//! text it was given, which the reply echoes (`"[max_docs: 1000]": true`).

use std::time::Duration;

use serde_json::Value;

use crate::breaker::byte_size::parse_with_unit;
use crate::error::{Result, SearchError};
use crate::settings::parse_interval;

/// What a condition measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Live documents of the index (as of its last refresh).
    Docs,
    /// Time since the index was created.
    Age,
    /// Bytes of the index.
    Size,
    /// Bytes of its largest shard.
    PrimaryShardSize,
    /// Documents of its fullest shard.
    PrimaryShardDocs,
}

/// One condition.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    /// The name as written (`max_docs`).
    pub name: String,
    /// `max_*` (met when reached) or `min_*` (a precondition).
    pub is_max: bool,
    /// What it measures.
    pub measure: Measure,
    /// The threshold (documents, milliseconds or bytes).
    pub threshold: u64,
    /// The value as given, for the reply.
    pub text: String,
}

/// What an index measures, for the conditions.
#[derive(Debug, Clone, Copy, Default)]
pub struct IndexMeasures {
    /// Live documents.
    pub docs: u64,
    /// Milliseconds since creation.
    pub age_ms: u64,
    /// Bytes.
    pub size: u64,
    /// Bytes of the largest shard.
    pub primary_shard_size: u64,
    /// Documents of the fullest shard.
    pub primary_shard_docs: u64,
}

impl Condition {
    /// Parses a `conditions` object.
    pub fn parse_all(body: &Value) -> Result<Vec<Condition>> {
        let obj = match body {
            Value::Null => return Ok(Vec::new()),
            Value::Object(o) => o,
            _ => return Err(SearchError::parsing("[conditions] must be an object")),
        };
        let mut out = Vec::new();
        for (name, value) in obj {
            let (is_max, measure_name) = match name.split_once('_') {
                Some(("max", rest)) => (true, rest),
                Some(("min", rest)) => (false, rest),
                _ => (true, ""),
            };
            let measure = match measure_name {
                "docs" => Measure::Docs,
                "age" => Measure::Age,
                "size" => Measure::Size,
                "primary_shard_size" => Measure::PrimaryShardSize,
                "primary_shard_docs" => Measure::PrimaryShardDocs,
                _ => {
                    return Err(SearchError::parsing(format!(
                        "[conditions] unknown field [{name}]"
                    )))
                }
            };
            let text = match value {
                Value::String(s) => s.trim().to_string(),
                other => other.to_string(),
            };
            let threshold = match measure {
                Measure::Docs | Measure::PrimaryShardDocs => text.parse::<u64>().ok(),
                Measure::Age => parse_interval(name, &Value::String(text.clone()))
                    .ok()
                    .flatten()
                    .map(|d: Duration| d.as_millis() as u64),
                Measure::Size | Measure::PrimaryShardSize => parse_with_unit(&text),
            }
            .ok_or_else(|| {
                SearchError::parsing(format!("failed to parse [{name}] with value [{text}]"))
            })?;
            out.push(Condition {
                name: name.clone(),
                is_max,
                measure,
                threshold,
                text,
            });
        }
        if out.iter().any(|c| !c.is_max) && !out.iter().any(|c| c.is_max) {
            return Err(SearchError::ActionValidation(
                "at least one max_* rollover condition must be set when using min_* conditions"
                    .into(),
            ));
        }
        Ok(out)
    }

    /// Whether the index's measures reach the threshold.
    pub fn holds(&self, m: &IndexMeasures) -> bool {
        let value = match self.measure {
            Measure::Docs => m.docs,
            Measure::Age => m.age_ms,
            Measure::Size => m.size,
            Measure::PrimaryShardSize => m.primary_shard_size,
            Measure::PrimaryShardDocs => m.primary_shard_docs,
        };
        value >= self.threshold
    }

    /// The reply key, `[max_docs: 1000]`.
    pub fn key(&self) -> String {
        format!("[{}: {}]", self.name, self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conditions_parse_and_hold() {
        let all = Condition::parse_all(&json!({
            "max_docs": 3, "max_age": "7d", "max_size": "5gb",
            "max_primary_shard_size": "1kb", "max_primary_shard_docs": "10"
        }))
        .unwrap();
        assert_eq!(all.len(), 5);
        let docs = all.iter().find(|c| c.name == "max_docs").unwrap();
        assert_eq!(docs.key(), "[max_docs: 3]");
        assert!(docs.holds(&IndexMeasures {
            docs: 3,
            ..IndexMeasures::default()
        }));
        assert!(!docs.holds(&IndexMeasures::default()));
        let age = all.iter().find(|c| c.name == "max_age").unwrap();
        assert_eq!(age.threshold, 7 * 86_400_000);
        assert_eq!(parse_with_unit("5gb"), Some(5 << 30));
        assert!(Condition::parse_all(&json!({"max_frob": 1})).is_err());
        assert!(Condition::parse_all(&json!({"max_docs": "x"})).is_err());
        assert!(Condition::parse_all(&json!({"min_docs": 1})).is_err());
    }
}
