//! `ScanEnv`: what a scanned aggregation needs of the search it is part
//! of (indices, request, its bucket's query), with the column scan over
//! the matching documents and the searches of its buckets'
//! sub-aggregations.

use std::sync::Arc;

use serde_json::{Map, Value};
use tantivy::collector::Collector;

use super::values::{Scan, ScanCollector};
use crate::error::Result;
use crate::index::SearchIndex;
use crate::mapping::Mappings;
use crate::query::ParsedQuery;
use crate::search::agg_tree::AggTree;
use crate::search::reentry::SearchFn;
use crate::search::request::{SearchRequest, TrackTotalHits};
use crate::search::{nested_aggs, parallel, snapshot};

/// What a scanned aggregation needs of the search it is part of.
pub struct ScanEnv<'a> {
    /// The whole search, for the buckets' sub-aggregations.
    pub search: SearchFn,
    /// The searched indices.
    pub indices: &'a [Arc<SearchIndex>],
    /// The search (for its memory account and options).
    pub req: &'a SearchRequest,
    /// The query of the bucket the aggregation is in.
    pub query: &'a ParsedQuery,
}

impl ScanEnv<'_> {
    /// The mapping of the first index.
    pub fn mappings(&self) -> Arc<Mappings> {
        self.indices
            .first()
            .map(|i| i.mappings())
            .unwrap_or_default()
    }

    /// Runs `scan` over the documents matching `query`.
    pub fn scan<S: Scan>(&self, query: &ParsedQuery, scan: S) -> Result<S::Acc> {
        let scan = Arc::new(scan);
        let mut out = scan.start();
        for part in self.collect(query, || ScanCollector(Arc::clone(&scan)))? {
            scan.merge(&mut out, part);
        }
        Ok(out)
    }

    /// Runs a collector (`collector` makes one per shard) over the
    /// documents matching `query` in every searched shard; each shard's
    /// fruit, for the caller to merge.
    pub fn collect<C: Collector>(
        &self,
        query: &ParsedQuery,
        collector: impl Fn() -> C,
    ) -> Result<Vec<C::Fruit>> {
        let mut queries = Vec::with_capacity(self.indices.len());
        let mut searchers = Vec::new();
        for (i, index) in self.indices.iter().enumerate() {
            queries.push(nested_aggs::scoped_query(
                index,
                query,
                &self.req.memory,
                &self.req.scope,
                Some(&self.req.scripted),
                self.req.slice.as_ref(),
            )?);
            let pinned = snapshot::searchers(self.req.snapshot.as_ref(), index);
            searchers.extend(pinned.into_iter().map(|s| (i, s)));
        }
        let parts: Vec<_> = searchers
            .iter()
            .map(|(i, searcher)| parallel::ShardSearch {
                searcher,
                query: &*queries[*i],
                collector: collector(),
            })
            .collect();
        Ok(parallel::collect_shards(&parts)?)
    }

    /// The sub-aggregations `sub` (as parsed) over this query narrowed by
    /// `filter`.
    pub fn bucket_aggs(&self, filter: &Value, sub: &AggTree) -> Result<Map<String, Value>> {
        let pass = SearchRequest {
            query: self.query.filtered(&[ParsedQuery::parse(filter.clone())?]),
            from: 0,
            size: 0,
            sort: Vec::new(),
            track_total_hits: TrackTotalHits::Off,
            search_after: None,
            aggs: Some(sub.clone()),
            docvalue_fields: Vec::new(),
            ..self.req.clone()
        };
        let mut out = (self.search)(self.indices, &pass)?.body;
        Ok(match out["aggregations"].take() {
            Value::Object(m) => m,
            _ => Map::new(),
        })
    }
}
