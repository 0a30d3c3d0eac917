//! Geo aggregations, which tantivy does not have: `geo_centroid`,
//! `geo_bounds`, and the grids `geohash_grid` and `geotile_grid`
//! (optionally with `geo_centroid` sub-aggregations, as Kibana's maps
//! send), computed by a tantivy collector over the latitude/longitude
//! fast-field columns (`store::geo_columns`). Their parameters were typed
//! with the request ([`GeoCentroidParams`], [`GeoBoundsParams`],
//! [`GeoGridParams`]); this module gathers them (and a grid's
//! `geo_centroid` sub-aggregations) into [`GeoAgg`]s and checks their
//! fields against the mapping; `collector` computes them (a grid's cells
//! from `cell_of`, counted in a `cell_table`) and `fruit` holds, merges
//! and renders the partial results.
//!
//! They are accepted at the top level of `aggs` only; [`split`] takes them
//! out of the request before the rest goes to tantivy's aggregations.
//! Shard results merge exactly (sums and counts), so the final result does
//! not depend on the shard count.

mod cell_of;
mod cell_table;
mod collector;
mod fruit;
mod plan;
mod points;

pub use collector::GeoCollector;
pub use fruit::GeoFruit;
use plan::Grid;
pub use plan::{GeoAgg, GeoAggs};

use super::agg_tree::{AggKind, AggNode, TypedParams};
#[cfg(doc)]
use super::agg_tree::{GeoBoundsParams, GeoCentroidParams, GeoGridParams};

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

/// The geo aggregation `node` (`None`: it is not one), from its
/// parameters as the tree's parse typed them; a grid's sub-aggregations
/// must be `geo_centroid`s.
fn parse(node: &AggNode) -> Result<Option<GeoAgg>> {
    let name = &node.name;
    let grid = match &node.typed {
        TypedParams::GeoCentroid(c) => {
            if !node.subs.is_empty() {
                return Err(SearchError::illegal(format!(
                    "Aggregator [{name}] of type [geo_centroid] cannot accept sub-aggregations"
                )));
            }
            return Ok(Some(GeoAgg::Centroid {
                field: c.field.clone(),
            }));
        }
        TypedParams::GeoBounds(b) => {
            if !node.subs.is_empty() {
                return Err(SearchError::illegal(format!(
                    "Aggregator [{name}] of type [geo_bounds] cannot accept sub-aggregations"
                )));
            }
            return Ok(Some(GeoAgg::Bounds {
                field: b.field.clone(),
                wrap_longitude: b.wrap_longitude,
            }));
        }
        TypedParams::GeoGrid(g) => g,
        _ if matches!(
            node.kind,
            AggKind::GeoCentroid | AggKind::GeoBounds | AggKind::GeohashGrid | AggKind::GeotileGrid
        ) =>
        {
            return Err(SearchError::illegal(format!(
                "[{}] aggregation [{name}] was not parsed",
                node.kind.name()
            )))
        }
        _ => return Ok(None),
    };
    let mut centroids = Vec::new();
    for sub in &node.subs {
        let sub_name = &sub.name;
        match &sub.typed {
            TypedParams::GeoCentroid(c) if sub.subs.is_empty() => {
                centroids.push((sub_name.clone(), c.field.clone()))
            }
            _ => {
                return Err(SearchError::illegal(format!(
                    "sub-aggregation [{sub_name}] of [{}] [{name}]: only geo_centroid is supported there",
                    grid.system.name()
                )))
            }
        }
    }
    Ok(Some(GeoAgg::Grid {
        field: grid.field.clone(),
        grid: Grid {
            system: grid.system,
            precision: grid.precision,
            bounds: grid.bounds,
        },
        size: grid.size,
        centroids,
    }))
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
            GeoAgg::Bounds { field, .. } => check(name, "geo_bounds", field)?,
            GeoAgg::Grid {
                field,
                grid,
                centroids,
                ..
            } => {
                check(name, grid.system.name(), field)?;
                for (sub, f) in centroids {
                    check(sub, "geo_centroid", f)?;
                }
            }
        }
    }
    Ok(())
}
