//! The collector of runtime-field aggregations: per matching document,
//! each runtime field the aggregations name is computed once and its
//! values fed to every aggregation on it. Counts are exact; each new
//! distinct value or bucket is reserved on the request's memory account
//! before it is kept, so a field with endless distinct values meets the
//! breaker, not the allocator.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::plan::{Kind, RuntimeAgg};
use crate::breaker::MemoryAccount;
use crate::error::SearchError;
use crate::mapping::Mappings;
use crate::script::doc_values::SegmentDocValues;
use crate::script::runtime_query::{emitted_keys, Key};

/// Bytes reserved for one kept distinct value or bucket (plus a string's
/// length).
const ENTRY_BYTES: u64 = 64;

/// A value as a hash key: numbers by their bits (`-0.0` as `0.0`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum HashKey {
    Text(String),
    Number(u64),
    Bool(bool),
}

impl HashKey {
    fn of(key: &Key) -> HashKey {
        match key {
            Key::Text(s) => HashKey::Text(s.clone()),
            Key::Number(n) => HashKey::Number(if *n == 0.0 { 0 } else { n.to_bits() }),
            Key::Bool(b) => HashKey::Bool(*b),
        }
    }

    fn bytes(&self) -> u64 {
        match self {
            HashKey::Text(s) => ENTRY_BYTES + s.len() as u64,
            _ => ENTRY_BYTES,
        }
    }
}

fn number(key: &Key) -> Option<f64> {
    match key {
        Key::Number(n) => Some(*n),
        Key::Bool(b) => Some(f64::from(u8::from(*b))),
        Key::Text(_) => None,
    }
}

/// One aggregation's partial result.
#[derive(Debug, Clone)]
pub(super) enum State {
    Terms(HashMap<HashKey, u64>),
    Histogram(HashMap<i64, u64>),
    Range(Vec<u64>),
    Metric {
        count: u64,
        sum: f64,
        min: f64,
        max: f64,
    },
    Cardinality(HashSet<HashKey>),
}

impl State {
    fn new(kind: &Kind) -> State {
        match kind {
            Kind::Terms { .. } => State::Terms(HashMap::new()),
            Kind::Histogram { .. } => State::Histogram(HashMap::new()),
            Kind::Range(ranges) => State::Range(vec![0; ranges.len()]),
            Kind::Metric(_) => State::Metric {
                count: 0,
                sum: 0.0,
                min: f64::INFINITY,
                max: f64::NEG_INFINITY,
            },
            Kind::Cardinality => State::Cardinality(HashSet::new()),
        }
    }

    /// Adds `other` (of the same aggregation): its entries were reserved
    /// when its segment collected them.
    fn merge(&mut self, other: State) {
        match (self, other) {
            (State::Terms(a), State::Terms(b)) => {
                for (k, n) in b {
                    *a.entry(k).or_insert(0) += n;
                }
            }
            (State::Histogram(a), State::Histogram(b)) => {
                for (k, n) in b {
                    *a.entry(k).or_insert(0) += n;
                }
            }
            (State::Range(a), State::Range(b)) => {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
            }
            (
                State::Metric {
                    count,
                    sum,
                    min,
                    max,
                },
                State::Metric {
                    count: c2,
                    sum: s2,
                    min: mi2,
                    max: ma2,
                },
            ) => {
                *count += c2;
                *sum += s2;
                *min = min.min(mi2);
                *max = max.max(ma2);
            }
            (State::Cardinality(a), State::Cardinality(b)) => a.extend(b),
            _ => {}
        }
    }
}

/// The partial results of one segment, shard or search, in the
/// aggregations' order, or the first error met.
#[derive(Debug)]
pub struct RuntimeAggsFruit {
    pub(super) states: Vec<State>,
    pub(super) error: Option<SearchError>,
}

impl RuntimeAggsFruit {
    /// Empty results of `aggs`.
    pub(crate) fn new(aggs: &[RuntimeAgg]) -> RuntimeAggsFruit {
        RuntimeAggsFruit {
            states: aggs.iter().map(|a| State::new(&a.kind)).collect(),
            error: None,
        }
    }

    /// Adds another part (the first error wins).
    pub(crate) fn merge(&mut self, other: RuntimeAggsFruit) {
        if self.error.is_some() {
            return;
        }
        if other.error.is_some() {
            self.error = other.error;
            return;
        }
        for (a, b) in self.states.iter_mut().zip(other.states) {
            a.merge(b);
        }
    }
}

/// The collector of one shard of one index.
pub struct RuntimeAggsCollector {
    aggs: Arc<Vec<RuntimeAgg>>,
    mappings: Arc<Mappings>,
    memory: MemoryAccount,
}

impl RuntimeAggsCollector {
    /// Collects `aggs` over an index mapped by `mappings`.
    pub(crate) fn new(
        aggs: Arc<Vec<RuntimeAgg>>,
        mappings: Arc<Mappings>,
        memory: MemoryAccount,
    ) -> RuntimeAggsCollector {
        RuntimeAggsCollector {
            aggs,
            mappings,
            memory,
        }
    }
}

impl Collector for RuntimeAggsCollector {
    type Fruit = RuntimeAggsFruit;
    type Child = RuntimeAggsSegment;

