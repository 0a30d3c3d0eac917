//! Cluster settings (`GET|PUT /_cluster/settings`), each with
//! Elasticsearch's name, default and validation:
//!
//! - `action.destructive_requires_name` (default `true`, as in
//!   Elasticsearch 8: deleting indices by wildcard or `_all` is refused);
//! - the circuit breakers' limits and overheads
//!   (`indices.breaker.total.limit`, `indices.breaker.request.limit`,
//!   `network.breaker.inflight_requests.limit`, ...: see
//!   [`strata_search::CircuitBreakers`]);
//! - `cluster.max_shards_per_node` (default 1,000), the cap on shards and
//!   so on indices;
//! - `search.max_buckets` (default 65,536), the most buckets a search
//!   response may return ([`strata_search::set_max_buckets`]).
//!
//! Persistent values are kept in `<root>/cluster_settings.json` (replaced
//! atomically); transient ones last until the node stops and win over
//! persistent ones. Unknown settings are refused rather than ignored. The
//! node puts the values in force after every change
//! ([`crate::Node::apply_cluster_settings`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use parking_lot::Mutex;
use serde_json::{json, Map, Value};
use strata_search::{
    BreakerSettings, SearchError, SearchFiles, BREAKER_SETTINGS, DEFAULT_MAX_BUCKETS,
    DEFAULT_MAX_SHARDS_PER_NODE, MAX_BUCKETS_SETTING,
};

use crate::error::{EsError, Result};

/// `action.destructive_requires_name`.
pub const DESTRUCTIVE_REQUIRES_NAME: &str = "action.destructive_requires_name";
/// `cluster.max_shards_per_node`.
pub const MAX_SHARDS_PER_NODE: &str = "cluster.max_shards_per_node";

/// The limits on open scroll and point-in-time contexts ([`crate::contexts`]).
pub const CONTEXT_LIMITS: [&str; 2] = [
    "search.max_open_scroll_context",
    "search.max_open_pit_context",
];

type Flat = BTreeMap<String, String>;

/// How a setting's value is checked.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Bool,
    Breaker,
    PositiveInt,
}

fn kind_of(key: &str) -> Option<Kind> {
    if key == DESTRUCTIVE_REQUIRES_NAME {
        Some(Kind::Bool)
    } else if key == MAX_SHARDS_PER_NODE
        || CONTEXT_LIMITS.contains(&key)
        || key == MAX_BUCKETS_SETTING
    {
        Some(Kind::PositiveInt)
    } else if BREAKER_SETTINGS.contains(&key) {
        Some(Kind::Breaker)
    } else {
        None
    }
}

/// Persistent and transient cluster settings.
#[derive(Debug)]
pub struct ClusterSettings {
    files: SearchFiles,
    path: PathBuf,
    persistent: Mutex<Flat>,
    transient: Mutex<Flat>,
}

impl ClusterSettings {
    /// Loads the persistent settings under `root`, in the node's `files`.
    pub fn open(files: &SearchFiles, root: &Path) -> Result<ClusterSettings, SearchError> {
        let path = root.join("cluster_settings.json");
        let mut persistent = Flat::new();
        if let Some(Value::Object(map)) = files.load_json(&path)? {
            for (k, v) in map {
                if let Value::String(s) = v {
                    persistent.insert(k, s);
                }
            }
        }
        Ok(ClusterSettings {
            files: files.clone(),
            path,
            persistent: Mutex::new(persistent),
            transient: Mutex::new(Flat::new()),
        })
    }

    /// The value in force of `key`: transient, else persistent.
    fn effective(&self, key: &str) -> Option<String> {
        self.transient
            .lock()
            .get(key)
            .cloned()
            .or_else(|| self.persistent.lock().get(key).cloned())
    }

    /// Whether deleting indices needs concrete names.
    pub fn destructive_requires_name(&self) -> bool {
        self.effective(DESTRUCTIVE_REQUIRES_NAME)
            .is_none_or(|v| v != "false")
    }

    /// The breakers' settings in force (values were checked when set).
    pub fn breakers(&self) -> BreakerSettings {
        let mut settings = BreakerSettings::default();
        for name in BREAKER_SETTINGS {
            if let Some(value) = self.effective(name) {
                settings = settings.with(name, Some(&value)).unwrap_or(settings);
            }
        }
        settings
    }

