//! The counts of [`TopTerms`] kept from segments and shards, merged by
//! term, and their reply in tantivy's final shape.

use std::cmp::Reverse;

use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value};

use super::plan::{TermsLevel, TopTerms};

/// The counts of one level: the terms kept, and what was cut.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermCounts {
    /// Kept terms: documents, and the counts of the level below.
    pub entries: FxHashMap<String, TermCount>,
    /// Documents of the terms cut from the kept ones.
    pub sum_other: u64,
    /// Sum of each segment's largest cut count.
    pub error_bound: u64,
}

/// One kept term.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermCount {
    /// Documents holding the term.
    pub count: u64,
    /// The level below, among those documents (empty without one).
    pub inner: TermCounts,
}

impl TermCounts {
    /// Adds another segment's or shard's counts.
    pub fn merge(&mut self, other: TermCounts) {
        self.sum_other += other.sum_other;
        self.error_bound += other.error_bound;
        for (term, theirs) in other.entries {
            let mine = self.entries.entry(term).or_default();
            mine.count += theirs.count;
            mine.inner.merge(theirs.inner);
        }
    }
}

/// Per plan the merged counts, or the error that stopped a segment.
#[derive(Debug, Default)]
pub struct TopTermsFruit {
    pub(super) plans: Vec<TermCounts>,
    pub(super) error: Option<String>,
}

impl TopTermsFruit {
    /// Adds another segment's or shard's counts.
    pub fn merge(&mut self, other: TopTermsFruit) {
        if self.error.is_none() {
            self.error = other.error;
        }
        if self.plans.len() < other.plans.len() {
            self.plans
                .resize_with(other.plans.len(), TermCounts::default);
        }
        for (mine, theirs) in self.plans.iter_mut().zip(other.plans) {
            mine.merge(theirs);
        }
    }

    /// The error a segment met, if any.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }
}

/// The results keyed by aggregation name, in tantivy's final shape.
pub fn into_json(plans: &[TopTerms], mut fruit: TopTermsFruit) -> Map<String, Value> {
    fruit.plans.resize_with(plans.len(), TermCounts::default);
    plans
        .iter()
        .zip(fruit.plans)
        .map(|(plan, counts)| {
            let reply = level_json(&plan.outer, plan.inner.as_ref(), counts);
            (plan.outer.name.clone(), reply)
        })
        .collect()
}

/// One level's reply: `size` buckets by count then key; the rest counts
/// as other documents.
fn level_json(level: &TermsLevel, inner: Option<&TermsLevel>, counts: TermCounts) -> Value {
    let mut buckets: Vec<(String, TermCount)> = counts
        .entries
        .into_iter()
        .filter(|(_, c)| c.count >= level.min_doc_count)
        .collect();
    buckets.sort_unstable_by(|a, b| (Reverse(a.1.count), &a.0).cmp(&(Reverse(b.1.count), &b.0)));
    let cut: u64 = buckets.iter().skip(level.size).map(|b| b.1.count).sum();
    buckets.truncate(level.size);
    let buckets: Vec<Value> = buckets
        .into_iter()
        .map(|(key, count)| {
            let mut bucket = json!({ "key": key, "doc_count": count.count });
            if let Some(inner) = inner {
                bucket[&inner.name] = level_json(inner, None, count.inner);
            }
            bucket
        })
        .collect();
    json!({
        "buckets": buckets,
        "sum_other_doc_count": counts.sum_other + cut,
        "doc_count_error_upper_bound": counts.error_bound,
    })
}
