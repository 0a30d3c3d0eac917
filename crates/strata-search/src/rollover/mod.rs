//! Rollover (`POST /<alias>/_rollover[/<new_index>]`): when the alias's
//! write index meets a condition (or no condition is given), create the
//! next index and move the write alias to it, both in one alias-table
//! update.
//!
//! - The new name is the one asked for, or the old name's trailing
//!   `-<number>` incremented and zero-padded to 6 digits; an old name
//!   without one needs an explicit name (Elasticsearch's rule).
//! - An alias whose write index is explicit (`is_write_index: true`) keeps
//!   the old index with `is_write_index: false` and marks the new one
//!   `true`; otherwise the alias moves from the old index to the new one.
//! - The new index gets the matching templates and the request's
//!   `settings`, `mappings` and `aliases`; a template that would also give
//!   it the rolled-over alias is refused.
//!
//! - `conditions`: parsing and evaluating the conditions.

pub mod conditions;

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::aliases::AliasMeta;
use crate::catalog::{validate_index_name, Catalog};
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use conditions::{Condition, IndexMeasures};

/// What a rollover did (or would do, in a dry run).
#[derive(Debug, Clone, PartialEq)]
pub struct RolloverOutcome {
    /// The write index before the rollover.
    pub old_index: String,
    /// The index that is (or would be) the write index after it.
    pub new_index: String,
    /// Whether the new index was created and the alias moved.
    pub rolled_over: bool,
    /// Each condition's key (`[max_docs: 1000]`) and whether it was met.
    pub conditions: BTreeMap<String, bool>,
}

/// `<prefix>-<digits>` with the number incremented, zero-padded to 6.
pub fn next_index_name(old: &str) -> Result<String> {
    let bad = || {
        SearchError::illegal(format!(
            "index name [{old}] does not match pattern '^.*-\\d+$'"
        ))
    };
    let (prefix, digits) = old.rsplit_once('-').ok_or_else(bad)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n: u64 = digits.parse().map_err(|_| bad())?;
    Ok(format!("{prefix}-{:06}", n + 1))
}

fn measures(index: &SearchIndex) -> IndexMeasures {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64);
    let created = index.settings().creation_date;
    IndexMeasures {
        docs: index.doc_count(),
        age_ms: u64::try_from(now - created).unwrap_or(0),
        size: index.store_size_bytes(),
        primary_shard_size: index.shard_store_sizes().into_iter().max().unwrap_or(0),
        primary_shard_docs: index.shard_doc_counts().into_iter().max().unwrap_or(0),
    }
}

impl Catalog {
    /// Rolls `alias` over. `body` may hold `conditions`, `settings`,
    /// `mappings` and `aliases`; `dry_run` evaluates without changing anything.
    pub fn rollover(
        &self,
        alias: &str,
        new_index: Option<&str>,
        body: &Value,
        dry_run: bool,
    ) -> Result<RolloverOutcome> {
        let (conditions, create_body) = split_body(body)?;
        let table = self.aliases();
        let Some(targets) = table.targets(alias) else {
            if self.get(alias).is_ok() {
                return Err(SearchError::illegal(
                    "rollover target is a [concrete index] but one of [alias, data_stream] was expected",
                ));
            }
            return Err(SearchError::ResourceNotFound(format!(
                "rollover target [{alias}] does not exist"
            )));
        };
        let old = table
            .write_index(alias)
            .ok()
            .flatten()
            .map(str::to_string)
            .ok_or_else(|| {
                SearchError::illegal(format!(
                    "rollover target [{alias}] does not point to a write index"
                ))
            })?;
        let explicit = targets
            .get(&old)
            .is_some_and(|m| m.is_write_index == Some(true));
        let hidden = targets.get(&old).and_then(|m| m.is_hidden);
        let new_name = match new_index {
            Some(n) => n.to_string(),
            None => next_index_name(&old)?,
        };
        validate_index_name(&new_name)?;
        if self.get(&new_name).is_ok() {
            return Err(SearchError::IndexExists(new_name));
        }
        if let Some((template, names)) = self.templates().giving_alias(&new_name, alias) {
            return Err(SearchError::illegal(format!(
                "Rollover alias [{alias}] can point to multiple indices, found duplicated alias [[{}]] in index template [{template}]",
                names.join(", ")
            )));
        }
        let old_index = self.get(&old)?;
        let m = measures(&old_index);
        let results: BTreeMap<String, bool> =
            conditions.iter().map(|c| (c.key(), c.holds(&m))).collect();
        let any_max = conditions.iter().any(|c| c.is_max && c.holds(&m));
        let all_min = conditions.iter().filter(|c| !c.is_max).all(|c| c.holds(&m));
        let met = conditions.is_empty() || (any_max && all_min);
        let mut outcome = RolloverOutcome {
            old_index: old.clone(),
            new_index: new_name.clone(),
            rolled_over: false,
            conditions: results,
        };
        if dry_run || !met {
            return Ok(outcome);
        }
        let alias_name = alias.to_string();
        self.create_index_with(&new_name, &create_body, |next| {
            // Another request may have moved the alias since it was read.
            if next.write_index(&alias_name).ok().flatten() != Some(old.as_str()) {
                return Err(SearchError::illegal(format!(
                    "rollover target [{alias_name}] changed while rolling over; retry"
                )));
            }
            let link = |write: Option<bool>| AliasMeta {
                is_write_index: write,
                is_hidden: hidden,
                ..AliasMeta::default()
            };
            if explicit {
                next.put(&new_name, &alias_name, link(Some(true)));
                next.put(&old, &alias_name, link(Some(false)));
            } else {
                next.put(&new_name, &alias_name, link(None));
                next.remove(&old, &alias_name);
            }
            Ok(())
        })?;
        outcome.rolled_over = true;
        Ok(outcome)
    }
}

/// The body's `conditions`, and the rest as a create-index body.
fn split_body(body: &Value) -> Result<(Vec<Condition>, Value)> {
    let obj = match body {
        Value::Null => return Ok((Vec::new(), Value::Null)),
        Value::Object(o) => o,
        _ => return Err(SearchError::parsing("request body must be an object")),
    };
    let mut conditions = Vec::new();
    let mut create = Map::new();
    for (key, value) in obj {
        match key.as_str() {
            "conditions" => conditions = Condition::parse_all(value)?,
            "settings" | "mappings" | "aliases" => {
                create.insert(key.clone(), value.clone());
            }
            other => {
                return Err(SearchError::parsing(format!(
                    "[rollover] unknown field [{other}]"
                )))
            }
        }
    }
    Ok((conditions, Value::Object(create)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_increment_with_six_digits() {
        assert_eq!(next_index_name("logs-000001").unwrap(), "logs-000002");
        assert_eq!(next_index_name("logs-9").unwrap(), "logs-000010");
        assert_eq!(next_index_name("a-b-1234567").unwrap(), "a-b-1234568");
        assert!(next_index_name("logs").is_err());
        assert!(next_index_name("logs-x1").is_err());
        assert!(next_index_name("logs-").is_err());
    }
}
