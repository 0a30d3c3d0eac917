//! How `geo_point` values live in the shard schema: a point of the field
//! at `path` is two f64 values, `path.lat` and `path.lon`, in the typed
//! JSON field `f` (fast, hence columnar). The mapping knows only `path`, so
//! the two sub-paths stay out of `_mapping`; `_source` keeps the original.
//!
//! Invariant: a document's points are written lat and lon in the same
//! order, so the i-th latitude of a document pairs with its i-th
//! longitude. A column whose values are all integral is stored as i64 by
//! tantivy; [`PointColumns`] reads either as f64.

use tantivy::columnar::{Column, NumericalType};
use tantivy::{DocId, SegmentReader};

use crate::error::Result;
use crate::mapping::geo::GeoPoint;
use crate::store::KEYWORDS;

/// The latitude sub-path of a geo_point field.
pub fn lat_path(path: &str) -> String {
    format!("{path}.lat")
}

/// The longitude sub-path of a geo_point field.
pub fn lon_path(path: &str) -> String {
    format!("{path}.lon")
}

/// The latitude and longitude columns of one geo_point field in one segment.
pub struct PointColumns {
    lat: Column<f64>,
    lon: Column<f64>,
}

impl PointColumns {
    /// Opens the columns of the field at `path`; `None` when the segment
    /// has no point for it.
    pub fn open(segment: &SegmentReader, path: &str) -> Result<Option<PointColumns>> {
        let lat = f64_column(segment, &lat_path(path))?;
        let lon = f64_column(segment, &lon_path(path))?;
        Ok(match (lat, lon) {
            (Some(lat), Some(lon)) => Some(PointColumns { lat, lon }),
            _ => None,
        })
    }

    /// The points of `doc`, in indexing order.
    pub fn points(&self, doc: DocId) -> impl Iterator<Item = GeoPoint> + '_ {
        self.lat
            .values_for_doc(doc)
            .zip(self.lon.values_for_doc(doc))
            .map(|(lat, lon)| GeoPoint { lat, lon })
    }
}

fn f64_column(segment: &SegmentReader, sub_path: &str) -> Result<Option<Column<f64>>> {
    let name = format!("{KEYWORDS}.{sub_path}");
    for handle in segment.fast_fields().dynamic_column_handles(&name)? {
        let column = handle
            .open()
            .map_err(|e| crate::error::SearchError::io(format!("open column {name}"), e))?;
        if !column.is_numerical() {
            continue;
        }
        if let Some(col) = column
            .coerce_numerical(NumericalType::F64)
            .and_then(|c| c.into())
        {
            return Ok(Some(col));
        }
    }
    Ok(None)
}