    /// `cluster.max_shards_per_node` in force.
    pub fn max_shards_per_node(&self) -> u64 {
        self.effective(MAX_SHARDS_PER_NODE)
            .and_then(|v| v.parse().ok())
            .unwrap_or(DEFAULT_MAX_SHARDS_PER_NODE)
    }

    /// A limit of [`CONTEXT_LIMITS`] in force, else `default`.
    pub fn context_limit(&self, key: &str, default: u64) -> u64 {
        self.effective(key)
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    }

    /// `search.max_buckets` in force.
    pub fn max_buckets(&self) -> usize {
        self.effective(MAX_BUCKETS_SETTING)
            .and_then(|v| v.parse().ok())
            .unwrap_or(DEFAULT_MAX_BUCKETS)
    }

    /// The `GET /_cluster/settings` body (`flat`: dotted keys).
    pub fn to_json(&self, flat: bool) -> Value {
        json!({
            "persistent": render(&self.persistent.lock(), flat),
            "transient": render(&self.transient.lock(), flat),
        })
    }

    /// Every known setting's default, as `include_defaults` shows them
    /// (breaker limits as percentages of the node's memory base).
    pub fn defaults(&self, flat: bool) -> Value {
        let breakers = BreakerSettings::default();
        let mut all = Flat::new();
        all.insert(DESTRUCTIVE_REQUIRES_NAME.into(), "true".into());
        all.insert(
            MAX_SHARDS_PER_NODE.into(),
            DEFAULT_MAX_SHARDS_PER_NODE.to_string(),
        );
        all.insert(
            CONTEXT_LIMITS[0].into(),
            crate::contexts::DEFAULT_MAX_SCROLL.to_string(),
        );
        all.insert(
            CONTEXT_LIMITS[1].into(),
            crate::contexts::DEFAULT_MAX_PIT.to_string(),
        );
        all.insert(MAX_BUCKETS_SETTING.into(), DEFAULT_MAX_BUCKETS.to_string());
        for name in BREAKER_SETTINGS {
            if let Some(v) = breakers.value_of(name) {
                all.insert(name.into(), v);
            }
        }
        render(&all, flat)
    }

    /// Applies a `PUT /_cluster/settings` body; returns the reply body.
    /// Every value is checked before any is stored.
    pub fn update(&self, body: &Value) -> Result<Value> {
        let obj = body
            .as_object()
            .ok_or_else(|| EsError::Parse("request body is required".into()))?;
        let mut changes: Vec<(&str, Flat, Vec<String>)> = Vec::new();
        for (scope, settings) in obj {
            if scope != "persistent" && scope != "transient" {
                return Err(EsError::Parse(format!(
                    "[cluster_update_settings_request] unknown field [{scope}]"
                )));
            }
            let (set, reset) = parse_scope(scope, settings)?;
            changes.push((scope.as_str(), set, reset));
        }
        let mut reply = json!({"acknowledged": true, "persistent": {}, "transient": {}});
        for (scope, set, reset) in changes {
            let target = if scope == "persistent" {
                &self.persistent
            } else {
                &self.transient
            };
            let mut current = target.lock();
            let mut next = current.clone();
            for key in &reset {
                next.remove(key);
            }
            next.extend(set.clone());
            if scope == "persistent" {
                let stored: Map<String, Value> =
                    next.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                self.files.save_json(&self.path, &Value::Object(stored))?;
            }
            *current = next;
            reply[scope] = render(&set, false);
        }
        Ok(reply)
    }
}

