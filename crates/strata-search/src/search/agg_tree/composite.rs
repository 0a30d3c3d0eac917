//! [`CompositeParams`]: a `composite` aggregation's parameters, typed when
//! the request is parsed: its `sources` ([`CompositeSource`], parsed in
//! `composite_source.rs`: each one's name, `field`, grouping, `order`,
//! `missing_bucket` and `missing_order`), `size` (default 10, from 1 to
//! `search.max_buckets`) and the `after` key. The `after` key's values are
//! kept as written, one per source in the sources' order: what they mean
//! depends on the field's type, which the scan reads from the mapping
//! (`scan_aggs/composite`), converting them then; so are the checks of a
//! field's type against its source (a `histogram` on a keyword, a
//! `date_histogram` on a non-date field). Every other malformed parameter
//! is refused here, in the words the scan used before the parameters were
//! typed.

use std::collections::HashSet;

use serde_json::Value;

use super::composite_source::CompositeSource;
use super::source::{check_keys, count_param, object_of};
use crate::error::{Result, SearchError};
use crate::search::bucket_limit::max_buckets;

const KIND: &str = "composite";

/// Elasticsearch's default `size`.
const DEFAULT_SIZE: u64 = 10;

/// The parameters of one `composite` aggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct CompositeParams {
    /// The sources, in request order (at least one, names unique).
    pub sources: Vec<CompositeSource>,
    /// The most buckets a page holds (from 1 to `search.max_buckets`).
    pub size: usize,
    /// The `after` key (`None`: the first page): one value per source, in
    /// the sources' order, as written (`null` for a missing bucket's key).
    pub after: Option<Vec<Value>>,
}

impl CompositeParams {
    /// The parameters `body` of the `composite` aggregation `name`.
    pub fn parse(name: &str, body: &Value) -> Result<CompositeParams> {
        object_of(KIND, name, body)?;
        let params = body;
        check_keys(name, KIND, params, &["sources", "size", "after"])?;
        let sources = match params.get("sources") {
            Some(Value::Array(items)) if !items.is_empty() => items
                .iter()
                .map(|s| CompositeSource::parse(name, s))
                .collect::<Result<Vec<_>>>()?,
            _ => {
                return Err(SearchError::illegal(format!(
                    "Composite [sources] cannot be null or empty (aggregation [{name}])"
                )))
            }
        };
        // A set, not pairwise comparisons: a body may list many sources.
        let mut names = HashSet::with_capacity(sources.len());
        for s in &sources {
            if !names.insert(s.name.as_str()) {
                return Err(SearchError::illegal(format!(
                    "Composite source names must be unique, found duplicates: [{}]",
                    s.name
                )));
            }
        }
        let size = count_param(name, params, "size", DEFAULT_SIZE)?;
        let limit = max_buckets();
        let size = usize::try_from(size)
            .ok()
            .filter(|s| (1..=limit).contains(s))
            .ok_or_else(|| {
                SearchError::illegal(format!(
                    "[size] must be within [1, {limit}] for composite aggregation [{name}], got [{size}]"
                ))
            })?;
        let after = match params.get("after") {
            None | Some(Value::Null) => None,
            Some(Value::Object(obj)) => {
                if obj.len() != sources.len() || sources.iter().any(|s| !obj.contains_key(&s.name))
                {
                    return Err(SearchError::illegal(format!(
                        "[after] has {} value(s) but [sources] has {} (aggregation [{name}])",
                        obj.len(),
                        sources.len()
                    )));
                }
                Some(
                    sources
                        .iter()
                        .map(|s| obj.get(&s.name).cloned().unwrap_or(Value::Null))
                        .collect(),
                )
            }
            Some(other) => {
                return Err(SearchError::parsing(format!(
                    "[after] of composite [{name}] must be an object, got [{other}]"
                )))
            }
        };
        Ok(CompositeParams {
            sources,
            size,
            after,
        })
    }
}

#[cfg(test)]
#[path = "composite_tests.rs"]
mod tests;
