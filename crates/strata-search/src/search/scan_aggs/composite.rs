//! `composite`: buckets of every combination of its sources' keys
//! (`terms`, `histogram`, `date_histogram`), in the order of the sources
//! (each `asc` or `desc`, `null` keys of `missing_bucket` first or last),
//! one page of `size` at a time after the `after` key; `after_key` is the
//! last bucket's key, which the next page passes as `after`.
//!
//! A part (segment, shard) keeps only its `size` smallest keys above
//! `after`: any key of the final page is among the smallest of every part
//! that holds it, so counts are exact and memory is bounded by the page.
//!
//! The parameters come typed from the request's parse
//! ([`CompositeParams`]); what needs the mapping is done here: each
//! source's field kind (and its fit to the source's type) and the `after`
//! key's values, converted to the sources' types.

use std::cmp::Ordering;
use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::env::ScanEnv;
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::agg_tree::{AggTree, CompositeParams};

mod source;

use source::{Grouping, Source};

/// Most key combinations one document may add (a document with many
/// values in several sources multiplies them).
const MAX_COMBINATIONS: usize = 10_000;

/// A parsed `composite`.
pub struct Composite {
    sources: Vec<Source>,
    size: usize,
    after: Option<Vec<Option<Key>>>,
}

/// Counts per composite key, and whether a document had too many combinations.
#[derive(Default)]
pub struct Page {
    counts: HashMap<Vec<Option<Key>>, u64>,
    overflow: bool,
}

impl Composite {
    /// The composite `name` with the parameters `params` over the
    /// mapping: its sources' fields checked, its `after` key converted to
    /// their types.
    pub fn new(name: &str, params: &CompositeParams, mappings: &Mappings) -> Result<Composite> {
        let sources = params
            .sources
            .iter()
            .map(|s| Source::new(name, s, mappings))
            .collect::<Result<Vec<_>>>()?;
        let after = match &params.after {
            None => None,
            Some(values) => Some(
                sources
                    .iter()
                    .zip(values)
                    .map(|(s, v)| s.parse_key(name, v))
                    .collect::<Result<Vec<_>>>()?,
            ),
        };
        Ok(Composite {
            sources,
            size: params.size,
            after,
        })
    }

    fn cmp(&self, a: &[Option<Key>], b: &[Option<Key>]) -> Ordering {
        for ((s, x), y) in self.sources.iter().zip(a).zip(b) {
            match s.cmp(x, y) {
                Ordering::Equal => continue,
                other => return other,
            }
        }
        Ordering::Equal
    }

    /// Keeps the `size` smallest keys of `page`.
    fn prune(&self, page: &mut Page) {
        let mut entries: Vec<_> = page.counts.drain().collect();
        entries.sort_by(|a, b| self.cmp(&a.0, &b.0));
        entries.truncate(self.size);
        page.counts.extend(entries);
    }

    pub fn run(self, env: &ScanEnv<'_>, sub: Option<&AggTree>) -> Result<Value> {
        let sources_json: Vec<String> = self.sources.iter().map(|s| s.name.clone()).collect();
        let plan = std::sync::Arc::new(self);
        let page = env.scan(env.query, PlanRef(std::sync::Arc::clone(&plan)))?;
        if page.overflow {
            return Err(SearchError::illegal(format!(
                "a document gives more than [{MAX_COMBINATIONS}] composite keys"
            )));
        }
        let mut entries: Vec<_> = page.counts.into_iter().collect();
        entries.sort_by(|a, b| plan.cmp(&a.0, &b.0));
        entries.truncate(plan.size);
        let mut buckets = Vec::with_capacity(entries.len());
        for (key, count) in &entries {
            let mut key_json = Map::new();
            let mut filters = Vec::new();
            for ((name, source), k) in sources_json.iter().zip(&plan.sources).zip(key) {
                key_json.insert(name.clone(), source.write(k));
                filters.push(source.filter(k));
            }
            let mut b = Map::new();
            b.insert("key".into(), Value::Object(key_json));
            b.insert("doc_count".into(), json!(count));
            if let Some(sub) = sub {
                b.extend(env.bucket_aggs(&json!({"bool": {"filter": filters}}), sub)?);
            }
            buckets.push(Value::Object(b));
        }
        let mut out = Map::new();
        if let Some(last) = buckets.last() {
            out.insert("after_key".into(), last["key"].clone());
        }
        out.insert("buckets".into(), Value::Array(buckets));
        Ok(Value::Object(out))
    }
}

/// The plan shared with the collectors.
struct PlanRef(std::sync::Arc<Composite>);

impl Scan for PlanRef {
    type Acc = Page;

    fn fields(&self) -> Vec<(String, ValueKind)> {
        self.0
            .sources
            .iter()
            .map(|s| {
                let kind = match s.grouping {
                    Grouping::Terms => s.kind,
                    _ => ValueKind::Double,
                };
                (s.field.clone(), kind)
            })
            .collect()
    }

    fn doc(&self, values: &[Vec<Key>], page: &mut Page) {
        let plan = &*self.0;
        let mut per_source: Vec<Vec<Option<Key>>> = Vec::with_capacity(plan.sources.len());
        for (source, vals) in plan.sources.iter().zip(values) {
            let mut keys: Vec<Option<Key>> = Vec::new();
            for v in vals {
                if let Some(k) = source.key(v) {
                    if !keys.iter().any(|e| e.as_ref() == Some(&k)) {
                        keys.push(Some(k));
                    }
                }
            }
            if keys.is_empty() {
                if !source.missing_bucket {
                    return;
                }
                keys.push(None);
            }
            per_source.push(keys);
        }
        let combinations = per_source.iter().map(Vec::len).product::<usize>();
        if combinations > MAX_COMBINATIONS {
            page.overflow = true;
            return;
        }
        let mut index = vec![0usize; per_source.len()];
        for _ in 0..combinations {
            let key: Vec<Option<Key>> = index
                .iter()
                .zip(&per_source)
                .map(|(&i, keys)| keys[i].clone())
                .collect();
            let past_after = plan
                .after
                .as_ref()
                .is_none_or(|after| plan.cmp(&key, after) == Ordering::Greater);
            if past_after {
                *page.counts.entry(key).or_insert(0) += 1;
            }
            for (i, keys) in index.iter_mut().zip(&per_source) {
                *i += 1;
                if *i < keys.len() {
                    break;
                }
                *i = 0;
            }
        }
        if page.counts.len() > plan.size * 2 + 64 {
            plan.prune(page);
        }
    }

    fn merge(&self, into: &mut Page, part: Page) {
        into.overflow |= part.overflow;
        for (k, n) in part.counts {
            *into.counts.entry(k).or_insert(0) += n;
        }
        if into.counts.len() > self.0.size * 2 + 64 {
            self.0.prune(into);
        }
    }
}
