//! The `aggs` of a search request parsed once into a tree of [`AggNode`]s:
//! each aggregation's name, its kind ([`AggKind`]), its kind's parameters
//! (JSON, and typed for the numeric metrics, [`MetricParams`],
//! `percentiles`, [`PercentilesParams`], `percentile_ranks`,
//! [`PercentileRanksParams`], `boxplot` and `median_absolute_deviation`,
//! [`SpreadParams`], `cardinality`,
//! [`CardinalityParams`], `terms`, [`TermsParams`], `histogram`,
//! [`HistogramParams`], `date_histogram`, [`DateHistogramParams`],
//! `auto_date_histogram`, [`AutoDateHistogramParams`] (top level only), and the
//! parent pipelines `derivative`, `cumulative_sum` and `bucket_sort`,
//! [`PipelineParams`]: [`TypedParams`]) and its sub-aggregations.
//! Each level is parsed knowing its parent's kind, so a pipeline in a
//! parent it cannot sit in is refused here. `bucket_script` and
//! `bucket_selector` are typed too, [`BucketScriptParams`], their scripts
//! as written (the script module compiles them), `weighted_avg`,
//! [`WeightedAvgParams`] (its fields' types are the scan's to judge),
//! `rare_terms`, [`RareTermsParams`], and `significant_terms`,
//! [`SignificantTermsParams`] (the values they count, [`TermValues`], as
//! written: converting them to the field's type is the scan's, against
//! the mapping; `significant_terms`' `background_filter` is parsed here
//! into a [`ParsedQuery`](crate::query::ParsedQuery)),
//! `composite`, [`CompositeParams`] (its sources, [`CompositeSource`],
//! and `size` checked here; the `after` key's values as written, and the
//! fit of each source's field to its type, are the scan's, against the
//! mapping), `multi_terms`, [`MultiTermsParams`] (its sources' fields
//! and `missing` values as written, its `order` paths unresolved: the
//! scan judges them against the mapping and the sub-aggregations),
//! `range` and `date_range`, [`RangeParams`] (the ends of each
//! range as written, [`RangeEdge`]: numbers, or on a date field dates in
//! its format, which translation converts against the mapping),
//! `ip_range`, [`IpRangeParams`] (its addresses and masks parsed, the
//! ranges in Elasticsearch's bucket order; whether the field is an `ip`
//! is translation's to judge),
//! `missing`, [`MissingParams`], `geo_centroid`, [`GeoCentroidParams`],
//! `geo_bounds`, [`GeoBoundsParams`], `geohash_grid` and `geotile_grid`,
//! [`GeoGridParams`] (whether the field is a
//! `geo_point` is the geo module's to judge), and `nested` and
//! `reverse_nested`, [`NestedParams`] (whether the `path` is nested, and
//! below the enclosing scope, is their pass's),
//! `top_hits`, [`TopHitsParams`] (its sort fields and
//! `docvalue_fields` as written: the per-bucket search checks them
//! against the mapping as any search does), `top_metrics`,
//! [`TopMetricsParams`] (its one sort and its metrics' fields as written,
//! `size` within `index.top_metrics_max_size`), and `filter` and `filters`,
//! [`FilterParams`] and [`FiltersParams`], `random_sampler`, [`RandomSamplerParams`]
//! ([`SampleScale`]: its sampled results), the samplers' [`sampler::SamplerParams`].
//! The queries inside aggregations (`filter`'s, `filters`', the
//! `background_filter`) are parsed here, once, into `ParsedQuery`s: the
//! query's tree with the JSON it borrows from, owned together (through
//! `yoke`) and shared by reference count, so they live in the typed
//! parameters without a lifetime, a bad one is refused with the path of
//! its aggregation, and the passes that run them use the tree (tantivy's
//! filter aggregation, whose request is serialized, carries their JSON,
//! parsed again once per request, not per segment).
//! Structural errors (an aggregation that is not an object, two kinds in
//! one, no kind, an unknown kind, `aggs` that is not an object, a bad
//! name, nesting past [`MAX_AGG_DEPTH`]) are the parse's, and its parse
//! errors carry the path of the offending aggregation
//! (`[aggs][by_day][aggs][max]`) as query errors do
//! (`SearchError::InQuery`). Translation to tantivy's request walks the
//! tree; an [`AggTree`] keeps the JSON it was parsed from (or, for one
//! made of nodes, their JSON), which only tests read now: the search,
//! its extra passes (handed the parsed nodes) and the bucket scripts read
//! the nodes; every kind's parameters are typed, and [`AggNode::body`]
//! keeps the JSON only for the tree's own JSON and tantivy's request.

