//! Creating an index (matching templates first, then the request's own
//! `settings`, `mappings` and `aliases`) and deleting indices with their
//! aliases.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::names::{validate_alias_name, validate_index_name};
use super::resolve::concrete;
use super::state::{Catalog, ALIASES};
use crate::aliases::{AliasMeta, Aliases};
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::mapping::Mappings;
use crate::settings::IndexSettings;
use crate::templates::TemplateBody;

/// How long a deletion waits for an index's passing holders (the refresh
/// ticker's round, a request in flight) to let it go, so that it is closed
/// and its merges waited for before its files go. A longer holder (a
/// scroll) lets it go later; its files are released then.
const HOLDERS_WAIT: Duration = Duration::from_secs(2);

/// The reason Elasticsearch gives for an alias named like an index.
pub(super) const ALIAS_IS_INDEX: &str =
    "an index or data stream exists with the same name as the alias";

impl Catalog {
    /// Creates an index from a `PUT /<index>` body (`settings`,
    /// `mappings`, `aliases`) laid over the templates its name matches.
    pub fn create_index(&self, name: &str, body: &Value) -> Result<Arc<SearchIndex>> {
        self.create_index_with(name, body, |_| Ok(()))
    }

    /// [`create_index`](Self::create_index), with `alias_change` applied to
    /// the alias table in the same atomic update as the new index's own
    /// aliases (rollover moves its alias this way).
    pub(crate) fn create_index_with(
        &self,
        name: &str,
        body: &Value,
        alias_change: impl FnOnce(&mut Aliases) -> Result<()>,
    ) -> Result<Arc<SearchIndex>> {
        validate_index_name(name)?;
        let request = parse_create_body(body)?;
        let mut merged = TemplateBody::default();
        for layer in self.templates.read().layers_for(name) {
            merged.merge(layer);
        }
        merged.merge(&request);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as i64);
        let uuid = format!(
            "{:016x}",
            xxhash_rust::xxh3::xxh3_64(format!("{name}{now}").as_bytes())
        );
        let mut settings = IndexSettings::new(now, uuid);
        settings.apply(&merged.settings_value(), true)?;
        if settings.store_tier.is_none() {
            settings.store_tier = Some(self.storage.default_tier);
        }
        self.storage.check(settings.tier())?;
        let mappings = match &merged.mappings {
            Some(m) => Mappings::parse(m)?,
            None => Mappings::default(),
        };
        settings.limits.check_mapping(&mappings, 0)?;
        crate::index::check_runtime_section(&mappings)?;
        let mut links = Vec::new();
        for (alias, def) in &merged.aliases {
            let alias = alias.replace("{index}", name);
            validate_alias_name(&alias)?;
            links.push((alias.clone(), AliasMeta::parse(&alias, def)?));
        }

