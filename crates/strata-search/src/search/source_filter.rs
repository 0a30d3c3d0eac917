//! `_source` filtering: everything, nothing, or include/exclude patterns
//! over dotted paths (with `*`).

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::catalog::wildcard_match;
use crate::error::{Result, SearchError};

/// Which parts of `_source` a hit returns.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceFilter {
    /// The whole source.
    All,
    /// No source.
    None,
    /// Paths matching `includes` (all when empty) and no `excludes`.
    Paths {
        /// Included patterns.
        includes: Vec<String>,
        /// Excluded patterns.
        excludes: Vec<String>,
    },
}

/// A `_source` as returned: the stored bytes as they are, or a filtered copy.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ReturnedSource<'a> {
    /// The stored JSON, byte for byte.
    Verbatim(&'a RawValue),
    /// A parsed and filtered copy.
    Filtered(Value),
}

impl SourceFilter {
    /// Parses `true`, `false`, `"a.*"`, `["a", "b"]` or `{"includes": .., "excludes": ..}`.
    pub fn parse(v: &Value) -> Result<SourceFilter> {
        let list = |v: Option<&Value>| -> Result<Vec<String>> {
            match v {
                None | Some(Value::Null) => Ok(Vec::new()),
                Some(Value::String(s)) => Ok(vec![s.clone()]),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|x| {
                        x.as_str().map(str::to_string).ok_or_else(|| {
                            SearchError::parsing("[_source] patterns must be strings")
                        })
                    })
                    .collect(),
                Some(other) => Err(SearchError::parsing(format!(
                    "[_source] malformed: {other}"
                ))),
            }
        };
        Ok(match v {
            Value::Bool(true) => SourceFilter::All,
            Value::Bool(false) => SourceFilter::None,
            Value::String(_) | Value::Array(_) => SourceFilter::Paths {
                includes: list(Some(v))?,
                excludes: Vec::new(),
            },
            Value::Object(o) => {
                for k in o.keys() {
                    if !matches!(k.as_str(), "includes" | "excludes" | "include" | "exclude") {
                        return Err(SearchError::parsing(format!(
                            "Unknown key for a START_ARRAY in [{k}]."
                        )));
                    }
                }
                SourceFilter::Paths {
                    includes: list(o.get("includes").or_else(|| o.get("include")))?,
                    excludes: list(o.get("excludes").or_else(|| o.get("exclude")))?,
                }
            }
            other => {
                return Err(SearchError::parsing(format!(
                    "[_source] malformed: {other}"
                )))
            }
        })
    }

    /// True when a returned source is the whole source (`true`, or no
    /// pattern at all as in Kibana's `{"excludes": []}`).
    pub(crate) fn is_whole(&self) -> bool {
        match self {
            SourceFilter::All => true,
            SourceFilter::None => false,
            SourceFilter::Paths { includes, excludes } => {
                includes.is_empty() && excludes.is_empty()
            }
        }
    }

    /// The source to return from `stored` (the document's JSON bytes):
    /// the bytes themselves when the whole source is asked for, as
    /// Elasticsearch returns it (key order and spacing kept), else a
    /// filtered copy; `None` when no source is returned.
    pub fn render<'a>(&self, stored: &'a [u8]) -> Option<ReturnedSource<'a>> {
        if self.is_whole() {
            if let Ok(raw) = serde_json::from_slice::<&RawValue>(stored) {
                return Some(ReturnedSource::Verbatim(raw));
            }
        }
        let parsed = serde_json::from_slice(stored).unwrap_or(Value::Null);
        self.apply(parsed).map(ReturnedSource::Filtered)
    }

    /// The filtered source; `None` when no source is returned.
    pub fn apply(&self, source: Value) -> Option<Value> {
        match self {
            SourceFilter::All => Some(source),
            SourceFilter::None => None,
            // No pattern (Kibana's `{"excludes": []}`): the source as is,
            // without rebuilding every object.
            SourceFilter::Paths { includes, excludes }
                if includes.is_empty() && excludes.is_empty() =>
            {
                Some(source)
            }
            SourceFilter::Paths { includes, excludes } => match source {
                Value::Object(map) => {
                    Some(Value::Object(filter_object(map, "", includes, excludes)))
                }
                other => Some(other),
            },
        }
    }
}

fn filter_object(
    map: Map<String, Value>,
    prefix: &str,
    includes: &[String],
    excludes: &[String],
) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in map {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        if excludes.iter().any(|p| wildcard_match(p, &path)) {
            continue;
        }
        let included = includes.is_empty()
            || includes
                .iter()
                .any(|p| wildcard_match(p, &path) || path.starts_with(&format!("{p}.")));
        match v {
            Value::Object(inner) if !included => {
                let child = filter_object(inner, &path, includes, excludes);
                if !child.is_empty() {
                    out.insert(k, Value::Object(child));
                }
            }
            Value::Object(inner) => {
                out.insert(k, Value::Object(filter_object(inner, &path, &[], excludes)));
            }
            other if included => {
                out.insert(k, other);
            }
            _ => {}
        }
    }
    out
}
