//! The `filter` aggregation at the top level of `aggs`: `{"filter":
//! {<query>}, "aggs": {...}}` answers `{"doc_count": N, <sub-aggregations>}`
//! over the documents that match both the search's query and the filter;
//! and `global`, the same over every document of the indices, whatever
//! the query.
//!
//! Each one is computed by its own search pass with the query
//! `bool { must: [search query], filter: [filter query] }`, size 0 and the
//! sub-aggregations as that pass's top-level `aggs`, so every aggregation
//! the engine supports at the top level (tantivy's and the geo ones, and
//! `filter` itself) works beneath it. [`split`] takes them out of the
//! request, with the query the tree's parse checked and parsed
//! ([`FilterParams`]); `filter` below another aggregation goes to
//! tantivy's filter aggregation instead (`agg_filters`), where geo
//! sub-aggregations are not available. `random_sampler` (top level only)
//! is one too, its filter the sample (`random_sampler`), and so are
//! `sampler` and `diversified_sampler` at the top level, their filter
//! each shard's best documents, found first (`best_docs`).

use serde_json::{json, Map, Value};

use super::agg_tree::sampler::SamplerParams;
use super::agg_tree::{AggNode, AggTree, FilterParams, TypedParams};
use super::random_sampler::Sampler;
use crate::error::Result;
use crate::query::ParsedQuery;

/// One top-level `filter` aggregation.
#[derive(Debug, Clone)]
pub struct FilterAgg {
    /// Its name in `aggs`.
    pub name: String,
    /// The filter query, as the tree parsed it.
    pub filter: ParsedQuery,
    /// Sub-aggregations (`None` when there are none).
    pub aggs: Option<AggTree>,
    /// `global`: `filter` is `match_all`, and the search's query is ignored.
    pub global: bool,
    /// `random_sampler`: the sample is the filter (`filter` unused), and
    /// the reply its own.
    pub sampler: Option<Sampler>,
    /// `sampler`, `diversified_sampler`: the filter is the best documents
    /// of each shard, which a search finds before the pass (`filter`
    /// unused; `query` is not this aggregation's).
    pub best: Option<SamplerParams>,
}

impl FilterAgg {
    /// The query of this aggregation's pass under the search query `query`.
    pub fn query(&self, query: &ParsedQuery) -> ParsedQuery {
        if let Some(sampler) = &self.sampler {
            return sampler.query(query);
        }
        if self.global {
            return self.filter.clone();
        }
        query.filtered(std::slice::from_ref(&self.filter))
    }

    /// The aggregation's result from its pass's `hits.total.value` and
    /// `aggregations`.
    pub fn result(&self, doc_count: u64, aggregations: Option<&Value>) -> Result<Value> {
        if let Some(sampler) = &self.sampler {
            return sampler.result(doc_count, aggregations);
        }
        let mut out = Map::new();
        out.insert("doc_count".into(), json!(doc_count));
        if let Some(Value::Object(subs)) = aggregations {
            out.extend(subs.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        Ok(Value::Object(out))
    }
}

/// Takes the top-level `filter` aggregations out of `aggs`; returns them and
/// the rest (`None` when nothing is left).
pub fn split(aggs: &AggTree) -> (Vec<FilterAgg>, Option<AggTree>) {
    let mut filters = Vec::new();
    let mut rest = Vec::new();
    for node in aggs.nodes() {
        match of_node(node) {
            Some(f) => filters.push(f),
            None => rest.push(node.clone()),
        }
    }
    (filters, AggTree::from_nodes(rest))
}

/// `node` as a top-level `filter` aggregation; the tree's parse has checked
/// its structure (one kind, well-formed sub-aggregations) and parsed its
/// query ([`FilterParams`]).
fn of_node(node: &AggNode) -> Option<FilterAgg> {
    let best = match &node.typed {
        TypedParams::Sampler(p) => Some(p.clone()),
        _ => None,
    };
    let (filter, global, sampler) = match &node.typed {
        TypedParams::Filter(FilterParams { query }) => (query.clone(), false, None),
        TypedParams::Global => (ParsedQuery::match_all(), true, None),
        TypedParams::Sampler(_) => (ParsedQuery::match_all(), false, None),
        TypedParams::RandomSampler(p) => (
            ParsedQuery::match_all(),
            false,
            Some(Sampler::new(p, &node.subs)?),
        ),
        _ => return None,
    };
    // A sampler's pass leaves its parent pipelines to it.
    let subs = sampler.as_ref().map_or(&node.subs, |s| &s.pass_subs);
    Some(FilterAgg {
        name: node.name.clone(),
        filter,
        aggs: AggTree::from_nodes(subs.clone()),
        global,
        sampler,
        best,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_checks() {
        let aggs = json!({
            "f": {"filter": {"term": {"a": 1}}, "aggs": {"t": {"terms": {"field": "b"}}}},
            "x": {"terms": {"field": "b"}}
        });
        let (filters, rest) = split(&AggTree::parse(aggs).unwrap());
        assert_eq!(filters.len(), 1);
        assert_eq!(filters[0].name, "f");
        assert_eq!(filters[0].aggs.as_ref().unwrap().nodes()[0].name, "t");
        assert_eq!(filters[0].filter.json(), &json!({"term": {"a": 1}}));
        assert_eq!(rest.unwrap().nodes()[0].name, "x");
        // The tree's parse refuses an empty filter before any split.
        assert!(AggTree::parse(json!({"f": {"filter": {}}})).is_err());
        let r = filters[0]
            .result(3, Some(&json!({"t": {"value": 1}})))
            .unwrap();
        assert_eq!(r, json!({"doc_count": 3, "t": {"value": 1}}));
    }

    #[test]
    fn a_global_pass_ignores_the_query() {
        let aggs = json!({"all": {"global": {}, "aggs": {"t": {"terms": {"field": "b"}}}}});
        let (filters, rest) = split(&AggTree::parse(aggs).unwrap());
        assert!(rest.is_none() && filters[0].global);
        let query = ParsedQuery::parse(json!({"term": {"a": 1}})).unwrap();
        assert_eq!(
            filters[0].query(&query).json(),
            ParsedQuery::match_all().json()
        );
        let refused = |aggs| AggTree::parse(aggs).unwrap_err().to_string();
        assert_eq!(
            refused(json!({"x": {"terms": {"field": "b"}, "aggs": {"all": {"global": {}}}}})),
            "A [terms] aggregation cannot have a global sub-aggregation [all]. Global aggregations can only be defined as top level aggregations"
        );
        assert_eq!(
            refused(json!({"all": {"global": {"a": 1}}})),
            "[global] unknown field [a]"
        );
    }
}