        let mut indices = self.indices.write();
        if indices.contains_key(name) {
            return Err(SearchError::IndexExists(name.to_string()));
        }
        self.check_shard_limit(&indices, &settings)?;
        let mut aliases = self.aliases.write();
        if aliases.contains(name) {
            return Err(SearchError::InvalidIndexName {
                name: name.to_string(),
                reason: "already exists as alias".into(),
            });
        }
        let mut next = aliases.clone();
        for (alias, meta) in links {
            if alias == name || indices.contains_key(&alias) {
                return Err(SearchError::InvalidAliasName {
                    name: alias,
                    reason: ALIAS_IS_INDEX.into(),
                });
            }
            next.put(name, &alias, meta);
        }
        alias_change(&mut next)?;
        next.validate()?;
        // With alias changes, the index's creation must take them along
        // even across a crash: save the resulting table as `pending`
        // first; the new index's metadata file is the commit point
        // (`Catalog::open` finishes or forgets a pending table).
        let changes_aliases = *aliases != next;
        if changes_aliases {
            let mut doc = aliases.to_json();
            doc["pending"] = json!({"index": name, "aliases": next.to_json()["aliases"]});
            self.save_node_file(ALIASES, &doc)?;
        }
        let dir = self.root.join(name);
        let created = (|| {
            // A directory a cut creation left: its store files go too.
            self.storage.files.remove_dir(&dir)?;
            if let Some(node) = &self.storage.node_store {
                node.forget_below(&dir);
            }
            SearchIndex::create(&dir, name, settings, mappings, &self.storage)
        })();
        let index = match created {
            Ok(index) => Arc::new(index),
            Err(e) => {
                if changes_aliases {
                    // Forget the pending table now rather than at the next open.
                    if let Err(undo) = self.save_node_file(ALIASES, &aliases.to_json()) {
                        tracing::warn!(error = %undo, "dropping a pending alias table");
                    }
                }
                return Err(e);
            }
        };
        indices.insert(name.to_string(), Arc::clone(&index));
        self.commit_aliases(&mut aliases, next)?;
        Ok(index)
    }

    /// Deletes the indices an expression names (index names and wildcards
    /// over them; an alias is refused) with their aliases; returns how many.
    pub fn delete(&self, expression: &str) -> Result<usize> {
        let victims = {
            let mut indices = self.indices.write();
            let mut aliases = self.aliases.write();
            let victims = concrete(&indices, &aliases, expression)?;
            let mut next = aliases.clone();
            for victim in &victims {
                next.drop_index(victim.name());
            }
            self.commit_aliases(&mut aliases, next)?;
            for victim in &victims {
                indices.remove(victim.name());
            }
            victims
        };
        let count = victims.len();
        self.remove_files(victims)?;
        Ok(count)
    }

    /// Closes indices already taken out of the catalog and removes their files.
    pub(super) fn remove_files(&self, victims: Vec<Arc<SearchIndex>>) -> Result<()> {
        for victim in victims {
            let dir = self.root.join(victim.name());
            let pmem_dir = self.storage.pmem_dir_of(&victim.settings().uuid);
            match sole_owner(victim) {
                Ok(index) => {
                    if let Err(e) = index.close() {
                        tracing::warn!(error = %e, "closing a deleted index");
                    }
                }
                Err(held) => tracing::warn!(
                    index = held.name(),
                    "a deleted index is still held: its files go with its last holder"
                ),
            }
            self.storage.files.remove_dir(&dir)?;
            // Its shards' catalogs are gone with it: their segment files in
            // the node's SSD store go once no search holds them.
            if let Some(node) = &self.storage.node_store {
                node.forget_below(&dir);
            }
            // After the index directory (the commit point): a crash between
            // the two leaves an unnamed pmem directory, never a pmem index
            // without its files.
            if let Some(pmem) = pmem_dir {
                self.storage.files.remove_dir(&pmem)?;
            }
        }
        Ok(())
    }
}

/// The index itself once nobody else holds it, waiting at most
/// [`HOLDERS_WAIT`]; the shared handle back if someone still does.
fn sole_owner(mut index: Arc<SearchIndex>) -> std::result::Result<SearchIndex, Arc<SearchIndex>> {
    let deadline = Instant::now() + HOLDERS_WAIT;
    loop {
        match Arc::try_unwrap(index) {
            Ok(index) => return Ok(index),
            Err(shared) if Instant::now() < deadline => {
                index = shared;
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(shared) => return Err(shared),
        }
    }
}

/// A create-index body: only `settings`, `mappings` and `aliases`.
fn parse_create_body(body: &Value) -> Result<TemplateBody> {
    match body {
        Value::Null => Ok(TemplateBody::default()),
        Value::Object(obj) => {
            if let Some(other) = obj
                .keys()
                .find(|k| !matches!(k.as_str(), "settings" | "mappings" | "aliases"))
            {
                return Err(SearchError::parsing(format!(
                    "unknown key [{other}] for create index"
                )));
            }
            TemplateBody::parse(body)
        }
        _ => Err(SearchError::parsing("request body must be an object")),
    }
}
