//! `multi_terms`: buckets of every combination of its sources' values
//! that the matching documents hold (a document with several values in a
//! source falls in each combination, once), counted exactly in one scan,
//! then ordered (`order`), cut to `size` after `min_doc_count`, and each
//! returned bucket's sub-aggregations computed by a search of its own
//! (its documents: those holding each of its key's values, or lacking
//! the field where the value is the source's `missing`).
//!
//! The reply is Elasticsearch 8's: `doc_count_error_upper_bound` (0: the
//! counts are exact), `sum_other_doc_count` (the counts of the buckets not
//! returned), and buckets with the key as a list (keyword and ip values
//! as strings, whole numbers as integers, other numbers as doubles, dates
//! formatted in the field's format, booleans as `true`/`false`),
//! `key_as_string` joining the values' text with `|`, and
//! `doc_count_error_upper_bound` per bucket when
//! `show_term_doc_count_error` asks for it.
//!
//! Bounded: at most [`MAX_DISTINCT`] distinct keys (then a 400), their
//! memory reserved on the request's account, [`MAX_COMBINATIONS`] per
//! document, and no more buckets returned than `search.max_buckets`
//! (checked before any bucket's sub-aggregations run).

mod order;

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use self::order::{cmp_metric, Criteria, Criterion, MetricAcc, OrderMetric};
use super::env::ScanEnv;
use super::terms_scans::MAX_DISTINCT;
use super::values::{Key, Scan, ValueKind};
use crate::error::{Result, SearchError};
use crate::mapping::date::format_millis;
use crate::mapping::Mappings;
use crate::search::agg_tree::{AggNode, AggTree, MultiTermsParams};
use crate::search::bucket_limit::{max_buckets, too_many};
use crate::search::java_double::java_double;

/// Most key combinations one document may add.
const MAX_COMBINATIONS: usize = 10_000;

/// Bytes a counted key takes beyond its values, about (count, table
/// slot, vector header); each value adds [`VALUE_BYTES`].
const ENTRY_BYTES: u64 = 64;
const VALUE_BYTES: u64 = 40;

/// One of `terms` over the mapping.
struct Source {
    field: String,
    kind: ValueKind,
    missing: Option<Key>,
}

/// A parsed `multi_terms` over the mapping.
pub(crate) struct MultiTerms {
    name: String,
    sources: Vec<Source>,
    params: MultiTermsParams,
    criteria: Criteria,
    metrics: Vec<OrderMetric>,
}

/// One key's count and the statistics of the order's metrics.
#[derive(Clone, Default)]
struct Entry {
    count: u64,
    metrics: Vec<MetricAcc>,
}

/// Entries per key, and whether the keys outgrew their bounds.
#[derive(Default)]
pub(crate) struct Counts {
    entries: HashMap<Vec<Key>, Entry>,
    too_many_keys: bool,
    too_many_combinations: bool,
}