    fn for_segment(
        &self,
        _segment_ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<RuntimeAggsSegment> {
        // Each runtime field once: the first aggregation naming it.
        let mut fields: Vec<usize> = Vec::new();
        let field_of = self
            .aggs
            .iter()
            .map(
                |a| match fields.iter().position(|&f| self.aggs[f].field == a.field) {
                    Some(p) => p,
                    None => {
                        fields.push(
                            self.aggs
                                .iter()
                                .position(|b| b.field == a.field)
                                .unwrap_or(0),
                        );
                        fields.len() - 1
                    }
                },
            )
            .collect();
        Ok(RuntimeAggsSegment {
            aggs: Arc::clone(&self.aggs),
            doc_values: SegmentDocValues::new(segment, Arc::clone(&self.mappings)),
            keys: vec![Vec::new(); fields.len()],
            fields,
            field_of,
            fruit: RuntimeAggsFruit::new(&self.aggs),
            memory: self.memory.clone(),
            seen: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<RuntimeAggsFruit>) -> tantivy::Result<RuntimeAggsFruit> {
        let mut out = RuntimeAggsFruit::new(&self.aggs);
        for f in fruits {
            out.merge(f);
        }
        Ok(out)
    }
}

/// The collector of one segment.
pub struct RuntimeAggsSegment {
    aggs: Arc<Vec<RuntimeAgg>>,
    doc_values: SegmentDocValues,
    /// Per runtime field: the aggregation whose field and script it is.
    fields: Vec<usize>,
    /// Per aggregation: its field's place in `fields`.
    field_of: Vec<usize>,
    /// Per runtime field: the current document's values.
    keys: Vec<Vec<Key>>,
    fruit: RuntimeAggsFruit,
    memory: MemoryAccount,
    /// Scratch: the document's distinct buckets of one aggregation.
    seen: Vec<i64>,
}

impl RuntimeAggsSegment {
    fn add(&mut self, doc: DocId) -> Result<(), SearchError> {
        for (slot, &agg) in self.fields.iter().enumerate() {
            let a = &self.aggs[agg];
            emitted_keys(
                &a.field,
                a.ty,
                &a.script,
                &self.doc_values,
                doc,
                &mut self.keys[slot],
            )
            .map_err(|e| match e {
                tantivy::TantivyError::InvalidArgument(m) => SearchError::illegal(m),
                other => SearchError::from(other),
            })?;
        }
        let mut grown = 0;
        for (i, agg) in self.aggs.iter().enumerate() {
            let keys = &self.keys[self.field_of[i]];
            match (&agg.kind, &mut self.fruit.states[i]) {
                (Kind::Terms { .. }, State::Terms(counts)) => {
                    for (n, key) in keys.iter().enumerate() {
                        if keys[..n].contains(key) {
                            continue;
                        }
                        let k = HashKey::of(key);
                        grown += if counts.contains_key(&k) {
                            0
                        } else {
                            k.bytes()
                        };
                        *counts.entry(k).or_insert(0) += 1;
                    }
                }
                (
                    Kind::Histogram {
                        interval, offset, ..
                    },
                    State::Histogram(counts),
                ) => {
                    self.seen.clear();
                    for v in keys.iter().filter_map(number) {
                        let bucket = ((v - offset) / interval).floor();
                        if !bucket.is_finite() || bucket.abs() >= 9.0e15 {
                            continue;
                        }
                        let bucket = bucket as i64;
                        if !self.seen.contains(&bucket) {
                            self.seen.push(bucket);
                            grown += if counts.contains_key(&bucket) {
                                0
                            } else {
                                ENTRY_BYTES
                            };
                            *counts.entry(bucket).or_insert(0) += 1;
                        }
                    }
                }
                (Kind::Range(ranges), State::Range(counts)) => {
                    for (r, count) in ranges.iter().zip(counts.iter_mut()) {
                        let hit = keys
                            .iter()
                            .filter_map(number)
                            .any(|v| r.from.is_none_or(|f| v >= f) && r.to.is_none_or(|t| v < t));
                        *count += u64::from(hit);
                    }
                }
                (
                    Kind::Metric(_),
                    State::Metric {
                        count,
                        sum,
                        min,
                        max,
                    },
                ) => {
                    for key in keys {
                        *count += 1;
                        if let Some(v) = number(key) {
                            *sum += v;
                            *min = min.min(v);
                            *max = max.max(v);
                        }
                    }
                }
                (Kind::Cardinality, State::Cardinality(set)) => {
                    for key in keys {
                        let k = HashKey::of(key);
                        if !set.contains(&k) {
                            grown += k.bytes();
                            set.insert(k);
                        }
                    }
                }
                _ => {}
            }
        }
        if grown > 0 {
            self.memory.reserve(grown, "<runtime_aggregations>")?;
        }
        Ok(())
    }
}

impl SegmentCollector for RuntimeAggsSegment {
    type Fruit = RuntimeAggsFruit;

    fn collect(&mut self, doc: DocId, _score: Score) {
        if self.fruit.error.is_some() {
            return;
        }
        if let Err(e) = self.add(doc) {
            self.fruit.error = Some(e);
        }
    }

    fn harvest(self) -> RuntimeAggsFruit {
        self.fruit
    }
}