mod auto_date_histogram;
mod bucket_paths;
mod bucket_script;
mod cardinality;
mod composite;
mod composite_source;
mod date_histogram;
mod filters;
mod geo;
mod histogram;
mod ip_range;
mod keys;
mod kind;
mod metric;
mod missing;
mod moving_fn;
mod multi_terms;
mod nested;
mod percentile_ranks;
mod percentiles;
mod pipeline;
mod random_sampler;
mod range;
mod rare_terms;
mod rate;
pub mod sampler;
mod sibling;
mod significant_terms;
mod source;
mod spread;
mod string_stats;
mod term_values;
mod terms;
mod top_hits;
mod top_metrics;
mod typed;
mod weighted_avg;

use serde_json::{Map, Value};

pub use self::auto_date_histogram::AutoDateHistogramParams;
pub use self::bucket_script::BucketScriptParams;
pub use self::cardinality::CardinalityParams;
pub use self::composite::CompositeParams;
pub use self::composite_source::{CompositeSource, Grouping as CompositeGrouping, NullOrder};
pub use self::date_histogram::{DateHistogramParams, DateValue};
pub use self::filters::{FilterParams, FiltersParams};
pub use self::geo::{GeoBoundsParams, GeoCentroidParams, GeoGridParams, GridSystem};
pub use self::histogram::HistogramParams;
pub use self::ip_range::IpRangeParams;
pub use self::kind::AggKind;
pub use self::metric::MetricParams;
pub use self::missing::MissingParams;
pub use self::moving_fn::MovingFnParams;
pub use self::multi_terms::MultiTermsParams;
pub(crate) use self::multi_terms::OrderKey;
pub use self::nested::NestedParams;
pub use self::percentile_ranks::PercentileRanksParams;
pub use self::percentiles::PercentilesParams;
pub(crate) use self::pipeline::check_parent;
pub use self::pipeline::{GapPolicy, NormalizeMethod, PipelineParams, SortKey};
pub use self::random_sampler::{RandomSamplerParams, SampleScale};
pub use self::range::{RangeEdge, RangeParams};
pub use self::rare_terms::RareTermsParams;
pub use self::rate::{RateDivisor, RateMode, RateParams};
pub use self::sibling::{SiblingKind, SiblingParams};
pub use self::significant_terms::{Heuristic, SignificantTermsParams};
pub use self::source::MissingValue;
pub use self::spread::{SpreadKind, SpreadParams};
pub use self::string_stats::StringStatsParams;
pub use self::term_values::TermValues;
pub use self::terms::TermsParams;
pub use self::top_hits::TopHitsParams;
pub use self::top_metrics::TopMetricsParams;
pub use self::typed::TypedParams;
pub use self::weighted_avg::{WeightedAvgParams, WeightedSide};
use crate::error::{QueryStep, Result, SearchError};

/// Deepest nesting of aggregations (the top level being 1). Translation,
/// tantivy's collectors and the reshaping recurse once per level;
/// Elasticsearch bounds nesting only through `search.max_buckets`, and a
/// JSON body nests at most 128 values (about 40 levels of aggregations).
pub const MAX_AGG_DEPTH: usize = 32;

/// One aggregation of a request.
#[derive(Debug, Clone, PartialEq)]
pub struct AggNode {
    /// Its name: the key of its result.
    pub name: String,
    /// Its type.
    pub kind: AggKind,
    /// The value of its type's key: the type's parameters.
    pub body: Value,
    /// Its parameters, typed for the kinds that have types so far.
    pub typed: TypedParams,
    /// Its sub-aggregations, in request order.
    pub subs: Vec<AggNode>,
}

