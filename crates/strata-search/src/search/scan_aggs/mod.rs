//! Aggregations tantivy lacks (or computes less exactly than Elasticsearch),
//! computed by Strata from the column values of the matching documents in
//! a pass of their own (`values::ScanCollector`), at the top level or per
//! bucket through `deferred`:
//!
//! - `cardinality` other than the top-level keyword one `distinct_terms`
//!   computes: exact up to `precision_threshold`, then HyperLogLog.
//! - `string_stats` of keyword fields (`string_stats`);
//! - `weighted_avg`; `rare_terms`; `significant_terms` (JLH or percentage
//!   score against the whole index or a `background_filter`);
//! - `composite` (`terms`, `histogram`, `date_histogram` sources, `after`
//!   paging), its buckets' sub-aggregations one search each.
//! - `percentile_ranks` and `percentiles` of numeric, date and boolean
//!   fields, at any depth, on one digest (exact up to 2,000 values, then
//!   a log histogram of offsets from its first values' smallest:
//!   `field_values`), read as Elasticsearch 8's t-digest; only a plain
//!   top-level numeric `percentiles` is left to the pass's collector.
//!   Below the buckets of a `terms`, `histogram`, `date_histogram` or
//!   `range`, one scan fills them for every bucket (`bucket_digests`; a
//!   keyword `terms`' by term ordinals, `term_batch`; a number field's
//!   by blocks of column values, `number_batch`, a `histogram`'s buckets
//!   found by arithmetic, `range_grid`).
//! - `boxplot` and `median_absolute_deviation` of numeric fields, at any
//!   depth, on the same digest read as Elasticsearch 8.15 reads its
//!   t-digest for them (`spread`), batched below buckets alike.
//! - `multi_terms`: buckets of combinations of several fields' values,
//!   exact counts, its buckets' sub-aggregations one search each.
//!
//! Every accumulator is bounded: distinct values are capped
//! ([`MAX_DISTINCT`]), composite keeps the page it returns.

mod bucket_digests;
mod bucket_matcher;
mod cardinality;
mod composite;
mod env;
mod field_values;
mod multi_terms;
mod number_batch;
mod percent_values;
mod percentile_ranks;
mod percentiles;
mod range_grid;
mod spread;
mod string_stats;
mod term_batch;
mod terms_scans;
pub mod values;
mod weighted_avg;

pub use bucket_digests::run_batch;
pub use env::ScanEnv;

use serde_json::Value;

use crate::error::{Result, SearchError};
use crate::mapping::Mappings;
use crate::search::agg_tree::{
    AggNode, AggTree, CardinalityParams, PercentilesParams, TypedParams,
};
use crate::search::distinct_count::DistinctCount;

/// The aggregation types computed here.
pub const KINDS: &[&str] = &[
    "weighted_avg",
    "string_stats",
    "rare_terms",
    "significant_terms",
    "composite",
    "percentile_ranks",
    "boxplot",
    "median_absolute_deviation",
    "multi_terms",
];

/// Whether a `cardinality` is computed here rather than by
/// `distinct_terms` (which takes top-level ones on keyword and ip fields
/// with no parameter but `precision_threshold`).
pub fn cardinality_here(depth: usize, params: &CardinalityParams, mappings: &Mappings) -> bool {
    let keyword = mappings.leaf(&params.field).is_some_and(|l| {
        matches!(
            l.ty,
            crate::mapping::FieldType::Keyword | crate::mapping::FieldType::Ip
        )
    });
    !(depth == 1 && !params.other_keys && keyword)
}

/// Whether a `percentiles` at nesting level `depth` is computed here
/// rather than by the pass's own collector (`percentiles::split`).
pub fn percentiles_here(depth: usize, params: &PercentilesParams, mappings: &Mappings) -> bool {
    percentiles::here(depth, params, mappings)
}

/// Checks a `cardinality` computed here against the mapping before any
/// search runs.
pub fn check_cardinality(
    name: &str,
    params: &CardinalityParams,
    mappings: &Mappings,
) -> Result<()> {
    cardinality::Cardinality::new(name, params, mappings).map(|_| ())
}

/// Whether `kind` is computed here (with `cardinality` decided by
/// [`cardinality_here`], `percentiles` by [`percentiles_here`]).
pub fn is_scanned(kind: &str) -> bool {
    KINDS.contains(&kind) || kind == "cardinality" || kind == "percentiles"
}

