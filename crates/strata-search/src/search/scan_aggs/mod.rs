//! Aggregations tantivy lacks (or computes less exactly than Elasticsearch),
//! computed by Strata from the column values of the matching documents in
//! a pass of their own (`values::ScanCollector`), at the top level or per
//! bucket through `deferred`:
//!
//! - `cardinality` other than the top-level keyword one `distinct_terms`
//!   computes: exact up to `precision_threshold`, then HyperLogLog.
//! - `weighted_avg`; `rare_terms`; `significant_terms` (JLH or percentage
//!   score against the whole index or a `background_filter`);
//! - `composite` (`terms`, `histogram`, `date_histogram` sources, `after`
//!   paging), its buckets' sub-aggregations one search each.
//!
//! Every accumulator is bounded: distinct values are capped
//! ([`MAX_DISTINCT`]), composite keeps the page it returns.

mod cardinality;
mod composite;
mod terms_scans;
pub mod values;
mod weighted_avg;

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::{parallel, search_response, SearchRequest, TrackTotalHits};
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::mapping::Mappings;
use values::{Scan, ScanCollector};

/// The aggregation types computed here.
pub const KINDS: &[&str] = &[
    "weighted_avg",
    "rare_terms",
    "significant_terms",
    "composite",
];

/// Most distinct values a terms scan keeps (`rare_terms`,
/// `significant_terms`); more is a 400, like too many buckets.
pub const MAX_DISTINCT: usize = 1_000_000;

/// Whether a `cardinality` is computed here rather than by
/// `distinct_terms` (which takes top-level ones on keyword and ip fields
/// with no parameter but `precision_threshold`).
pub fn cardinality_here(depth: usize, params: &Value, mappings: &Mappings) -> bool {
    let simple = params
        .as_object()
        .is_some_and(|p| p.keys().all(|k| k == "field" || k == "precision_threshold"));
    let keyword = params
        .get("field")
        .and_then(Value::as_str)
        .and_then(|f| mappings.leaf(f))
        .is_some_and(|l| {
            matches!(
                l.ty,
                crate::mapping::FieldType::Keyword | crate::mapping::FieldType::Ip
            )
        });
    !(depth == 1 && simple && keyword)
}

/// Whether `kind` is computed here (with `cardinality` decided by
/// [`cardinality_here`]).
pub fn is_scanned(kind: &str) -> bool {
    KINDS.contains(&kind) || kind == "cardinality"
}

/// Checks a body (`{kind: params, "aggs": ...}`) before any search runs.
pub fn validate(name: &str, kind: &str, body: &Value, mappings: &Mappings) -> Result<()> {
    let params = &body[kind];
    let sub = body.get("aggs").or_else(|| body.get("aggregations"));
    let takes_sub = matches!(kind, "composite" | "rare_terms" | "significant_terms");
    if sub.is_some() && !takes_sub {
        return Err(SearchError::illegal(format!(
            "Aggregator [{name}] of type [{kind}] cannot accept sub-aggregations"
        )));
    }
    if !params.is_object() {
        return Err(SearchError::parsing(format!(
            "[{kind}] of [{name}] must be an object"
        )));
    }
    match kind {
        "cardinality" => cardinality::Cardinality::parse(name, params, mappings).map(|_| ()),
        "weighted_avg" => weighted_avg::WeightedAvg::parse(name, params, mappings).map(|_| ()),
        "rare_terms" => terms_scans::RareTerms::parse(name, params, mappings).map(|_| ()),
        "significant_terms" => {
            terms_scans::SignificantTerms::parse(name, params, mappings).map(|_| ())
        }
        "composite" => composite::Composite::parse(name, params, mappings).map(|_| ()),
        _ => Err(SearchError::illegal(format!(
            "aggregation type [{kind}] of [{name}] is not supported by this server"
        ))),
    }
}

/// What a scanned aggregation needs of the search it is part of.
pub struct ScanEnv<'a> {
    /// The searched indices.
    pub indices: &'a [Arc<SearchIndex>],
    /// The search (for its memory account and options).
    pub req: &'a SearchRequest,
    /// The query of the bucket the aggregation is in.
    pub query: &'a Value,
}