/// A request's `aggs`: the tree, and the JSON it was parsed from.
#[derive(Debug, Clone, PartialEq)]
pub struct AggTree {
    nodes: Vec<AggNode>,
    json: Value,
}

impl AggTree {
    /// Parses an `aggs` object.
    pub fn parse(json: Value) -> Result<AggTree> {
        let mut nodes = parse_level(&json, 1, None)?;
        resolve_rates(&mut nodes)?;
        Ok(AggTree { nodes, json })
    }

    /// A tree of `nodes` (already parsed, e.g. taken out of another
    /// tree); `None` when there are none.
    pub fn from_nodes(nodes: Vec<AggNode>) -> Option<AggTree> {
        (!nodes.is_empty()).then(|| AggTree {
            json: level_json(&nodes),
            nodes,
        })
    }

    /// The top-level aggregations.
    pub fn nodes(&self) -> &[AggNode] {
        &self.nodes
    }

    /// The `aggs` object as written (the tests' view: the search reads
    /// the nodes).
    #[cfg(test)]
    pub fn json(&self) -> &Value {
        &self.json
    }
}

/// The `aggs` object of `nodes`: each one's [`AggNode::to_json`] under its
/// name.
pub fn level_json(nodes: &[AggNode]) -> Value {
    Value::Object(
        nodes
            .iter()
            .map(|n| (n.name.clone(), n.to_json()))
            .collect(),
    )
}

/// The aggregations of an `aggs` object at nesting level `depth`, in a
/// `parent` aggregation (`None`: at the top level).
fn parse_level(aggs: &Value, depth: usize, parent: Option<AggKind>) -> Result<Vec<AggNode>> {
    if depth > MAX_AGG_DEPTH {
        return Err(SearchError::illegal(format!(
            "aggregations are nested more than [{MAX_AGG_DEPTH}] levels deep"
        )));
    }
    let obj = aggs
        .as_object()
        .ok_or_else(|| SearchError::parsing("[aggs] must be an object"))?;
    let nodes = obj
        .iter()
        .map(|(name, body)| {
            AggNode::parse(name, body, depth, parent)
                .map_err(|e| e.in_query(QueryStep::Key(name.clone())))
        })
        .collect::<Result<Vec<AggNode>>>()?;
    let level: Vec<_> = nodes
        .iter()
        .map(|n| (n.name.as_str(), n.kind, &n.typed))
        .collect();
    bucket_paths::check(&level)?;
    Ok(nodes)
}

impl AggNode {
    /// The aggregation `name` at nesting level `depth`, in a `parent`
    /// aggregation (`None`: at the top level).
    fn parse(name: &str, body: &Value, depth: usize, parent: Option<AggKind>) -> Result<AggNode> {
        check_name(name)?;
        let body = body.as_object().ok_or_else(|| {
            SearchError::parsing(format!("Expected [START_OBJECT] under [{name}]"))
        })?;
        let mut kind: Option<(&String, &Value)> = None;
        let mut sub = None;
        for (key, value) in body {
            match key.as_str() {
                "aggs" | "aggregations" => sub = Some((key, value)),
                "meta" => {
                    return Err(SearchError::illegal(
                        "[meta] on aggregations is not supported",
                    ))
                }
                _ if kind.is_none() => kind = Some((key, value)),
                other => {
                    return Err(SearchError::parsing(format!(
                        "Found two aggregation type definitions in [{name}]: [{}] and [{other}]",
                        kind.map_or("", |k| k.0.as_str())
                    )))
                }
            }
        }
        let (kind_name, params) = kind.ok_or_else(|| {
            SearchError::parsing(format!("Missing definition for aggregation [{name}]"))
        })?;
        let kind = AggKind::from_name(kind_name).ok_or_else(|| {
            SearchError::illegal(format!(
                "aggregation type [{kind_name}] of [{name}] is not supported by this server"
            ))
        })?;
        let refuse_subs = || match sub {
            Some(_) if !kind.takes_subs() => Err(SearchError::illegal(format!(
                "Aggregator [{name}] of type [{kind_name}] cannot accept sub-aggregations"
            ))),
            _ => Ok(()),
        };
        // Pipelines' parameters were checked after this when translation
        // (or the script module) checked them; the other kinds' before it.
        if PipelineParams::covers(kind)
            || BucketScriptParams::covers(kind)
            || SiblingParams::covers(kind)
            || kind == AggKind::MovingFn
        {
            refuse_subs()?;
        }
        let typed = keys::check(kind, params)
            .and_then(|()| TypedParams::parse(kind, name, params, parent))
            .map_err(|e| e.in_query(QueryStep::Key(kind_name.clone())))?;
        refuse_subs()?;
        let subs = match sub {
            Some((key, value)) => parse_level(value, depth + 1, Some(kind))
                .map_err(|e| e.in_query(QueryStep::Key(key.clone())))?,
            None => Vec::new(),
        };
        if let TypedParams::RandomSampler(p) = &typed {
            let mut below = Vec::new();
            preorder(&subs, &mut below);
            p.check_subs(name, &below)?;
        }
        Ok(AggNode {
            name: name.to_string(),
            kind,
            body: params.clone(),
            typed,
            subs,
        })
    }
}

