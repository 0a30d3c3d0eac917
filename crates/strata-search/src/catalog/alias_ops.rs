//! `POST /_aliases` actions (`add`, `remove`, `remove_index`), applied to
//! a copy of the alias table and made current all at once, so a reader
//! never sees half of a request (an alias swap has no moment with both or
//! neither index).

use std::collections::BTreeSet;

use serde_json::Value;

use super::create::ALIAS_IS_INDEX;
use super::names::{validate_alias_name, wildcard_match};
use super::resolve::concrete;
use super::state::Catalog;
use crate::aliases::AliasMeta;
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::query::{build_json, QueryContext};

/// One alias action.
#[derive(Debug, Clone, PartialEq)]
pub enum AliasAction {
    /// Link every alias to every index (index expressions may use wildcards).
    Add {
        /// Index expressions.
        indices: Vec<String>,
        /// Alias names.
        aliases: Vec<String>,
        /// The link's definition.
        meta: AliasMeta,
    },
    /// Unlink aliases (names may use wildcards) from indices.
    Remove {
        /// Index expressions.
        indices: Vec<String>,
        /// Alias names or patterns.
        aliases: Vec<String>,
        /// `false`: removing nothing is not an error.
        must_exist: Option<bool>,
    },
    /// Delete indices (concrete names or wildcards).
    RemoveIndex {
        /// Index expressions.
        indices: Vec<String>,
    },
}

fn names(value: &Value, key: &str) -> Result<Vec<String>> {
    match value {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| SearchError::parsing(format!("[{key}] must hold strings")))
            })
            .collect(),
        other => Err(SearchError::parsing(format!(
            "[{key}] must be a string or a list, got [{other}]"
        ))),
    }
}

impl AliasAction {
    /// Parses one entry of `actions` (`{"add": {...}}` and so on).
    pub fn parse(entry: &Value) -> Result<AliasAction> {
        let Some((kind, body)) = entry
            .as_object()
            .filter(|o| o.len() == 1)
            .and_then(|o| o.iter().next())
        else {
            return Err(SearchError::parsing(
                "each alias action must be an object with one of [add], [remove], [remove_index]",
            ));
        };
        let obj = body
            .as_object()
            .ok_or_else(|| SearchError::parsing(format!("[{kind}] must be an object")))?;
        let (mut indices, mut aliases, mut must_exist) = (Vec::new(), Vec::new(), None);
        let mut meta = AliasMeta::default();
        for (key, value) in obj {
            match key.as_str() {
                "index" | "indices" => indices.extend(names(value, key)?),
                "alias" | "aliases" => aliases.extend(names(value, key)?),
                "must_exist" => must_exist = value.as_bool(),
                other => {
                    let alias = aliases.first().cloned().unwrap_or_default();
                    if kind != "add" || !meta.set(&alias, other, value)? {
                        return Err(SearchError::parsing(format!(
                            "[{kind}] unknown field [{other}]"
                        )));
                    }
                }
            }
        }
        if indices.is_empty() {
            return Err(SearchError::ActionValidation(
                "One of [index] or [indices] is required".into(),
            ));
        }
        match kind.as_str() {
            "remove_index" => return Ok(AliasAction::RemoveIndex { indices }),
            "add" | "remove" if aliases.is_empty() => {
                return Err(SearchError::ActionValidation(
                    "One of [alias] or [aliases] is required".into(),
                ))
            }
            "add" => {}
            "remove" => {
                return Ok(AliasAction::Remove {
                    indices,
                    aliases,
                    must_exist,
                })
            }
            other => {
                return Err(SearchError::parsing(format!(
                    "[aliases] unknown alias action [{other}]"
                )))
            }
        }
        Ok(AliasAction::Add {
            indices,
            aliases,
            meta,
        })
    }
}

impl Catalog {
    /// Applies `actions` in order to a copy of the alias table, checks it
    /// (no alias named like an index, at most one write index per alias),
    /// saves it and makes it current; then deletes `remove_index` targets.
    pub fn update_aliases(&self, actions: &[AliasAction]) -> Result<()> {
        let doomed = {
            let mut indices = self.indices.write();
            let mut aliases = self.aliases.write();
            let mut next = aliases.clone();
            let mut doomed = BTreeSet::new();
            for action in actions {
                match action {
                    AliasAction::Add {
                        indices: exprs,
                        aliases: names,
                        meta,
                    } => {
                        let targets = concrete(&indices, &aliases, &exprs.join(","))?;
                        for alias in names {
                            validate_alias_name(alias)?;
                            if indices.contains_key(alias) {
                                return Err(SearchError::InvalidAliasName {
                                    name: alias.clone(),
                                    reason: ALIAS_IS_INDEX.into(),
                                });
                            }
                            for target in &targets {
                                if let Some(filter) = &meta.filter {
                                    validate_filter(target, alias, filter)?;
                                }
                                next.put(target.name(), alias, meta.clone());
                            }
                        }
                    }
                    AliasAction::Remove {
                        indices: exprs,
                        aliases: patterns,
                        must_exist,
                    } => {
                        let mut removed = 0;
                        for target in concrete(&indices, &aliases, &exprs.join(","))? {
                            let linked = next.of_index(target.name());
                            for alias in linked.keys().filter(|a| {
                                patterns.iter().any(|p| p == "_all" || wildcard_match(p, a))
                            }) {
                                removed += usize::from(next.remove(target.name(), alias));
                            }
                        }
                        if removed == 0 && *must_exist != Some(false) {
                            return Err(SearchError::AliasesNotFound(patterns.join(",")));
                        }
                    }
                    AliasAction::RemoveIndex { indices: exprs } => {
                        for target in concrete(&indices, &aliases, &exprs.join(","))? {
                            next.drop_index(target.name());
                            doomed.insert(target.name().to_string());
                        }
                    }
                }
            }
            next.validate()?;
            self.commit_aliases(&mut aliases, next)?;
            doomed
                .iter()
                .filter_map(|name| indices.remove(name))
                .collect::<Vec<_>>()
        };
        self.remove_files(doomed)
    }
}

/// Refuses a filter that is not a query this engine understands.
/// Unmapped fields are fine (as in Elasticsearch); malformed queries are not.
fn validate_filter(index: &SearchIndex, alias: &str, filter: &Value) -> Result<()> {
    let Some(shard) = index.shards().first() else {
        return Ok(());
    };
    let mappings = index.mappings();
    let ctx = QueryContext::new(
        &mappings,
        shard.fields(),
        shard.tantivy_index().tokenizers(),
        0,
    );
    match build_json(&ctx, filter) {
        Ok(_) | Err(SearchError::QueryShard(_)) => Ok(()),
        Err(e) => Err(SearchError::illegal(format!(
            "failed to parse filter for alias [{alias}]: {e}"
        ))),
    }
}
