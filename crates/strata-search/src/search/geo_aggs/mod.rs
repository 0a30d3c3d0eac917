//! Geo aggregations, which tantivy does not have: `geo_centroid` and
//! `geohash_grid` (optionally with `geo_centroid` sub-aggregations, as
//! Kibana's maps send), computed by a tantivy collector over the
//! latitude/longitude fast-field columns (`store::geo_columns`).
//! This module parses and checks them; `collector` computes them and
//! `fruit` holds, merges and renders the partial results.
//!
//! They are accepted at the top level of `aggs` only; [`split`] takes them
//! out of the request before the rest goes to tantivy's aggregations.
//! Shard results merge exactly (sums and counts), so the final result does
//! not depend on the shard count.

mod cell_table;
mod collector;
mod fruit;
mod plan;

pub use collector::GeoCollector;
pub use fruit::GeoFruit;
pub use plan::{GeoAgg, GeoAggs};

use serde_json::Value;

use super::agg_tree::{AggKind, AggNode};

use crate::error::{Result, SearchError};
use crate::mapping::{FieldType, Mappings};

/// Takes the top-level geo aggregations out of `aggs`; returns them and the rest.
pub fn split(aggs: &[AggNode]) -> Result<(GeoAggs, Vec<AggNode>)> {
    let mut geo = Vec::new();
    let mut rest = Vec::new();
    for node in aggs {
        match parse(node)? {
            Some(agg) => geo.push((node.name.clone(), agg)),
            None => rest.push(node.clone()),
        }
    }
    Ok((geo, rest))
}

/// Checks the geo aggregation `node` as [`split`] would, for one found
/// below the top level.
pub fn check(node: &AggNode) -> Result<()> {
    parse(node).map(|_| ())
}

fn parse(node: &AggNode) -> Result<Option<GeoAgg>> {
    let (name, params) = (&node.name, &node.body);
    match node.kind {
        AggKind::GeoCentroid => {
            if !node.subs.is_empty() {
                return Err(SearchError::illegal(format!(
                    "Aggregator [{name}] of type [geo_centroid] cannot accept sub-aggregations"
                )));
            }
            let field = field_param(name, "geo_centroid", params)?;
            return Ok(Some(GeoAgg::Centroid { field }));
        }
        AggKind::GeohashGrid => {}
        _ => return Ok(None),
    }
    let field = field_param(name, "geohash_grid", params)?;
    let mut precision = 5;
    let mut size = 10_000;
    for (k, v) in params.as_object().into_iter().flatten() {
        match k.as_str() {
            "field" | "shard_size" => {}
            "precision" => {
                let p = v
                    .as_u64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
                    .ok_or_else(|| {
                        SearchError::illegal(format!(
                            "[geohash_grid] precision [{v}] of [{name}] must be an integer 1..12 (distances are not supported)"
                        ))
                    })?;
                if !(1..=12).contains(&p) {
                    return Err(SearchError::illegal(format!(
                        "Invalid geohash aggregation precision of {p}. Must be between 1 and 12."
                    )));
                }
                precision = p as usize;
            }
            "size" => {
                size = v
                    .as_u64()
                    .filter(|n| *n > 0)
                    .map(|n| n as usize)
                    .ok_or_else(|| {
                        SearchError::illegal(format!(
                            "[size] must be greater than 0. Found [{v}] in [{name}]"
                        ))
                    })?
            }
            other => {
                return Err(SearchError::parsing(format!(
                    "[geohash_grid] unknown field [{other}]"
                )))
            }
        }
    }
    let mut centroids = Vec::new();
    for sub in &node.subs {
        let sub_name = &sub.name;
        if sub.kind != AggKind::GeoCentroid || !sub.subs.is_empty() {
            return Err(SearchError::illegal(format!(
                "sub-aggregation [{sub_name}] of [geohash_grid] [{name}]: only geo_centroid is supported there"
            )));
        }
        centroids.push((
            sub_name.clone(),
            field_param(sub_name, "geo_centroid", &sub.body)?,
        ));
    }
    Ok(Some(GeoAgg::Grid {
        field,
        precision,
        size,
        centroids,
    }))
}

fn field_param(name: &str, kind: &str, params: &Value) -> Result<String> {
    if let Some(k) = params.as_object().and_then(|o| {
        o.keys()
            .find(|k| kind == "geo_centroid" && k.as_str() != "field")
    }) {
        return Err(SearchError::parsing(format!(
            "[{kind}] unknown field [{k}]"
        )));
    }
    params
        .get("field")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| {
            SearchError::illegal(format!(
                "Required one of fields [field, script], but none were specified (aggregation [{name}])"
            ))
        })
}

/// Checks the fields against an index's mapping (unmapped fields give empty results).
pub fn validate(aggs: &[(String, GeoAgg)], mappings: &Mappings) -> Result<()> {
    let check = |agg: &str, kind: &str, field: &str| match mappings.leaf(field) {
        Some(leaf) if leaf.ty != FieldType::GeoPoint => Err(SearchError::illegal(format!(
            "Field [{field}] of type [{}] is not supported for aggregation [{kind}] ({agg})",
            leaf.ty.name()
        ))),
        _ => Ok(()),
    };
    for (name, agg) in aggs {
        match agg {
            GeoAgg::Centroid { field } => check(name, "geo_centroid", field)?,
            GeoAgg::Grid {
                field, centroids, ..
            } => {
                check(name, "geohash_grid", field)?;
                for (sub, f) in centroids {
                    check(sub, "geo_centroid", f)?;
                }
            }
        }
    }
    Ok(())
}