impl AggNode {
    /// Its body as Elasticsearch reads it: `{<kind>: <params>}`, with the
    /// sub-aggregations under `aggs` when there are any.
    pub fn to_json(&self) -> Value {
        let mut body = Map::new();
        body.insert(self.kind.name().into(), self.body.clone());
        if !self.subs.is_empty() {
            body.insert("aggs".into(), level_json(&self.subs));
        }
        Value::Object(body)
    }
}

/// The names and kinds of `nodes` and of all below them, parents first.
fn preorder<'n>(nodes: &'n [AggNode], out: &mut Vec<(&'n str, AggKind)>) {
    for node in nodes {
        out.push((&node.name, node.kind));
        preorder(&node.subs, out);
    }
}

/// Elasticsearch's rule for names: `[`, `]` and `>` are refused, since
/// bucket paths (`sales>avg_price`, `percentiles[99]`) use them.
fn check_name(name: &str) -> Result<()> {
    if name.contains(['[', ']', '>']) {
        return Err(SearchError::parsing(format!(
            "Invalid aggregation name [{name}]. Aggregation names can contain any character except '[', ']', and '>'"
        )));
    }
    Ok(())
}

/// Places every `rate` of the tree `nodes`: its divisor from the nearest
/// `date_histogram` above it; a rate with none above (or under a
/// `composite`) is refused.
fn resolve_rates(nodes: &mut [AggNode]) -> Result<()> {
    resolve_level(nodes, None, None)
}

/// `nearest`: the nearest `date_histogram` above this level; `parent`:
/// the kind of the aggregation this level is under.
fn resolve_level(
    nodes: &mut [AggNode],
    nearest: Option<&DateHistogramParams>,
    parent: Option<AggKind>,
) -> Result<()> {
    for node in nodes {
        let name = node.name.clone();
        match &mut node.typed {
            TypedParams::Rate(rate) => {
                let h = match (nearest, parent) {
                    (_, Some(AggKind::Composite)) => {
                        return Err(SearchError::illegal(format!(
                            "[rate] aggregation [{name}] under a [composite] aggregation is not supported by this server"
                        )))
                    }
                    (Some(h), _) => h,
                    (None, _) => {
                        return Err(SearchError::illegal(
                            "The rate aggregation can only be used inside a date histogram aggregation or composite aggregation with one date histogram value source",
                        ))
                    }
                };
                let direct = parent == Some(AggKind::DateHistogram);
                rate.divisor = rate::divisor(h, rate.unit, direct)?;
            }
            TypedParams::DateHistogram(h) => {
                let h = h.clone();
                resolve_level(&mut node.subs, Some(&h), Some(node.kind))?;
                continue;
            }
            _ => {}
        }
        let kind = node.kind;
        let nearest = if kind == AggKind::Composite {
            None
        } else {
            nearest
        };
        resolve_level(&mut node.subs, nearest, Some(kind))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
