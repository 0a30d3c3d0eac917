//! The slow log's index settings: per phase a threshold per level
//! (`-1`: off, the default), and for indexing how much of the source a
//! line shows. Parsed from the dotted keys [`IndexSettings`] hands over
//! (without the `index.` prefix) and shown back only when set, as
//! Elasticsearch's `GET _settings` does.
//!
//! [`IndexSettings`]: crate::settings::IndexSettings

use std::time::Duration;

use serde_json::{json, Map, Value};
use tracing::Level;

use crate::error::{Result, SearchError};

/// Characters of the source an indexing line shows by default.
pub const DEFAULT_SOURCE_CHARS: usize = 1000;

/// Thresholds of one phase; `None` is `-1` (that level off).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Thresholds {
    /// `warn`.
    pub(crate) warn: Option<Duration>,
    /// `info`.
    pub(crate) info: Option<Duration>,
    /// `debug`.
    pub(crate) debug: Option<Duration>,
    /// `trace`.
    pub(crate) trace: Option<Duration>,
}

impl Thresholds {
    /// The most severe level whose threshold `took` reached.
    pub(crate) fn level_for(&self, took: Duration) -> Option<Level> {
        [
            (self.warn, Level::WARN),
            (self.info, Level::INFO),
            (self.debug, Level::DEBUG),
            (self.trace, Level::TRACE),
        ]
        .into_iter()
        .find_map(|(threshold, level)| threshold.filter(|t| took >= *t).map(|_| level))
    }

    fn slot(&mut self, level: &str) -> Option<&mut Option<Duration>> {
        match level {
            "warn" => Some(&mut self.warn),
            "info" => Some(&mut self.info),
            "debug" => Some(&mut self.debug),
            "trace" => Some(&mut self.trace),
            _ => None,
        }
    }

    fn to_json(self) -> Map<String, Value> {
        [
            ("warn", self.warn),
            ("info", self.info),
            ("debug", self.debug),
            ("trace", self.trace),
        ]
        .into_iter()
        .filter_map(|(name, t)| Some((name.to_string(), json!(format_time(t?)))))
        .collect()
    }
}

/// The slow log settings of one index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SlowLogSettings {
    /// `search.slowlog.threshold.query.*`.
    pub(crate) query: Thresholds,
    /// `search.slowlog.threshold.fetch.*`.
    pub(crate) fetch: Thresholds,
    /// `indexing.slowlog.threshold.index.*`.
    pub(crate) index: Thresholds,
    /// `indexing.slowlog.source`: characters of the source shown (`true`:
    /// all, `false`: none).
    pub(crate) source_chars: usize,
    /// `indexing.slowlog.reformat`: the source shown on one line.
    pub(crate) reformat: bool,
}

impl Default for SlowLogSettings {
    fn default() -> Self {
        Self {
            query: Thresholds::default(),
            fetch: Thresholds::default(),
            index: Thresholds::default(),
            source_chars: DEFAULT_SOURCE_CHARS,
            reformat: true,
        }
    }
}

impl SlowLogSettings {
    /// Whether `key` (without `index.`) is one of these settings.
    pub(crate) fn owns(key: &str) -> bool {
        key.starts_with("search.slowlog.") || key.starts_with("indexing.slowlog.")
    }

    /// Applies one setting (`key` without `index.`); `null` resets it.
    pub(crate) fn apply(&mut self, key: &str, value: &Value) -> Result<()> {
        let unknown = || {
            SearchError::illegal(format!(
                "unknown setting [index.{key}] please check that any required plugins are installed, or check the breaking changes documentation for removed settings"
            ))
        };
        let defaults = SlowLogSettings::default();
        match key {
            "indexing.slowlog.source" => {
                self.source_chars = match value {
                    Value::Null => defaults.source_chars,
                    _ => parse_source(key, value)?,
                }
            }
            "indexing.slowlog.reformat" => {
                self.reformat = match value {
                    Value::Null => defaults.reformat,
                    _ => parse_bool(key, value)?,
                }
            }
            _ => {
                let (phase, level) = key
                    .strip_prefix("search.slowlog.threshold.")
                    .and_then(|rest| rest.split_once('.'))
                    .filter(|(phase, _)| matches!(*phase, "query" | "fetch"))
                    .or_else(|| {
                        key.strip_prefix("indexing.slowlog.threshold.")
                            .and_then(|rest| rest.split_once('.'))
                            .filter(|(phase, _)| *phase == "index")
                    })
                    .ok_or_else(unknown)?;
                let thresholds = match phase {
                    "query" => &mut self.query,
                    "fetch" => &mut self.fetch,
                    _ => &mut self.index,
                };
                let slot = thresholds.slot(level).ok_or_else(unknown)?;
                *slot = match value {
                    Value::Null => None,
                    _ => parse_time(key, value)?,
                };
            }
        }
        Ok(())
    }

