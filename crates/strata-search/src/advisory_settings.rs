//! Index settings Elasticsearch's tools set that have nothing to act on in
//! a single Strata node: accepted (so Rally's tracks, Beats' and Kibana's
//! templates create their indices unchanged), validated as Elasticsearch
//! validates them, kept with the index and shown by `GET _settings`.
//! Each entry says why it does nothing here:
//!
//! - `routing.allocation.*`, `routing.rebalance.enable`,
//!   `unassigned.node_left.delayed_timeout`, `auto_expand_replicas`,
//!   `priority`: shard placement and recovery order across nodes; one
//!   node holds every shard and recovers them all at start.
//! - `number_of_routing_shards`: the split API's factor; Strata has no
//!   split.
//! - `merge.scheduler.max_thread_count`, `merge.scheduler.max_merge_count`:
//!   Lucene's merge scheduler; tantivy merges on its own threads, paced by
//!   Strata's merge yielding.
//! - `store.type`: Lucene's directory implementation; Strata places files
//!   by `index.store.tier`.
//! - `translog.flush_threshold_size`, `translog.retention.*`: Lucene's
//!   translog sizing; Strata's translog is trimmed at each flush.
//! - `lifecycle.*`: index lifecycle management, which Strata does not
//!   run (rollover is by the `_rollover` API).
//! - `requests.cache.enable`, `queries.cache.enabled`,
//!   `search.idle.after`: caches and idle shards Strata does not have.
//! - `format`: the `.kibana` index format version, a marker for Kibana.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::{Result, SearchError};

/// How a value is checked.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Count,
    Bool,
    Time,
    ByteSize,
    Text,
    OneOf(&'static [&'static str]),
    AutoExpand,
}

/// The settings (without `index.`) by exact name.
const EXACT: [(&str, Kind); 15] = [
    (
        "routing.rebalance.enable",
        Kind::OneOf(&["all", "primaries", "replicas", "none"]),
    ),
    ("unassigned.node_left.delayed_timeout", Kind::Time),
    ("auto_expand_replicas", Kind::AutoExpand),
    ("priority", Kind::Count),
    ("number_of_routing_shards", Kind::Count),
    ("merge.scheduler.max_thread_count", Kind::Count),
    ("merge.scheduler.max_merge_count", Kind::Count),
    (
        "store.type",
        Kind::OneOf(&["fs", "niofs", "mmapfs", "hybridfs", "simplefs"]),
    ),
    ("translog.flush_threshold_size", Kind::ByteSize),
    ("translog.retention.size", Kind::ByteSize),
    ("translog.retention.age", Kind::Time),
    ("requests.cache.enable", Kind::Bool),
    ("queries.cache.enabled", Kind::Bool),
    ("search.idle.after", Kind::Time),
    ("format", Kind::Count),
];

/// Settings under these prefixes (free-form values).
const PREFIXES: [&str; 2] = ["routing.allocation.", "lifecycle."];

/// The advisory settings of one index, as strings (Elasticsearch's form).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AdvisorySettings {
    set: BTreeMap<String, String>,
}

impl AdvisorySettings {
    /// Whether `key` (without `index.`) is one of these.
    pub(crate) fn owns(key: &str) -> bool {
        kind_of(key).is_some()
    }

    /// Sets `key` (without `index.`); `null` removes it.
    pub(crate) fn apply(&mut self, key: &str, value: &Value) -> Result<()> {
        let Some(kind) = kind_of(key) else {
            return Err(SearchError::illegal(format!(
                "unknown setting [index.{key}]"
            )));
        };
        let text = match value {
            Value::Null => {
                self.set.remove(key);
                return Ok(());
            }
            Value::String(s) => s.clone(),
            Value::Array(items) => items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(","),
            other => other.to_string(),
        };
        check(key, kind, &text)?;
        self.set.insert(key.to_string(), text);
        Ok(())
    }

    /// The settings set, `(key without index., value)`, in key order.
    pub(crate) fn explicit(&self) -> impl Iterator<Item = (&str, &str)> {
        self.set.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

fn kind_of(key: &str) -> Option<Kind> {
    if let Some((_, kind)) = EXACT.iter().find(|(name, _)| *name == key) {
        return Some(*kind);
    }
    PREFIXES
        .iter()
        .any(|p| key.starts_with(p) && key.len() > p.len())
        .then_some(Kind::Text)
}

fn check(key: &str, kind: Kind, text: &str) -> Result<()> {
    let failed = || {
        SearchError::illegal(format!(
            "Failed to parse value [{text}] for setting [index.{key}]"
        ))
    };
    let ok = match kind {
        Kind::Count => text.parse::<u32>().is_ok(),
        Kind::Bool => matches!(text, "true" | "false"),
        Kind::Time => crate::time_value::parse_interval(key, &Value::String(text.into())).is_ok(),
        Kind::ByteSize => crate::breaker::byte_size::MemorySize::parse(key, text).is_ok(),
        Kind::Text => true,
        Kind::OneOf(allowed) => allowed.contains(&text),
        Kind::AutoExpand => auto_expand_ok(text),
    };
    if ok {
        Ok(())
    } else {
        Err(failed())
    }
}

/// `false`, or `<min>-<max>` with `max` a number or `all`.
fn auto_expand_ok(text: &str) -> bool {
    if text == "false" {
        return true;
    }
    let Some((lo, hi)) = text.split_once('-') else {
        return false;
    };
    let lo = lo.parse::<u32>();
    match hi {
        "all" => lo.is_ok(),
        _ => matches!((lo, hi.parse::<u32>()), (Ok(a), Ok(b)) if a <= b),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validated_kept_and_removed() {
        let mut s = AdvisorySettings::default();
        s.apply("merge.scheduler.max_thread_count", &json!(1))
            .unwrap();
        s.apply("store.type", &json!("niofs")).unwrap();
        s.apply("auto_expand_replicas", &json!("0-all")).unwrap();
        s.apply(
            "routing.allocation.include._tier_preference",
            &json!("data_hot"),
        )
        .unwrap();
        s.apply("lifecycle.name", &json!("logs")).unwrap();
        assert!(s.apply("store.type", &json!("tape")).is_err());
        assert!(s.apply("auto_expand_replicas", &json!("3-1")).is_err());
        assert!(s.apply("priority", &json!("high")).is_err());
        assert!(s.apply("search.idle.after", &json!("soon")).is_err());
        assert!(!AdvisorySettings::owns("lifecycle."));
        assert!(!AdvisorySettings::owns("bogus"));
        assert_eq!(s.explicit().count(), 5);
        s.apply("lifecycle.name", &Value::Null).unwrap();
        assert_eq!(s.explicit().count(), 4);
        let kept: Vec<_> = s.explicit().collect();
        assert!(kept.contains(&("merge.scheduler.max_thread_count", "1")));
    }
}