/// One scope of a `PUT` body: values to set, keys to reset (`null`).
fn parse_scope(scope: &str, settings: &Value) -> Result<(Flat, Vec<String>)> {
    let flat = strata_search::flatten_dotted(settings);
    let (mut set, mut reset) = (Flat::new(), Vec::new());
    for (key, value) in flat {
        let Some(kind) = kind_of(&key) else {
            return Err(EsError::IllegalArgument(format!(
                "{scope} setting [{key}], not recognized"
            )));
        };
        let text = match &value {
            Value::Null => {
                reset.push(key);
                continue;
            }
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let checked = match kind {
            Kind::Bool if text == "true" || text == "false" => text,
            Kind::Bool => {
                return Err(EsError::IllegalArgument(format!(
                    "Failed to parse value [{text}] as only [true] or [false] are allowed."
                )))
            }
            Kind::Breaker => {
                BreakerSettings::default().with(&key, Some(&text))?;
                text
            }
            Kind::PositiveInt => match text.parse::<u64>() {
                Ok(n) if n >= 1 => n.to_string(),
                Ok(_) => {
                    return Err(EsError::IllegalArgument(format!(
                        "Failed to parse value [{text}] for setting [{key}] must be >= 1"
                    )))
                }
                Err(_) => {
                    return Err(EsError::IllegalArgument(format!(
                        "Failed to parse value [{text}] for setting [{key}]"
                    )))
                }
            },
        };
        set.insert(key, checked);
    }
    Ok((set, reset))
}

/// Flat settings as `{"a.b": "v"}` or nested `{"a": {"b": "v"}}`.
fn render(settings: &Flat, flat: bool) -> Value {
    if !flat {
        return strata_search::nest_dotted(settings.iter().map(|(k, v)| (k.as_str(), json!(v))));
    }
    Value::Object(
        settings
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use strata_search::MemorySize;

    use super::*;

    #[test]
    fn destructive_requires_name_defaults_on_and_persists() {
        let dir = tempfile::tempdir().unwrap();
        let s = ClusterSettings::open(&SearchFiles::default(), dir.path()).unwrap();
        assert!(s.destructive_requires_name());
        s.update(&json!({"persistent": {"action": {"destructive_requires_name": false}}}))
            .unwrap();
        assert!(!s.destructive_requires_name());
        s.update(&json!({"transient": {"action.destructive_requires_name": "true"}}))
            .unwrap();
        assert!(s.destructive_requires_name());
        let reopened = ClusterSettings::open(&SearchFiles::default(), dir.path()).unwrap();
        assert!(!reopened.destructive_requires_name());
        assert_eq!(
            reopened.to_json(false)["persistent"]["action"]["destructive_requires_name"],
            "false"
        );
        assert!(s.update(&json!({"persistent": {"bogus": 1}})).is_err());
        assert!(s
            .update(&json!({"persistent": {"action.destructive_requires_name": 3}}))
            .is_err());
    }

    #[test]
    fn breaker_and_shard_limits_are_checked_kept_and_reset() {
        let dir = tempfile::tempdir().unwrap();
        let s = ClusterSettings::open(&SearchFiles::default(), dir.path()).unwrap();
        assert_eq!(s.breakers(), BreakerSettings::default());
        assert_eq!(s.max_shards_per_node(), 1000);
        s.update(
            &json!({"persistent": {"indices.breaker.request.limit": "40%",
                                        "cluster": {"max_shards_per_node": 5}}}),
        )
        .unwrap();
        s.update(&json!({"transient": {"indices": {"breaker": {"total": {"limit": "1gb"}}}}}))
            .unwrap();
        assert_eq!(s.breakers().request, MemorySize::Share(40.0));
        assert_eq!(s.breakers().total, MemorySize::Bytes(1 << 30));
        assert_eq!(s.max_shards_per_node(), 5);
        for bad in [
            json!({"transient": {"indices.breaker.request.limit": "lots"}}),
            json!({"transient": {"indices.breaker.request.limit": "120%"}}),
            json!({"transient": {"cluster.max_shards_per_node": 0}}),
            json!({"transient": {"network.breaker.inflight_requests.overhead": "x"}}),
        ] {
            let e = s.update(&bad).unwrap_err();
            assert_eq!(e.status(), 400, "{bad}");
        }
        let reopened = ClusterSettings::open(&SearchFiles::default(), dir.path()).unwrap();
        assert_eq!(reopened.breakers().request, MemorySize::Share(40.0));
        assert_eq!(reopened.breakers().total, MemorySize::Share(70.0));
        s.update(&json!({"persistent": {"indices.breaker.request.limit": null}}))
            .unwrap();
        assert_eq!(s.breakers().request, MemorySize::Share(60.0));
        assert_eq!(
            s.defaults(true)["network.breaker.inflight_requests.overhead"],
            "2"
        );
    }
}