    /// Adds the settings that differ from the defaults to `index` (the
    /// `index` object of `GET _settings`), nested as Elasticsearch shows
    /// them.
    pub(crate) fn write_json(&self, index: &mut Value) {
        let defaults = SlowLogSettings::default();
        let mut search = Map::new();
        for (phase, t) in [("query", self.query), ("fetch", self.fetch)] {
            let levels = t.to_json();
            if !levels.is_empty() {
                search.insert(phase.into(), Value::Object(levels));
            }
        }
        if !search.is_empty() {
            index["search"]["slowlog"] = json!({"threshold": search});
        }
        let mut indexing = Map::new();
        let levels = self.index.to_json();
        if !levels.is_empty() {
            indexing.insert("threshold".into(), json!({"index": levels}));
        }
        if self.source_chars != defaults.source_chars {
            let shown = match self.source_chars {
                usize::MAX => "true".to_string(),
                0 => "false".to_string(),
                n => n.to_string(),
            };
            indexing.insert("source".into(), json!(shown));
        }
        if self.reformat != defaults.reformat {
            indexing.insert("reformat".into(), json!(self.reformat.to_string()));
        }
        if !indexing.is_empty() {
            index["indexing"] = json!({"slowlog": indexing});
        }
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A time value: `-1` (off), `0`, or an integer with one of
/// Elasticsearch's units (`nanos`, `micros`, `ms`, `s`, `m`, `h`, `d`).
fn parse_time(key: &str, v: &Value) -> Result<Option<Duration>> {
    let raw = text(v);
    let t = raw.trim();
    match t {
        "-1" => return Ok(None),
        "0" => return Ok(Some(Duration::ZERO)),
        _ => {}
    }
    crate::time_value::parse(t).map(Some).ok_or_else(|| {
        SearchError::illegal(format!(
            "failed to parse setting [index.{key}] with value [{raw}] as a time value: unit is missing or unrecognized"
        ))
    })
}

fn format_time(d: Duration) -> String {
    let nanos = d.as_nanos();
    match nanos {
        0 => "0".into(),
        n if n % 1_000_000_000 == 0 => format!("{}s", n / 1_000_000_000),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1_000 == 0 => format!("{}micros", n / 1_000),
        n => format!("{n}nanos"),
    }
}

fn parse_bool(key: &str, v: &Value) -> Result<bool> {
    match text(v).as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(SearchError::illegal(format!(
            "Failed to parse value [{other}] as only [true] or [false] are allowed. for setting [index.{key}]"
        ))),
    }
}

/// `true` (all of it), `false` (none) or a number of characters.
fn parse_source(key: &str, v: &Value) -> Result<usize> {
    match text(v).as_str() {
        "true" => Ok(usize::MAX),
        "false" => Ok(0),
        other => other.parse::<usize>().map_err(|_| {
            SearchError::illegal(format!(
                "failed to parse value [{other}] for setting [index.{key}], must be >= [0]"
            ))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_pick_the_most_severe_level() {
        let mut s = SlowLogSettings::default();
        s.apply("search.slowlog.threshold.query.warn", &json!("10s"))
            .unwrap();
        s.apply("search.slowlog.threshold.query.info", &json!("5s"))
            .unwrap();
        s.apply("search.slowlog.threshold.query.trace", &json!("0"))
            .unwrap();
        let q = s.query;
        assert_eq!(q.level_for(Duration::from_secs(11)), Some(Level::WARN));
        assert_eq!(q.level_for(Duration::from_secs(5)), Some(Level::INFO));
        assert_eq!(q.level_for(Duration::from_millis(1)), Some(Level::TRACE));
        s.apply("search.slowlog.threshold.query.trace", &json!("-1"))
            .unwrap();
        assert_eq!(s.query.level_for(Duration::from_millis(1)), None);
        assert_eq!(s.fetch.level_for(Duration::from_secs(100)), None);
    }

    #[test]
    fn values_are_validated_and_shown_when_set() {
        let mut s = SlowLogSettings::default();
        assert!(s
            .apply("search.slowlog.threshold.query.loud", &json!("1s"))
            .is_err());
        assert!(s
            .apply("search.slowlog.threshold.index.warn", &json!("1s"))
            .is_err());
        assert!(s
            .apply("indexing.slowlog.threshold.index.warn", &json!("1x"))
            .is_err());
        assert!(s.apply("indexing.slowlog.source", &json!("some")).is_err());
        s.apply("indexing.slowlog.threshold.index.debug", &json!("250ms"))
            .unwrap();
        s.apply("search.slowlog.threshold.fetch.info", &json!("1500micros"))
            .unwrap();
        s.apply("indexing.slowlog.source", &json!(false)).unwrap();
        let mut index = json!({});
        s.write_json(&mut index);
        assert_eq!(
            index,
            json!({
                "search": {"slowlog": {"threshold": {"fetch": {"info": "1500micros"}}}},
                "indexing": {"slowlog": {"threshold": {"index": {"debug": "250ms"}}, "source": "false"}}
            })
        );
        let mut back = SlowLogSettings::default();
        for (key, value) in crate::dotted::flatten(&index) {
            back.apply(&key, &value).unwrap();
        }
        assert_eq!(back, s);
        let mut shown = json!({});
        SlowLogSettings::default().write_json(&mut shown);
        assert_eq!(shown, json!({}));
    }
}