impl ScanEnv<'_> {
    /// The mapping of the first index.
    pub fn mappings(&self) -> Mappings {
        self.indices
            .first()
            .map(|i| i.mappings())
            .unwrap_or_default()
    }

    /// Runs `scan` over the documents matching `query`.
    pub fn scan<S: Scan>(&self, query: &Value, scan: S) -> Result<S::Acc> {
        let scan = Arc::new(scan);
        let mut queries = Vec::with_capacity(self.indices.len());
        let mut searchers = Vec::new();
        for (i, index) in self.indices.iter().enumerate() {
            queries.push(super::nested_aggs::scoped_query(
                index,
                query,
                &self.req.memory,
                &self.req.scope,
                Some(&self.req.scripted),
                self.req.slice.as_ref(),
            )?);
            let pinned = super::snapshot::searchers(self.req.snapshot.as_ref(), index);
            searchers.extend(pinned.into_iter().map(|s| (i, s)));
        }
        let parts: Vec<_> = searchers
            .iter()
            .map(|(i, searcher)| parallel::ShardSearch {
                searcher,
                query: &*queries[*i],
                collector: ScanCollector(Arc::clone(&scan)),
            })
            .collect();
        let mut out = S::Acc::default();
        for part in parallel::collect_shards(&parts)? {
            scan.merge(&mut out, part);
        }
        Ok(out)
    }

    /// The sub-aggregations `sub` over this query narrowed by `filter`.
    pub fn bucket_aggs(&self, filter: &Value, sub: &Value) -> Result<Map<String, Value>> {
        let pass = SearchRequest {
            query: json!({"bool": {"must": [self.query], "filter": [filter]}}),
            from: 0,
            size: 0,
            sort: Vec::new(),
            track_total_hits: TrackTotalHits::Off,
            search_after: None,
            aggs: Some(sub.clone()),
            docvalue_fields: Vec::new(),
            ..self.req.clone()
        };
        let mut out = search_response(self.indices, &pass)?.body;
        Ok(match out["aggregations"].take() {
            Value::Object(m) => m,
            _ => Map::new(),
        })
    }
}

/// Runs scanned aggregation `name` (`body`: `{kind: params, "aggs": ...}`)
/// over `env`'s query.
pub fn run(env: &ScanEnv<'_>, name: &str, kind: &str, body: &Value) -> Result<Value> {
    let mappings = env.mappings();
    let params = &body[kind];
    let sub = body.get("aggs").or_else(|| body.get("aggregations"));
    match kind {
        "cardinality" => cardinality::Cardinality::parse(name, params, &mappings)?.run(env),
        "weighted_avg" => weighted_avg::WeightedAvg::parse(name, params, &mappings)?.run(env),
        "rare_terms" => terms_scans::RareTerms::parse(name, params, &mappings)?.run(env, sub),
        "significant_terms" => {
            terms_scans::SignificantTerms::parse(name, params, &mappings)?.run(env, sub)
        }
        "composite" => composite::Composite::parse(name, params, &mappings)?.run(env, sub),
        _ => Err(SearchError::illegal(format!(
            "aggregation type [{kind}] of [{name}] is not supported by this server"
        ))),
    }
}

/// The `field` parameter of `kind` aggregation `name`.
pub(crate) fn field_param<'a>(name: &str, kind: &str, params: &'a Value) -> Result<&'a str> {
    match params.get("field") {
        Some(Value::String(f)) => Ok(f),
        Some(other) => Err(SearchError::parsing(format!(
            "[field] of [{kind}] aggregation [{name}] must be a string, got [{other}]"
        ))),
        None => Err(SearchError::illegal(format!(
            "Required one of fields [field, script], but none were specified (aggregation [{name}])"
        ))),
    }
}

/// [`field_param`] of an object's map.
pub(crate) fn field_param_of(
    name: &str,
    kind: &str,
    params: &Map<String, Value>,
) -> Result<String> {
    field_param(name, kind, &Value::Object(params.clone())).map(str::to_string)
}

/// Refuses parameters of `kind` aggregation `name` outside `allowed`.
pub(crate) fn check_keys(name: &str, kind: &str, params: &Value, allowed: &[&str]) -> Result<()> {
    if let Some(obj) = params.as_object() {
        for k in obj.keys() {
            if k == "script" {
                return Err(SearchError::illegal(format!(
                    "[script] of [{kind}] aggregation [{name}] is not supported"
                )));
            }
            if !allowed.contains(&k.as_str()) {
                // Elasticsearch 8's declarative parsers' error.
                return Err(SearchError::FieldParse {
                    reason: format!("[{kind}] unknown field [{k}]"),
                    cause: None,
                });
            }
        }
    }
    Ok(())
}

/// A count parameter (`size`, `min_doc_count`, ...) with its default.
pub(crate) fn count_param(name: &str, params: &Value, key: &str, default: u64) -> Result<u64> {
    match params.get(key) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .ok_or_else(|| {
                SearchError::parsing(format!(
                    "[{key}] of aggregation [{name}] must be a non-negative integer, got [{v}]"
                ))
            }),
    }
}
