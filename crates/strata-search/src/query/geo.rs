//! The geo queries' translation: `geo_bounding_box` (documents with a
//! point of a `geo_point` field inside a box; a box whose left edge is east
//! of its right edge crosses the date line) and `geo_distance` (within a
//! distance of a centre, measured `arc` or `plane`).
//!
//! tantivy has no geo query, so both scan the field's latitude and
//! longitude fast-field columns of each segment into a bitset (a box over
//! the whole world only asks which documents have a point).

use tantivy::query::{
    BitSetDocSet, ConstScorer, EmptyQuery, EnableScoring, Explanation, Query, Scorer, Weight,
};
use tantivy::{BitSet, DocId, Score, SegmentReader};

use super::ast::{GeoBoxAst, GeoDistanceAst};
use super::context::QueryContext;
use super::filter::{all_docs, explain_filter};
use super::geo_shape::{BoundingBox, DistanceType};
use super::params::with_boost;
use crate::error::{Result, SearchError};
use crate::mapping::geo::GeoPoint;
use crate::mapping::FieldType;
use crate::store::geo_columns::PointColumns;

/// Translates a `geo_bounding_box` node.
pub fn geo_bounding_box(ctx: &QueryContext<'_>, q: &GeoBoxAst<'_>) -> Result<Box<dyn Query>> {
    let area = Area::Box(q.bbox);
    geo_query(ctx, q.field, q.ignore_unmapped, area, q.boost)
}

/// Translates a `geo_distance` node.
pub fn geo_distance(ctx: &QueryContext<'_>, q: &GeoDistanceAst<'_>) -> Result<Box<dyn Query>> {
    let area = Area::Circle {
        centre: q.centre,
        distance: q.distance,
        kind: q.kind,
    };
    geo_query(ctx, q.field, q.ignore_unmapped, area, q.boost)
}

/// The query for points of `field` in `area`: nothing for an unmapped
/// field when `ignore_unmapped`, an error for any other field that is not
/// a `geo_point`.
fn geo_query(
    ctx: &QueryContext<'_>,
    field: &str,
    ignore_unmapped: bool,
    area: Area,
    boost: f64,
) -> Result<Box<dyn Query>> {
    match ctx.leaf(field) {
        Some(leaf) if leaf.ty == FieldType::GeoPoint => {}
        None if ignore_unmapped => return Ok(Box::new(EmptyQuery)),
        None => {
            return Err(SearchError::QueryShard(format!(
                "failed to find geo field [{field}]"
            )))
        }
        Some(_) => {
            return Err(SearchError::QueryShard(format!(
                "field [{field}] is not a geo_point field"
            )))
        }
    }
    let query = GeoQuery {
        field: field.to_string(),
        area,
    };
    Ok(with_boost(Box::new(query), boost))
}

/// Where a matching point lies.
#[derive(Debug, Clone, Copy)]
enum Area {
    /// Inside a box, edges included.
    Box(BoundingBox),
    /// Within `distance` metres (inclusive) of `centre`.
    Circle {
        centre: GeoPoint,
        distance: f64,
        kind: DistanceType,
    },
}

impl Area {
    fn contains(&self, p: GeoPoint) -> bool {
        match self {
            Area::Box(bbox) => bbox.contains(p),
            Area::Circle {
                centre,
                distance,
                kind,
            } => kind.metres(*centre, p) <= *distance,
        }
    }

    /// True when the area holds every valid point.
    fn covers_world(&self) -> bool {
        matches!(self, Area::Box(bbox) if bbox.covers_world())
    }

    /// The query's name, for explanations.
    fn name(&self) -> &'static str {
        match self {
            Area::Box(_) => "geo_bounding_box",
            Area::Circle { .. } => "geo_distance",
        }
    }
}

#[derive(Debug, Clone)]
struct GeoQuery {
    field: String,
    area: Area,
}

impl Query for GeoQuery {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for GeoQuery {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let mut matching = BitSet::with_max_value(reader.max_doc());
        let columns = PointColumns::open(reader, &self.field)
            .map_err(|e| tantivy::TantivyError::InternalError(e.to_string()))?;
        // Indexing stores only valid points, so an area over the whole
        // world matches exactly the documents with a point.
        let world = self.area.covers_world();
        if let Some(columns) = columns {
            if world && columns.one_per_doc() {
                return Ok(all_docs(reader, boost));
            }
            for doc in 0..reader.max_doc() {
                let hit = if world {
                    columns.has_point(doc)
                } else {
                    columns.points(doc).any(|p| self.area.contains(p))
                };
                if hit {
                    matching.insert(doc);
                }
            }
        }
        Ok(Box::new(ConstScorer::new(
            BitSetDocSet::from(matching),
            boost,
        )))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        explain_filter(self, reader, doc, self.area.name())
    }
}
