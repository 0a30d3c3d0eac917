//! `rare_terms` and `significant_terms`: both count, per distinct value of
//! a field, the matching documents holding it (`TermCounts`), exactly.
//! Their parameters were typed and range-checked when the request was
//! parsed (`agg_tree`: [`RareTermsParams`], [`SignificantTermsParams`]);
//! here they meet the mapping: the field's type, and `include`, `exclude`
//! and `missing` converted to it (a value that does not fit is refused),
//! and `background_filter` (parsed with the tree) translated.
//!
//! - `rare_terms`: the values held by at most `max_doc_count` documents,
//!   rarest first then by value (Elasticsearch's order). Elasticsearch
//!   approximates with a cuckoo filter tuned by `precision`; the counts
//!   here are exact, so `precision` only had its range checked.
//! - `significant_terms`: the values more frequent in the matching
//!   documents (foreground) than in the whole index or
//!   `background_filter` (background), scored by `jlh` (the default) or
//!   `percentage`, best first; at least `min_doc_count` foreground
//!   documents.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::env::ScanEnv;
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::query::ParsedQuery;
use crate::search::agg_tree::{
    AggTree, Heuristic, RareTermsParams, SignificantTermsParams, TermValues,
};
use crate::search::bucket_limit::max_buckets;

/// Most distinct values a terms scan keeps (`rare_terms`,
/// `significant_terms`); more is a 400, like too many buckets.
pub const MAX_DISTINCT: usize = 1_000_000;

/// Bytes a counted value takes, about (key, count, table slot, a short string).
const KEY_BYTES: u64 = 72;

/// Counts per value of one field.
#[derive(Clone)]
struct TermCounts {
    field: String,
    kind: ValueKind,
    missing: Option<Key>,
    include: Option<HashSet<Key>>,
    exclude: HashSet<Key>,
}

/// Documents per value, documents seen, and whether the values outgrew
/// [`MAX_DISTINCT`].
#[derive(Default)]
struct Counts {
    per_value: HashMap<Key, u64>,
    docs: u64,
    overflow: bool,
}

impl Scan for TermCounts {
    type Acc = Counts;

    fn fields(&self) -> Vec<(String, ValueKind)> {
        vec![(self.field.clone(), self.kind)]
    }

    fn doc(&self, values: &[Vec<Key>], acc: &mut Counts) {
        acc.docs += 1;
        let own = &values[0];
        let keys = if own.is_empty() {
            self.missing.as_slice()
        } else {
            own.as_slice()
        };
        for (i, key) in keys.iter().enumerate() {
            // A value a document holds twice counts the document once.
            if keys[..i].contains(key) || self.exclude.contains(key) {
                continue;
            }
            if self.include.as_ref().is_some_and(|inc| !inc.contains(key)) {
                continue;
            }
            if let Some(n) = acc.per_value.get_mut(key) {
                *n += 1;
            } else if acc.per_value.len() < MAX_DISTINCT {
                acc.per_value.insert(key.clone(), 1);
            } else {
                acc.overflow = true;
            }
        }
    }

    fn merge(&self, into: &mut Counts, part: Counts) {
        into.docs += part.docs;
        into.overflow |= part.overflow;
        for (k, n) in part.per_value {
            if let Some(m) = into.per_value.get_mut(&k) {
                *m += n;
            } else if into.per_value.len() < MAX_DISTINCT {
                into.per_value.insert(k, n);
            } else {
                into.overflow = true;
            }
        }
    }
}

impl TermCounts {
    /// The counts `values` of the aggregation `name` asks for, over the
    /// field's type in `mappings` (an unmapped field counts as keyword).
    fn new(name: &str, values: &TermValues, mappings: &Mappings) -> Result<TermCounts> {
        let field = &values.field;
        let kind = ValueKind::of(mappings, field, name)?.unwrap_or(ValueKind::Str);
        let key = |v: &Value, what: &str| {
            kind.key_of(v).ok_or_else(|| {
                SearchError::illegal(format!(
                    "[{what}] value [{v}] of [{name}] does not fit field [{field}]"
                ))
            })
        };
        let set = |items: &[Value], what: &str| -> Result<HashSet<Key>> {
            items.iter().map(|v| key(v, what)).collect()
        };
        Ok(TermCounts {
            include: match &values.include {
                Some(items) => Some(set(items, "include")?),
                None => None,
            },
            exclude: set(&values.exclude, "exclude")?,
            missing: match &values.missing {
                Some(v) => Some(key(v, "missing")?),
                None => None,
            },
            kind,
            field: field.clone(),
        })
    }

    /// Refuses counts past [`MAX_DISTINCT`] and reserves what they hold
    /// on the search's account (the request breaker).
    fn check(env: &ScanEnv<'_>, name: &str, counts: &Counts) -> Result<()> {
        env.req.memory.reserve(
            counts.per_value.capacity() as u64 * KEY_BYTES,
            &format!("<agg [{name}]>"),
        )?;
        if counts.overflow {
            return Err(SearchError::illegal(format!(
                "aggregation [{name}] holds more than [{MAX_DISTINCT}] distinct values"
            )));
        }
        Ok(())
    }