impl MultiTerms {
    /// The `multi_terms` `name` with `params` and the sub-aggregations
    /// `subs` (which a metric order reads) over the mapping: each
    /// source's field kind and `missing` converted to it.
    pub(crate) fn new(
        name: &str,
        params: &MultiTermsParams,
        subs: &[AggNode],
        mappings: &Mappings,
    ) -> Result<MultiTerms> {
        let sources = params
            .terms
            .iter()
            .map(|t| {
                // An unmapped field reads as keyword, as Elasticsearch resolves it.
                let kind =
                    ValueKind::of(mappings, &t.field, "multi_terms")?.unwrap_or(ValueKind::Str);
                let missing = match &t.missing {
                    None => None,
                    Some(v) => Some(kind.key_of(v).ok_or_else(|| {
                        SearchError::illegal(format!(
                            "[missing] value [{v}] of [{name}] does not fit field [{}]",
                            t.field
                        ))
                    })?),
                };
                Ok(Source {
                    field: t.field.clone(),
                    kind,
                    missing,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let (criteria, metrics) = order::resolve(name, &params.order, subs)?;
        Ok(MultiTerms {
            name: name.to_string(),
            sources,
            params: params.clone(),
            criteria,
            metrics,
        })
    }

    /// The order of two buckets.
    fn cmp(&self, a: (&Vec<Key>, &Entry), b: (&Vec<Key>, &Entry)) -> Ordering {
        for &(criterion, descending) in &self.criteria {
            let ord = match criterion {
                Criterion::Count if descending => b.1.count.cmp(&a.1.count),
                Criterion::Count => a.1.count.cmp(&b.1.count),
                Criterion::Key if descending => b.0.cmp(a.0),
                Criterion::Key => a.0.cmp(b.0),
                Criterion::Metric(i) => {
                    let stat = self.metrics[i].stat;
                    cmp_metric(
                        a.1.metrics[i].value(stat),
                        b.1.metrics[i].value(stat),
                        descending,
                    )
                }
            };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        a.0.cmp(b.0)
    }

    pub(crate) fn run(self, env: &ScanEnv<'_>, sub: Option<&AggTree>) -> Result<Value> {
        let plan = Arc::new(self);
        let counts = env.scan(env.query, PlanRef(Arc::clone(&plan)))?;
        let name = &plan.name;
        let per_entry = ENTRY_BYTES + VALUE_BYTES * plan.sources.len() as u64;
        env.req.memory.reserve(
            counts.entries.capacity() as u64 * per_entry,
            &format!("<agg [{name}]>"),
        )?;
        if counts.too_many_keys {
            return Err(SearchError::illegal(format!(
                "aggregation [{name}] holds more than [{MAX_DISTINCT}] distinct keys"
            )));
        }
        if counts.too_many_combinations {
            return Err(SearchError::illegal(format!(
                "a document gives more than [{MAX_COMBINATIONS}] [multi_terms] keys in aggregation [{name}]"
            )));
        }
        let mut entries: Vec<(Vec<Key>, Entry)> = counts
            .entries
            .into_iter()
            .filter(|(_, e)| e.count >= plan.params.min_doc_count)
            .collect();
        entries.sort_by(|a, b| plan.cmp((&a.0, &a.1), (&b.0, &b.1)));
        let size = plan.params.size.min(entries.len());
        let other: u64 = entries[size..].iter().map(|(_, e)| e.count).sum();
        entries.truncate(size);
        if entries.len() > max_buckets() {
            return Err(too_many(Some(entries.len())));
        }
        let mut buckets = Vec::with_capacity(entries.len());
        for (key, entry) in &entries {
            buckets.push(plan.bucket(env, sub, key, entry.count)?);
        }
        Ok(json!({
            "doc_count_error_upper_bound": 0,
            "sum_other_doc_count": other,
            "buckets": buckets,
        }))
    }

    /// The bucket of `key` holding `count` documents, with its
    /// sub-aggregations.
    fn bucket(
        &self,
        env: &ScanEnv<'_>,
        sub: Option<&AggTree>,
        key: &[Key],
        count: u64,
    ) -> Result<Value> {
        let (keys, texts): (Vec<Value>, Vec<String>) = self
            .sources
            .iter()
            .zip(key)
            .map(|(s, k)| written(s.kind, k))
            .unzip();
        let mut b = Map::new();
        b.insert("key".into(), Value::Array(keys));
        b.insert("key_as_string".into(), json!(texts.join("|")));
        b.insert("doc_count".into(), json!(count));
        if self.params.show_term_doc_count_error {
            b.insert("doc_count_error_upper_bound".into(), json!(0));
        }
        if let Some(sub) = sub {
            let filters: Vec<Value> = self
                .sources
                .iter()
                .zip(key)
                .map(|(s, k)| {
                    let holds = s.kind.filter(&s.field, k);
                    if s.missing.as_ref() == Some(k) {
                        json!({"bool": {"should": [holds,
                            {"bool": {"must_not": {"exists": {"field": s.field}}}}]}})
                    } else {
                        holds
                    }
                })
                .collect();
            b.extend(env.bucket_aggs(&json!({"bool": {"filter": filters}}), sub)?);
        }
        Ok(Value::Object(b))
    }
}

/// A key value as Elasticsearch's `multi_terms` writes it in `key`, and
/// its text in `key_as_string`.
fn written(kind: ValueKind, key: &Key) -> (Value, String) {
    match (kind, key) {
        (_, Key::Str(s)) => (json!(&**s), s.to_string()),
        (ValueKind::Date, Key::Num(n)) => {
            let text = format_millis(n.0 as i64);
            (json!(text), text)
        }
        (ValueKind::Bool, Key::Num(n)) => {
            let b = n.0 != 0.0;
            (json!(b), b.to_string())
        }
        (ValueKind::Long, Key::Num(n)) if n.0.fract() == 0.0 && n.0.abs() < 9.0e15 => {
            let whole = n.0 as i64;
            (json!(whole), whole.to_string())
        }
        (_, Key::Num(n)) => (json!(n.0), java_double(n.0)),
    }
}

/// The plan shared with the collectors.
struct PlanRef(Arc<MultiTerms>);

impl Scan for PlanRef {
    type Acc = Counts;

    /// The sources' fields, then the order metrics' (as numbers).
    fn fields(&self) -> Vec<(String, ValueKind)> {
        let plan = &*self.0;
        let sources = plan.sources.iter().map(|s| (s.field.clone(), s.kind));
        let metrics = plan
            .metrics
            .iter()
            .map(|m| (m.field.clone(), ValueKind::Double));
        sources.chain(metrics).collect()
    }

    fn doc(&self, values: &[Vec<Key>], counts: &mut Counts) {
        let plan = &*self.0;
        let n = plan.sources.len();
        let mut per_source: Vec<Vec<&Key>> = Vec::with_capacity(n);
        for (source, vals) in plan.sources.iter().zip(values) {
            let mut keys: Vec<&Key> = Vec::new();
            for v in vals {
                if !keys.contains(&v) {
                    keys.push(v);
                }
            }
            if keys.is_empty() {
                match &source.missing {
                    Some(m) => keys.push(m),
                    None => return,
                }
            }
            per_source.push(keys);
        }
        let combinations = per_source
            .iter()
            .try_fold(1usize, |acc, k| acc.checked_mul(k.len()))
            .filter(|&c| c <= MAX_COMBINATIONS);
        let Some(combinations) = combinations else {
            counts.too_many_combinations = true;
            return;
        };
        let metric_values: Vec<Vec<f64>> = plan
            .metrics
            .iter()
            .zip(&values[n..])
            .map(|(m, vals)| match (vals.is_empty(), m.missing) {
                (true, Some(missing)) => vec![missing],
                _ => vals.iter().filter_map(Key::num).collect(),
            })
            .collect();
        let mut index = vec![0usize; n];
        for _ in 0..combinations {
            let key: Vec<Key> = index
                .iter()
                .zip(&per_source)
                .map(|(&i, keys)| keys[i].clone())
                .collect();
            if !counts.entries.contains_key(&key) {
                if counts.entries.len() >= MAX_DISTINCT {
                    counts.too_many_keys = true;
                    return;
                }
                let fresh = Entry {
                    count: 0,
                    metrics: vec![MetricAcc::default(); plan.metrics.len()],
                };
                counts.entries.insert(key.clone(), fresh);
            }
            if let Some(entry) = counts.entries.get_mut(&key) {
                entry.count += 1;
                for (acc, vals) in entry.metrics.iter_mut().zip(&metric_values) {
                    vals.iter().for_each(|&v| acc.add(v));
                }
            }
            for (i, keys) in index.iter_mut().zip(&per_source) {
                *i += 1;
                if *i < keys.len() {
                    break;
                }
                *i = 0;
            }
        }
    }

    fn merge(&self, into: &mut Counts, part: Counts) {
        into.too_many_keys |= part.too_many_keys;
        into.too_many_combinations |= part.too_many_combinations;
        for (key, entry) in part.entries {
            if let Some(mine) = into.entries.get_mut(&key) {
                mine.count += entry.count;
                for (m, t) in mine.metrics.iter_mut().zip(&entry.metrics) {
                    m.merge(t);
                }
            } else if into.entries.len() < MAX_DISTINCT {
                into.entries.insert(key, entry);
            } else {
                into.too_many_keys = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::scan_aggs::values::Num;

    #[test]
    fn keys_are_written_as_elasticsearch_writes_them() {
        let num = |v| Key::Num(Num(v));
        assert_eq!(
            written(ValueKind::Str, &Key::Str("a".into())),
            (json!("a"), "a".into())
        );
        assert_eq!(written(ValueKind::Long, &num(3.0)), (json!(3), "3".into()));
        assert_eq!(
            written(ValueKind::Double, &num(1.0)),
            (json!(1.0), "1.0".into())
        );
        assert_eq!(
            written(ValueKind::Bool, &num(1.0)),
            (json!(true), "true".into())
        );
        let day = "2024-01-01T00:00:00.000Z".to_string();
        assert_eq!(
            written(ValueKind::Date, &num(1_704_067_200_000.0)),
            (json!(day), day)
        );
    }
}
