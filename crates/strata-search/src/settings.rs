//! Index settings: parsed from Elasticsearch's nested (`{"index":
//! {"number_of_shards": 2}}`), flat (`{"index.number_of_shards": "2"}`) or
//! bare (`{"number_of_shards": 2}`) forms; unknown settings are rejected.

use std::time::Duration;

use serde_json::{json, Map, Value};

pub use crate::time_value::parse_interval;

use crate::advisory_settings::AdvisorySettings;
use crate::analysis::TextTokens;
use crate::codec::Codec;
use crate::error::{Result, SearchError};
use crate::index_limits::IndexLimits;
use crate::slowlog::SlowLogSettings;
use crate::store::StoreTier;

/// When an indexing request is acknowledged (`index.translog.durability`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranslogDurability {
    /// After the translog record is fsynced (group commit).
    Request,
    /// At once; the translog is fsynced every `sync_interval`.
    Async,
}

/// The settings of one index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexSettings {
    /// Number of tantivy indexes the documents are routed over.
    pub number_of_shards: u32,
    /// Accepted for compatibility; a single node holds no replicas.
    pub number_of_replicas: u32,
    /// Background refresh period; `None` is `-1` (refresh only when asked).
    pub(crate) refresh_interval: Option<Duration>,
    /// Acknowledgement policy of indexing requests.
    pub(crate) durability: TranslogDurability,
    /// `async` durability: the longest an acknowledged operation stays unsynced.
    pub sync_interval: Duration,
    /// `index.store.tier`; `None` until the catalog fills in the node's
    /// default at creation (and for indices made before the setting, which
    /// open as `dram`).
    pub(crate) store_tier: Option<StoreTier>,
    /// Creation time, epoch milliseconds.
    pub(crate) creation_date: i64,
    /// A unique id.
    pub uuid: String,
    /// `index.max_terms_count`, `index.mapping.total_fields.limit`, ...
    pub(crate) limits: IndexLimits,
    /// The search and indexing slow logs (`search.slowlog.*`,
    /// `indexing.slowlog.*`), dynamic.
    pub(crate) slowlog: SlowLogSettings,
    /// `index.codec`: the stored fields' compression (static).
    pub(crate) codec: Codec,
    /// Settings accepted with nothing to act on in one node.
    pub(crate) advisory: AdvisorySettings,
    /// `index.hidden`: wildcards reach the index only when
    /// `expand_wildcards` includes `hidden` (or both the pattern and the
    /// name start with `.`). Data stream backing indices are hidden.
    pub(crate) hidden: bool,
    /// How text values become terms, fixed when the index is created
    /// (recorded as `index.version.created`).
    pub(crate) text_tokens: TextTokens,
}

impl IndexSettings {
    /// Defaults: 1 shard, 1 replica, refresh 1 s, `request` durability, sync 5 s.
    pub(crate) fn new(creation_date: i64, uuid: String) -> IndexSettings {
        IndexSettings {
            number_of_shards: 1,
            number_of_replicas: 1,
            refresh_interval: Some(Duration::from_secs(1)),
            durability: TranslogDurability::Request,
            sync_interval: Duration::from_secs(5),
            store_tier: None,
            creation_date,
            uuid,
            limits: IndexLimits::default(),
            slowlog: SlowLogSettings::default(),
            codec: Codec::Default,
            advisory: AdvisorySettings::default(),
            hidden: false,
            text_tokens: TextTokens::Standard,
        }
    }

    /// Applies a settings body at creation (`creating`) or in `PUT _settings`.
    pub(crate) fn apply(&mut self, body: &Value, creating: bool) -> Result<()> {
        let flat = flatten(body)?;
        let mut next = self.clone();
        for (key, value) in flat {
            let key = key.strip_prefix("index.").unwrap_or(&key).to_string();
            let static_setting = |name: &str| -> Result<()> {
                if creating {
                    Ok(())
                } else {
                    Err(SearchError::illegal(format!(
                        "final index setting [index.{name}], not updateable"
                    )))
                }
            };
            match key.as_str() {
                "number_of_shards" => {
                    static_setting("number_of_shards")?;
                    let n = as_u32(&key, &value)?;
                    if !(1..=1024).contains(&n) {
                        return Err(SearchError::illegal(format!(
                            "Failed to parse value [{n}] for setting [index.number_of_shards] must be >= 1 and <= 1024"
                        )));
                    }
                    next.number_of_shards = n;
                }
                "number_of_replicas" => next.number_of_replicas = as_u32(&key, &value)?,
                "refresh_interval" => next.refresh_interval = parse_interval(&key, &value)?,
                "translog.durability" => {
                    next.durability = match value_text(&value).to_ascii_lowercase().as_str() {
                        "request" => TranslogDurability::Request,
                        "async" => TranslogDurability::Async,
                        other => {
                            return Err(SearchError::illegal(format!(
                                "No enum constant org.elasticsearch.index.translog.Translog.Durability.{}",
                                other.to_ascii_uppercase()
                            )))
                        }
                    }
                }
                "translog.sync_interval" => {
                    let d = parse_interval(&key, &value)?.ok_or_else(|| {
                        SearchError::illegal("[index.translog.sync_interval] must not be -1")
                    })?;
                    if d < Duration::from_millis(100) {
                        return Err(SearchError::illegal(format!(
                            "failed to parse value [{}] for setting [index.translog.sync_interval], must be >= [100ms]",
                            value_text(&value)
                        )));
                    }
                    next.sync_interval = d;
                }
                "store.tier" => {
                    static_setting("store.tier")?;
                    next.store_tier = Some(StoreTier::parse(&value_text(&value))?);
                }
                limit if IndexLimits::knows(limit) => next.limits.set(limit, &value)?,
                "codec" => {
                    static_setting("codec")?;
                    next.codec = Codec::parse(&value_text(&value))?;
                }
                advisory if AdvisorySettings::owns(advisory) => {
                    next.advisory.apply(advisory, &value)?
                }
"hidden" => {
                    next.hidden = match value_text(&value).as_str() {
                        "true" => true,
                        "false" => false,
                        other => {
                            return Err(SearchError::illegal(format!(
                                "Failed to parse value [{other}] as only [true] or [false] are allowed."
                            )))
                        }
                    }
                }
                "provided_name" | "creation_date" | "uuid" | "version.created" => {}
                slowlog if SlowLogSettings::owns(slowlog) => next.slowlog.apply(slowlog, &value)?,
                other => {
                    return Err(SearchError::illegal(format!(
                        "unknown setting [index.{other}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings"
                    )))
                }
            }
        }
        *self = next;
        Ok(())
    }