    /// A bucket `{key, doc_count}` plus `extra`, with its sub-aggregations.
    fn bucket(
        &self,
        env: &ScanEnv<'_>,
        sub: Option<&AggTree>,
        key: &Key,
        doc_count: u64,
        extra: Map<String, Value>,
    ) -> Result<Value> {
        let (k, text) = self.kind.write(key);
        let mut b = Map::new();
        b.insert("key".into(), k);
        if let Some(t) = text {
            b.insert("key_as_string".into(), json!(t));
        }
        b.insert("doc_count".into(), json!(doc_count));
        b.extend(extra);
        if let Some(sub) = sub {
            let is_missing = self.missing.as_ref() == Some(key);
            let filter = if is_missing {
                json!({"bool": {"should": [self.kind.filter(&self.field, key),
                    {"bool": {"must_not": {"exists": {"field": self.field}}}}]}})
            } else {
                self.kind.filter(&self.field, key)
            };
            b.extend(env.bucket_aggs(&filter, sub)?);
        }
        Ok(Value::Object(b))
    }
}

/// A parsed `rare_terms`.
pub struct RareTerms {
    name: String,
    counts: TermCounts,
    max_doc_count: u64,
}

impl RareTerms {
    /// The `rare_terms` `params` of the aggregation `name` asks for, over
    /// its field's type in `mappings`.
    pub fn new(name: &str, params: &RareTermsParams, mappings: &Mappings) -> Result<RareTerms> {
        Ok(RareTerms {
            name: name.to_string(),
            counts: TermCounts::new(name, &params.values, mappings)?,
            max_doc_count: params.max_doc_count,
        })
    }

    pub fn run(self, env: &ScanEnv<'_>, sub: Option<&AggTree>) -> Result<Value> {
        let counts = env.scan(env.query, self.counts.clone())?;
        TermCounts::check(env, &self.name, &counts)?;
        let mut rare: Vec<(Key, u64)> = counts
            .per_value
            .into_iter()
            .filter(|(_, n)| *n <= self.max_doc_count)
            .collect();
        rare.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        if rare.len() > max_buckets() {
            return Err(SearchError::illegal(format!(
                "Trying to create too many buckets. Must be less than or equal to: [{}] but was [{}]. This limit can be set by changing the [search.max_buckets] cluster level setting.",
                max_buckets(),
                rare.len()
            )));
        }
        let buckets = rare
            .iter()
            .map(|(k, n)| self.counts.bucket(env, sub, k, *n, Map::new()))
            .collect::<Result<Vec<_>>>()?;
        Ok(json!({ "buckets": buckets }))
    }
}

/// A parsed `significant_terms`.
pub struct SignificantTerms {
    name: String,
    counts: TermCounts,
    size: usize,
    min_doc_count: u64,
    background: ParsedQuery,
    heuristic: Heuristic,
}

impl SignificantTerms {
    /// The `significant_terms` `params` of the aggregation `name` asks
    /// for, over its field's type in `mappings`, its background filter
    /// parsed.
    pub fn new(
        name: &str,
        params: &SignificantTermsParams,
        mappings: &Mappings,
    ) -> Result<SignificantTerms> {
        Ok(SignificantTerms {
            name: name.to_string(),
            counts: TermCounts::new(name, &params.values, mappings)?,
            size: params.size,
            min_doc_count: params.min_doc_count,
            background: match &params.background_filter {
                Some(filter) => filter.clone(),
                None => ParsedQuery::match_all(),
            },
            heuristic: params.heuristic,
        })
    }

    /// The score of a value in `fg` of `fg_size` foreground and `bg` of
    /// `bg_size` background documents.
    fn score(&self, fg: u64, fg_size: u64, bg: u64, bg_size: u64) -> f64 {
        match self.heuristic {
            Heuristic::Percentage => {
                if bg == 0 {
                    0.0
                } else {
                    fg as f64 / bg as f64
                }
            }
            Heuristic::Jlh => {
                if fg_size == 0 || bg_size == 0 || bg == 0 {
                    return 0.0;
                }
                let sub = fg as f64 / fg_size as f64;
                let sup = bg as f64 / bg_size as f64;
                if sub > sup {
                    (sub - sup) * (sub / sup)
                } else {
                    0.0
                }
            }
        }
    }

    pub fn run(self, env: &ScanEnv<'_>, sub: Option<&AggTree>) -> Result<Value> {
        let fg = env.scan(env.query, self.counts.clone())?;
        TermCounts::check(env, &self.name, &fg)?;
        let bg = env.scan(&self.background, self.counts.clone())?;
        TermCounts::check(env, &self.name, &bg)?;
        let mut scored: Vec<(Key, u64, u64, f64)> = fg
            .per_value
            .iter()
            .filter(|(_, n)| **n >= self.min_doc_count)
            .map(|(k, &n)| {
                // A foreground document outside the background filter
                // still counts in the background, as in Elasticsearch's
                // superset.
                let b = bg.per_value.get(k).copied().unwrap_or(0).max(n);
                (
                    k.clone(),
                    n,
                    b,
                    self.score(n, fg.docs, b, bg.docs.max(fg.docs)),
                )
            })
            .filter(|s| s.3 > 0.0)
            .collect();
        scored.sort_by(|a, b| b.3.total_cmp(&a.3).then_with(|| a.0.cmp(&b.0)));
        scored.truncate(self.size);
        let buckets = scored
            .iter()
            .map(|(k, n, b, score)| {
                let mut extra = Map::new();
                extra.insert("score".into(), json!(score));
                extra.insert("bg_count".into(), json!(b));
                self.counts.bucket(env, sub, k, *n, extra)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(json!({"doc_count": fg.docs, "bg_count": bg.docs.max(fg.docs), "buckets": buckets}))
    }
}