/// Checks the aggregation `node` before any search runs.
pub fn validate(node: &AggNode, mappings: &Mappings) -> Result<()> {
    let (name, kind, params) = (&node.name, node.kind.name(), &node.body);
    let takes_sub = matches!(
        kind,
        "composite" | "rare_terms" | "significant_terms" | "multi_terms"
    );
    if !node.subs.is_empty() && !takes_sub {
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
        "weighted_avg" => match &node.typed {
            TypedParams::WeightedAvg(w) => {
                weighted_avg::WeightedAvg::new(name, w, mappings).map(|_| ())
            }
            _ => Err(unparsed(name, kind)),
        },
        "string_stats" => match &node.typed {
            TypedParams::StringStats(s) => {
                string_stats::StringStats::new(name, s, mappings).map(|_| ())
            }
            _ => Err(unparsed(name, kind)),
        },
        "rare_terms" => match &node.typed {
            TypedParams::RareTerms(r) => terms_scans::RareTerms::new(name, r, mappings).map(|_| ()),
            _ => Err(unparsed(name, kind)),
        },
        "significant_terms" => match &node.typed {
            TypedParams::SignificantTerms(s) => {
                terms_scans::SignificantTerms::new(name, s, mappings).map(|_| ())
            }
            _ => Err(unparsed(name, kind)),
        },
        "composite" => match &node.typed {
            TypedParams::Composite(c) => composite::Composite::new(name, c, mappings).map(|_| ()),
            _ => Err(unparsed(name, kind)),
        },
        "percentile_ranks" => match &node.typed {
            TypedParams::PercentileRanks(p) => {
                percentile_ranks::PercentileRanks::new(name, p, mappings).map(|_| ())
            }
            _ => Err(unparsed(name, kind)),
        },
        "percentiles" => match &node.typed {
            TypedParams::Percentiles(p) => {
                percentiles::Percentiles::new(name, p, mappings).map(|_| ())
            }
            _ => Err(unparsed(name, kind)),
        },
        "boxplot" | "median_absolute_deviation" => match &node.typed {
            TypedParams::Spread(s) => spread::Spread::new(name, s, mappings).map(|_| ()),
            _ => Err(unparsed(name, kind)),
        },
        "multi_terms" => match &node.typed {
            TypedParams::MultiTerms(m) => {
                multi_terms::MultiTerms::new(name, m, &node.subs, mappings).map(|_| ())
            }
            _ => Err(unparsed(name, kind)),
        },
        _ => Err(SearchError::illegal(format!(
            "aggregation type [{kind}] of [{name}] is not supported by this server"
        ))),
    }
}

/// The distinct values the `cardinality` `node` counts over `env`'s
/// query (for `cumulative_cardinality`, which unions buckets' values).
pub fn distinct(env: &ScanEnv<'_>, node: &AggNode) -> Result<DistinctCount> {
    match &node.typed {
        TypedParams::Cardinality(c) => {
            let mappings = env.mappings();
            env.scan(
                env.query,
                cardinality::Cardinality::new(&node.name, c, &mappings)?,
            )
        }
        _ => Err(unparsed(&node.name, node.kind.name())),
    }
}

/// Runs the scanned aggregation `node` (with its sub-aggregations, as
/// parsed) over `env`'s query.
pub fn run(env: &ScanEnv<'_>, node: &AggNode) -> Result<Value> {
    let mappings = env.mappings();
    let (name, kind) = (&node.name, node.kind.name());
    let sub = AggTree::from_nodes(node.subs.clone());
    let sub = sub.as_ref();
    match kind {
        "cardinality" => match &node.typed {
            TypedParams::Cardinality(c) => {
                cardinality::Cardinality::new(name, c, &mappings)?.run(env)
            }
            _ => Err(unparsed(name, kind)),
        },
        "weighted_avg" => match &node.typed {
            TypedParams::WeightedAvg(w) => {
                weighted_avg::WeightedAvg::new(name, w, &mappings)?.run(env)
            }
            _ => Err(unparsed(name, kind)),
        },
        "string_stats" => match &node.typed {
            TypedParams::StringStats(s) => {
                string_stats::StringStats::new(name, s, &mappings)?.run(env, name)
            }
            _ => Err(unparsed(name, kind)),
        },
        "rare_terms" => match &node.typed {
            TypedParams::RareTerms(r) => {
                terms_scans::RareTerms::new(name, r, &mappings)?.run(env, sub)
            }
            _ => Err(unparsed(name, kind)),
        },
        "significant_terms" => match &node.typed {
            TypedParams::SignificantTerms(s) => {
                terms_scans::SignificantTerms::new(name, s, &mappings)?.run(env, sub)
            }
            _ => Err(unparsed(name, kind)),
        },
        "composite" => match &node.typed {
            TypedParams::Composite(c) => {
                composite::Composite::new(name, c, &mappings)?.run(env, sub)
            }
            _ => Err(unparsed(name, kind)),
        },
        "percentile_ranks" => match &node.typed {
            TypedParams::PercentileRanks(p) => {
                percentile_ranks::PercentileRanks::new(name, p, &mappings)?.run(env, name)
            }
            _ => Err(unparsed(name, kind)),
        },
        "percentiles" => match &node.typed {
            TypedParams::Percentiles(p) => {
                percentiles::Percentiles::new(name, p, &mappings)?.run(env)
            }
            _ => Err(unparsed(name, kind)),
        },
        "boxplot" | "median_absolute_deviation" => match &node.typed {
            TypedParams::Spread(s) => spread::Spread::new(name, s, &mappings)?.run(env, name),
            _ => Err(unparsed(name, kind)),
        },
        "multi_terms" => match &node.typed {
            TypedParams::MultiTerms(m) => {
                multi_terms::MultiTerms::new(name, m, &node.subs, &mappings)?.run(env, sub)
            }
            _ => Err(unparsed(name, kind)),
        },
        _ => Err(SearchError::illegal(format!(
            "aggregation type [{kind}] of [{name}] is not supported by this server"
        ))),
    }
}

/// A typed kind (`cardinality`, `weighted_avg`, `string_stats`, `rare_terms`,
/// `significant_terms`, `composite`, `percentile_ranks`, `percentiles`,
/// `boxplot`, `median_absolute_deviation`, `multi_terms`) whose node
/// carries no typed parameters: the tree's parse types every one, so
/// this does not come.
fn unparsed(name: &str, kind: &str) -> SearchError {
    SearchError::illegal(format!("[{kind}] aggregation [{name}] was not parsed"))
}