    /// The settings as `GET _settings` shows them (values as strings).
    pub fn to_json(&self, name: &str) -> Value {
        let refresh = match self.refresh_interval {
            Some(d) => format_duration(d),
            None => "-1".into(),
        };
        let durability = match self.durability {
            TranslogDurability::Request => "request",
            TranslogDurability::Async => "async",
        };
        let mut index = json!({
            "number_of_shards": self.number_of_shards.to_string(),
            "number_of_replicas": self.number_of_replicas.to_string(),
            "refresh_interval": refresh,
            "translog": {"durability": durability, "sync_interval": format_duration(self.sync_interval)},
            "provided_name": name,
            "creation_date": self.creation_date.to_string(),
            "uuid": self.uuid,
            "version": {"created": self.text_tokens.created()}
        });
        if let Some(tier) = self.store_tier {
            index["store"] = json!({"tier": tier.as_str()});
        }
        if self.codec != Codec::Default {
            index["codec"] = json!(self.codec.as_str());
        }
        if self.hidden {
            index["hidden"] = json!("true");
        }
        let limits = crate::dotted::nest(
            self.limits
                .explicit()
                .map(|(key, value)| (key, json!(value.to_string())))
                .chain(self.advisory.explicit().map(|(k, v)| (k, json!(v)))),
        );
        if let (Value::Object(index), Value::Object(limits)) = (&mut index, limits) {
            for (key, value) in limits {
                match (index.get_mut(&key), value) {
                    (Some(Value::Object(existing)), Value::Object(more)) => existing.extend(more),
                    (_, value) => {
                        index.insert(key, value);
                    }
                }
            }
        }
        self.slowlog.write_json(&mut index);
        json!({ "index": index })
    }

    /// The tier the index's files are placed on.
    pub(crate) fn tier(&self) -> StoreTier {
        self.store_tier.unwrap_or_default()
    }
}

/// The body's settings as dotted pairs; a body that is not an object (or
/// null, for none) is refused.
fn flatten(body: &Value) -> Result<Vec<(String, Value)>> {
    match body {
        Value::Object(_) | Value::Null => Ok(crate::dotted::flatten(body)),
        other => Err(SearchError::parsing(format!(
            "settings must be an object, got [{other}]"
        ))),
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn as_u32(key: &str, v: &Value) -> Result<u32> {
    value_text(v).parse::<u32>().map_err(|_| {
        SearchError::illegal(format!(
            "Failed to parse value [{}] for setting [index.{key}]",
            value_text(v)
        ))
    })
}

fn format_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// The settings body's keys as a flat map (for tests and diagnostics).
pub fn flat_keys(body: &Value) -> Result<Map<String, Value>> {
    Ok(flatten(body)?.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_flat_and_bare_forms() {
        let mut s = IndexSettings::new(0, "u".into());
        s.apply(
            &json!({"index": {"number_of_shards": 2, "refresh_interval": "-1"}, "index.translog.durability": "async", "number_of_replicas": "0"}),
            true,
        )
        .unwrap();
        assert_eq!(s.number_of_shards, 2);
        assert_eq!(s.number_of_replicas, 0);
        assert_eq!(s.refresh_interval, None);
        assert_eq!(s.durability, TranslogDurability::Async);
        assert!(s
            .apply(&json!({"index.number_of_shards": 3}), false)
            .is_err());
        assert!(s.apply(&json!({"index.bogus": 3}), true).is_err());
        s.apply(&json!({"index": {"refresh_interval": "250ms"}}), false)
            .unwrap();
        assert_eq!(s.refresh_interval, Some(Duration::from_millis(250)));
    }

    #[test]
    fn store_tier_is_validated_shown_and_fixed() {
        for body in [
            json!({"index": {"store": {"tier": "ssd"}}}),
            json!({"index": {"store.tier": "ssd"}}),
            json!({"index.store.tier": "ssd"}),
            json!({"store.tier": "SSD"}),
        ] {
            let mut s = IndexSettings::new(0, "u".into());
            s.apply(&body, true).unwrap();
            assert_eq!(s.tier(), StoreTier::Ssd, "{body}");
            assert_eq!(s.to_json("i")["index"]["store"]["tier"], "ssd");
        }
        let mut s = IndexSettings::new(0, "u".into());
        assert_eq!(s.tier(), StoreTier::Dram);
        let bad = s
            .apply(&json!({"index.store.tier": "tape"}), true)
            .unwrap_err();
        assert_eq!(bad.status(), 400);
        assert_eq!(bad.es_type(), "illegal_argument_exception");
        s.apply(&json!({"index.store.tier": "pmem"}), true).unwrap();
        let fixed = s
            .apply(&json!({"index.store.tier": "dram"}), false)
            .unwrap_err();
        assert!(fixed.to_string().contains("not updateable"), "{fixed}");
        assert_eq!(s.tier(), StoreTier::Pmem);
    }
}
