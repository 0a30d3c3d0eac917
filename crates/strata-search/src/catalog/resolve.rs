//! Index expressions to indices. An expression is a comma list of index
//! names, alias names, `*` wildcards (matching both), `_all` and `-name`
//! exclusions. Reads go to every index an alias points at, filtered by the
//! alias's filter unless the index is also reached directly or through an
//! unfiltered alias (Elasticsearch's rule); writes go to an alias's write
//! index; single-document reads need an alias of exactly one index.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use super::indices_options::IndicesOptions;
use super::names::wildcard_match;
use super::state::{Catalog, IndexMap};
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;

/// An index a read reaches, with the filter its aliases impose.
#[derive(Debug, Clone)]
pub struct Target {
    /// The index.
    pub index: Arc<SearchIndex>,
    /// A query every hit in this index must also match (`None`: no filter).
    pub filter: Option<Value>,
}

/// How an index was reached: `None` unfiltered, or the filters of every
/// filtered alias that reached it (any of them lets a document through).
type Reach = Option<Vec<Value>>;

fn reach(map: &mut BTreeMap<String, Reach>, index: &str, filter: Option<&Value>) {
    match map.entry(index.to_string()) {
        Entry::Vacant(e) => {
            e.insert(filter.map(|f| vec![f.clone()]));
        }
        Entry::Occupied(mut e) => match (e.get_mut(), filter) {
            (Some(list), Some(f)) => list.push(f.clone()),
            (Some(_), None) => *e.get_mut() = None,
            (None, _) => {}
        },
    }
}

fn parts(expression: &str) -> impl Iterator<Item = &str> {
    expression
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
}

impl Catalog {
    /// The indices an expression reaches (alias filters dropped; for APIs
    /// such as `_refresh`, `_stats`, `_mapping` that have none).
    pub fn resolve(&self, expression: &str) -> Result<Vec<Arc<SearchIndex>>> {
        Ok(self
            .resolve_targets_with(expression, IndicesOptions::default())?
            .into_iter()
            .map(|t| t.index)
            .collect())
    }

    /// The indices an expression reaches under `options` with their alias
    /// filters, sorted by name. A concrete name that is neither an index
    /// nor an alias is `index_not_found_exception` (unless `options`
    /// ignore unavailable ones); a wildcard may match nothing.
    pub fn resolve_targets_with(
        &self,
        expression: &str,
        options: IndicesOptions,
    ) -> Result<Vec<Target>> {
        let indices = self.indices.read();
        let aliases = self.aliases.read();
        let mut reached: BTreeMap<String, Reach> = BTreeMap::new();
        for part in parts(expression) {
            if let Some(excluded) = part.strip_prefix('-') {
                reached.retain(|name, _| !wildcard_match(excluded, name));
                continue;
            }
            if part == "_all" || part.contains('*') {
                if !options.expand_open {
                    continue;
                }
                let pattern = if part == "_all" { "*" } else { part };
                for (name, index) in indices.iter().filter(|(n, _)| wildcard_match(pattern, n)) {
                    // Hidden indices only when asked for, or when both the
                    // pattern and the name start with a dot (Elasticsearch's
                    // `isVisibleDueToImplicitHidden`).
                    let implicit = pattern.starts_with('.') && name.starts_with('.');
                    if index.is_hidden() && !options.expand_hidden && !implicit {
                        continue;
                    }
                    reach(&mut reached, name, None);
                }
                for alias in aliases.names().filter(|a| wildcard_match(pattern, a)) {
                    let targets = aliases.targets(alias);
                    // Wildcards skip hidden aliases unless `expand_wildcards`
                    // asks for them.
                    let hidden =
                        targets.is_some_and(|t| t.values().any(|m| m.is_hidden == Some(true)));
                    if hidden && !options.expand_hidden {
                        continue;
                    }
                    for (index, meta) in targets.into_iter().flatten() {
                        reach(&mut reached, index, meta.filter.as_ref());
                    }
                }
                continue;
            }
            if indices.contains_key(part) {
                reach(&mut reached, part, None);
            } else if let Some(targets) = aliases.targets(part) {
                for (index, meta) in targets {
                    reach(&mut reached, index, meta.filter.as_ref());
                }
            } else if !options.ignore_unavailable {
                return Err(SearchError::IndexNotFound(part.to_string()));
            }
        }
        if reached.is_empty() && !options.allow_no_indices {
            return Err(SearchError::IndexNotFound(expression.to_string()));
        }
        let mut out = Vec::with_capacity(reached.len());
        for (name, how) in reached {
            let Some(index) = indices.get(&name) else {
                continue;
            };
            let filter = match how {
                None => None,
                Some(mut list) if list.len() == 1 => list.pop(),
                Some(list) => Some(json!({"bool": {"should": list, "minimum_should_match": 1}})),
            };
            out.push(Target {
                index: Arc::clone(index),
                filter,
            });
        }
        Ok(out)
    }

