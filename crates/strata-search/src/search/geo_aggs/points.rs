//! [`FieldPoints`]: one geo_point field's columns in the segment being
//! collected, and the points of the document (or block of documents) read
//! last, so that the aggregations reading the field share one read.

use tantivy::DocId;

use crate::mapping::geo::GeoPoint;
use crate::store::geo_columns::PointColumns;

/// One field's columns in a segment and the points of one document (or
/// of a block of documents).
pub(super) struct FieldPoints {
    pub(super) columns: Option<PointColumns>,
    /// The document `points` belong to (`None` before the first, and
    /// after a block).
    pub(super) doc: Option<DocId>,
    pub(super) points: Vec<GeoPoint>,
    /// The one point of each document of the block being collected
    /// (empty when the segment has no column for the field).
    pub(super) block_lat: Vec<f64>,
    pub(super) block_lon: Vec<f64>,
}

impl FieldPoints {
    /// A field read through `columns` (`None`: the segment has no point of it).
    pub(super) fn new(columns: Option<PointColumns>) -> FieldPoints {
        FieldPoints {
            columns,
            doc: None,
            points: Vec::new(),
            block_lat: Vec::new(),
            block_lon: Vec::new(),
        }
    }

    /// The `i`-th point of the block read.
    #[inline]
    pub(super) fn block_point(&self, i: usize) -> Option<GeoPoint> {
        Some(GeoPoint {
            lat: *self.block_lat.get(i)?,
            lon: *self.block_lon.get(i)?,
        })
    }

    /// Makes `points` those of `doc`, reading them unless already read.
    #[inline]
    pub(super) fn load(&mut self, doc: DocId) {
        if self.doc != Some(doc) {
            self.doc = Some(doc);
            self.points.clear();
            if let Some(columns) = &self.columns {
                self.points.extend(columns.points(doc));
            }
        }
    }
}
