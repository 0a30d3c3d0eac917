//! The `aggs` of a search request parsed once into a tree of [`AggNode`]s:
//! each aggregation's name, its kind ([`AggKind`]), its kind's parameters
//! (JSON, and typed for the numeric metrics, [`MetricParams`],
//! `percentiles`, [`PercentilesParams`], `cardinality`,
//! [`CardinalityParams`], `terms`, [`TermsParams`], `histogram`,
//! [`HistogramParams`], `date_histogram`, [`DateHistogramParams`], and the
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
//! mapping), `top_hits`, [`TopHitsParams`] (its sort fields and
//! `docvalue_fields` as written: the per-bucket search checks them
//! against the mapping as any search does), and `filter` and `filters`,
//! [`FilterParams`] and [`FiltersParams`].
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
//! the nodes; the untyped kinds' parameters (`range`, `date_range`,
//! `missing`, the geo kinds, `nested`, `reverse_nested`) are still read
//! from [`AggNode::body`].

mod bucket_script;
mod cardinality;
mod composite;
mod composite_source;
mod date_histogram;
mod filters;
mod histogram;
mod keys;
mod kind;
mod metric;
mod percentiles;
mod pipeline;
mod rare_terms;
mod significant_terms;
mod source;
mod term_values;
mod terms;
mod top_hits;
mod weighted_avg;

use serde_json::{Map, Value};

pub use self::bucket_script::BucketScriptParams;
pub use self::cardinality::CardinalityParams;
pub use self::composite::CompositeParams;
pub use self::composite_source::{CompositeSource, Grouping as CompositeGrouping, NullOrder};
pub use self::date_histogram::{DateHistogramParams, DateValue};
pub use self::filters::{FilterParams, FiltersParams};
pub use self::histogram::HistogramParams;
pub use self::kind::AggKind;
pub use self::metric::MetricParams;
pub use self::percentiles::PercentilesParams;
pub(crate) use self::pipeline::check_parent;
pub use self::pipeline::{GapPolicy, PipelineParams, SortKey};
pub use self::rare_terms::RareTermsParams;
pub use self::significant_terms::{Heuristic, SignificantTermsParams};
pub(crate) use self::source::field_param;
pub use self::term_values::TermValues;
pub use self::terms::TermsParams;
pub use self::top_hits::TopHitsParams;
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

/// The parameters of an aggregation whose kind has a type for them.
#[derive(Debug, Clone, PartialEq)]
pub enum TypedParams {
    /// A kind whose parameters are read from [`AggNode::body`].
    Untyped,
    /// `min`, `max`, `avg`, `sum`, `value_count`, `stats`, `extended_stats`.
    Metric(MetricParams),
    /// `percentiles`.
    Percentiles(PercentilesParams),
    /// `cardinality`.
    Cardinality(CardinalityParams),
    /// `terms`.
    Terms(TermsParams),
    /// `histogram`.
    Histogram(HistogramParams),
    /// `date_histogram`.
    DateHistogram(DateHistogramParams),
    /// `derivative`, `cumulative_sum`, `bucket_sort`.
    Pipeline(PipelineParams),
    /// `bucket_script`, `bucket_selector`.
    BucketScript(BucketScriptParams),
    /// `weighted_avg`.
    WeightedAvg(WeightedAvgParams),
    /// `rare_terms`.
    RareTerms(RareTermsParams),
    /// `significant_terms`.
    SignificantTerms(SignificantTermsParams),
    /// `composite`.
    Composite(CompositeParams),
    /// `top_hits`.
    TopHits(TopHitsParams),
    /// `filter`.
    Filter(FilterParams),
    /// `filters`.
    Filters(FiltersParams),
}

impl TypedParams {
    /// The parameters `params` of `kind` aggregation `name`, in a `parent`
    /// aggregation (`None`: at the top level).
    fn parse(
        kind: AggKind,
        name: &str,
        params: &Value,
        parent: Option<AggKind>,
    ) -> Result<TypedParams> {
        Ok(match kind {
            AggKind::Percentiles => {
                TypedParams::Percentiles(PercentilesParams::parse(name, params)?)
            }
            AggKind::Cardinality => {
                TypedParams::Cardinality(CardinalityParams::parse(name, params)?)
            }
            AggKind::Terms => TypedParams::Terms(TermsParams::parse(name, params)?),
            AggKind::Histogram => TypedParams::Histogram(HistogramParams::parse(name, params)?),
            AggKind::WeightedAvg => {
                TypedParams::WeightedAvg(WeightedAvgParams::parse(name, params)?)
            }
            AggKind::RareTerms => TypedParams::RareTerms(RareTermsParams::parse(name, params)?),
            AggKind::SignificantTerms => {
                TypedParams::SignificantTerms(SignificantTermsParams::parse(name, params)?)
            }
            AggKind::DateHistogram => {
                TypedParams::DateHistogram(DateHistogramParams::parse_body(name, params)?)
            }
            AggKind::Composite => TypedParams::Composite(CompositeParams::parse(name, params)?),
            AggKind::TopHits => TypedParams::TopHits(TopHitsParams::parse(name, params)?),
            AggKind::Filter => TypedParams::Filter(FilterParams::parse(name, params)?),
            AggKind::Filters => TypedParams::Filters(FiltersParams::parse(name, params)?),
            k if BucketScriptParams::covers(k) => {
                TypedParams::BucketScript(BucketScriptParams::parse(k, name, params, parent)?)
            }
            k if PipelineParams::covers(k) => {
                TypedParams::Pipeline(PipelineParams::parse(k, name, params, parent)?)
            }
            k if MetricParams::covers(k) => {
                TypedParams::Metric(MetricParams::parse(k, name, params)?)
            }
            _ => TypedParams::Untyped,
        })
    }
}

impl TypedParams {
    /// The field of a typed kind's parameters (`None`: untyped, or no
    /// single field: a pipeline, a bucket script, a `weighted_avg`, a
    /// `composite`, a `top_hits`, a `filter`, a `filters`).
    pub fn field(&self) -> Option<&str> {
        match self {
            TypedParams::Untyped
            | TypedParams::Pipeline(_)
            | TypedParams::BucketScript(_)
            | TypedParams::WeightedAvg(_)
            | TypedParams::Composite(_)
            | TypedParams::TopHits(_)
            | TypedParams::Filter(_)
            | TypedParams::Filters(_) => None,
            TypedParams::Metric(m) => Some(&m.field),
            TypedParams::Percentiles(p) => Some(&p.field),
            TypedParams::Cardinality(c) => Some(&c.field),
            TypedParams::Terms(t) => Some(t.field()),
            TypedParams::Histogram(h) => Some(h.field()),
            TypedParams::DateHistogram(d) => Some(&d.field),
            TypedParams::RareTerms(r) => Some(&r.values.field),
            TypedParams::SignificantTerms(s) => Some(&s.values.field),
        }
    }
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
        let nodes = parse_level(&json, 1, None)?;
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
    obj.iter()
        .map(|(name, body)| {
            AggNode::parse(name, body, depth, parent)
                .map_err(|e| e.in_query(QueryStep::Key(name.clone())))
        })
        .collect()
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
        if PipelineParams::covers(kind) || BucketScriptParams::covers(kind) {
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

#[cfg(test)]
mod tests;