    /// Whether `name` is an alias.
    pub fn is_alias(&self, name: &str) -> bool {
        self.aliases.read().contains(name)
    }

    /// The index a write to `name` goes to: the index itself, or the
    /// alias's write index. `Ok(None)` when `name` is neither (the caller
    /// may create it); an error for an alias without a write index.
    pub fn write_index(&self, name: &str) -> Result<Option<Arc<SearchIndex>>> {
        let indices = self.indices.read();
        if let Some(index) = indices.get(name) {
            return Ok(Some(Arc::clone(index)));
        }
        let aliases = self.aliases.read();
        match aliases.write_index(name)? {
            Some(target) => Ok(indices.get(target).cloned()),
            None => Ok(None),
        }
    }

    /// The one index a single-document read of `name` goes to: the index,
    /// or the only index of an alias.
    pub fn single_index(&self, name: &str) -> Result<Arc<SearchIndex>> {
        let indices = self.indices.read();
        if let Some(index) = indices.get(name) {
            return Ok(Arc::clone(index));
        }
        let aliases = self.aliases.read();
        let targets = aliases
            .targets(name)
            .ok_or_else(|| SearchError::IndexNotFound(name.to_string()))?;
        if targets.len() > 1 {
            let names: Vec<&str> = targets.keys().map(String::as_str).collect();
            return Err(SearchError::illegal(format!(
                "alias [{name}] has more than one index associated with it [{}], can't execute a single index op",
                names.join(", ")
            )));
        }
        targets
            .keys()
            .next()
            .and_then(|i| indices.get(i).cloned())
            .ok_or_else(|| SearchError::IndexNotFound(name.to_string()))
    }
}

/// Indices only (what `DELETE /<index>` and alias actions name), over
/// locked maps: wildcards match index names, an alias name is refused.
pub(super) fn concrete(
    indices: &IndexMap,
    aliases: &crate::aliases::Aliases,
    expression: &str,
) -> Result<Vec<Arc<SearchIndex>>> {
    let mut chosen: BTreeMap<String, Arc<SearchIndex>> = BTreeMap::new();
    for part in parts(expression) {
        if let Some(excluded) = part.strip_prefix('-') {
            chosen.retain(|name, _| !wildcard_match(excluded, name));
            continue;
        }
        if part == "_all" || part.contains('*') {
            let pattern = if part == "_all" { "*" } else { part };
            for (name, index) in indices.iter() {
                if wildcard_match(pattern, name) {
                    chosen.insert(name.clone(), Arc::clone(index));
                }
            }
            continue;
        }
        if let Some(index) = indices.get(part) {
            chosen.insert(part.to_string(), Arc::clone(index));
        } else if aliases.contains(part) {
            return Err(SearchError::illegal(format!(
                "The provided expression [{part}] matches an alias, specify the corresponding concrete indices instead."
            )));
        } else {
            return Err(SearchError::IndexNotFound(part.to_string()));
        }
    }
    Ok(chosen.into_values().collect())
}
