//! How `geo_point` values live in the shard schema: a point of the field
//! at `path` is two f64 values, `path.lat` and `path.lon`, in the typed
//! JSON field `f` (fast, hence columnar). The mapping knows only `path`, so
//! the two sub-paths stay out of `_mapping`; `_source` keeps the original.
//!
//! Invariant: a document's points are written lat and lon in the same
//! order, so the i-th latitude of a document pairs with its i-th
//! longitude, and only checked points are written (finite, in range). A
//! column whose values are all integral is stored as i64 by tantivy;
//! [`PointColumns`] reads either as f64.

use std::ops::Range;
use std::sync::Arc;

use tantivy::columnar::{Column, ColumnIndex, ColumnType, ColumnValues, NumericalType, RowId};
use tantivy::{DocId, SegmentReader};

use crate::error::Result;
use crate::mapping::geo::GeoPoint;
use crate::store::stored_values::StoredValues;
use crate::store::KEYWORDS;

/// The latitude sub-path of a geo_point field.
pub fn lat_path(path: &str) -> String {
    format!("{path}.lat")
}

/// The longitude sub-path of a geo_point field.
pub fn lon_path(path: &str) -> String {
    format!("{path}.lon")
}

/// How a document's value rows are found in the two columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rows {
    /// Every document has one point: its row in both columns is its id.
    Full,
    /// The columns have the same shape (as the invariant makes them: as
    /// many latitudes as longitudes per document), so the latitude
    /// column's rows serve the longitude column too.
    Shared,
    /// Anything else: each column's own rows, paired in order.
    Separate,
}

/// The latitude and longitude columns of one geo_point field in one segment.
pub struct PointColumns {
    lat: Column<f64>,
    lon: Column<f64>,
    rows: Rows,
}

impl PointColumns {
    /// Opens the columns of the field at `path`; `None` when the segment
    /// has no point for it.
    pub fn open(segment: &SegmentReader, path: &str) -> Result<Option<PointColumns>> {
        let lat = f64_column(segment, &lat_path(path))?;
        let lon = f64_column(segment, &lon_path(path))?;
        Ok(match (lat, lon) {
            (Some(lat), Some(lon)) => Some(PointColumns::new(lat, lon)),
            _ => None,
        })
    }

    fn new(lat: Column<f64>, lon: Column<f64>) -> PointColumns {
        let same_shape = lat.values.num_vals() == lon.values.num_vals()
            && match (&lat.index, &lon.index) {
                (ColumnIndex::Full, ColumnIndex::Full) => true,
                (ColumnIndex::Optional(a), ColumnIndex::Optional(b)) => {
                    a.num_docs() == b.num_docs()
                }
                (ColumnIndex::Multivalued(a), ColumnIndex::Multivalued(b)) => {
                    a.num_docs() == b.num_docs()
                }
                _ => false,
            };
        let rows = match (&lat.index, same_shape) {
            (ColumnIndex::Full, true) => Rows::Full,
            (_, true) => Rows::Shared,
            (_, false) => Rows::Separate,
        };
        PointColumns { lat, lon, rows }
    }

    /// The points of `doc`, in indexing order.
    #[inline]
    pub fn points(&self, doc: DocId) -> Points<'_> {
        let (lat, lon) = match self.rows {
            Rows::Full => (doc..doc + 1, doc..doc + 1),
            Rows::Shared => {
                let rows = self.lat.index.value_row_ids(doc);
                (rows.clone(), rows)
            }
            Rows::Separate => (
                self.lat.index.value_row_ids(doc),
                self.lon.index.value_row_ids(doc),
            ),
        };
        Points {
            columns: self,
            lat,
            lon,
        }
    }

    /// True when every document of the segment has exactly one point.
    pub fn one_per_doc(&self) -> bool {
        self.rows == Rows::Full
    }

    /// The one point of each of `docs` into `lat` and `lon` (resized to
    /// `docs.len()`), read a block at a time; only when
    /// [`PointColumns::one_per_doc`], where a document's row is its id.
    /// Returns false (and reads nothing) otherwise.
    pub fn read_block(&self, docs: &[DocId], lat: &mut Vec<f64>, lon: &mut Vec<f64>) -> bool {
        if self.rows != Rows::Full {
            return false;
        }
        lat.resize(docs.len(), 0.0);
        lon.resize(docs.len(), 0.0);
        self.lat.values.get_vals(docs, lat);
        self.lon.values.get_vals(docs, lon);
        true
    }

    /// True when `doc` has a point (cheaper than reading it).
    #[inline]
    pub fn has_point(&self, doc: DocId) -> bool {
        match self.rows {
            Rows::Full => true,
            Rows::Shared => self.lat.index.has_value(doc),
            Rows::Separate => self.lat.index.has_value(doc) && self.lon.index.has_value(doc),
        }
    }
}

/// The points of one document: latitude and longitude rows, paired.
pub struct Points<'a> {
    columns: &'a PointColumns,
    lat: Range<RowId>,
    lon: Range<RowId>,
}

impl Iterator for Points<'_> {
    type Item = GeoPoint;

    #[inline]
    fn next(&mut self) -> Option<GeoPoint> {
        let (lat, lon) = (self.lat.next()?, self.lon.next()?);
        Some(GeoPoint {
            lat: self.columns.lat.values.get_val(lat),
            lon: self.columns.lon.values.get_val(lon),
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.lat.len().min(self.lon.len());
        (n, Some(n))
    }
}

fn f64_column(segment: &SegmentReader, sub_path: &str) -> Result<Option<Column<f64>>> {
    let name = format!("{KEYWORDS}.{sub_path}");
    let open_error = |e| crate::error::SearchError::io(format!("open column {name}"), e);
    for handle in segment.fast_fields().dynamic_column_handles(&name)? {
        if handle.column_type() == ColumnType::F64 {
            // Read through the stored u64s (see `StoredValues`); integral
            // columns (stored as i64) take tantivy's coercion below.
            if let Some(stored) = handle.open_u64_lenient().map_err(open_error)? {
                let values: Arc<dyn ColumnValues<f64>> =
                    Arc::new(StoredValues::<f64>::new(stored.values));
                return Ok(Some(Column {
                    index: stored.index,
                    values,
                }));
            }
        }
        let column = handle.open().map_err(open_error)?;
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

#[cfg(test)]
pub(crate) mod tests {
    use tantivy::{Index, Searcher, TantivyDocument};

    use super::*;
    use crate::store::SchemaFields;

    /// A one-segment index of documents whose `f` field is each of `docs`.
    pub(crate) fn segment(docs: &[&str]) -> Searcher {
        let fields = SchemaFields::build();
        let index = Index::create_in_ram(fields.schema.clone());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for f in docs {
            let json = format!(r#"{{"{KEYWORDS}": {f}}}"#);
            let doc = TantivyDocument::parse_json(&fields.schema, &json).unwrap();
            writer.add_document(doc).unwrap();
        }
        writer.commit().unwrap();
        index.reader().unwrap().searcher()
    }

    /// Each document's points as (lat, lon), whether it has one, and the rows layout.
    type Read = (Vec<Vec<(f64, f64)>>, Vec<bool>, Rows);

    fn read(docs: &[&str]) -> Read {
        let searcher = segment(docs);
        let reader = searcher.segment_reader(0);
        let cols = PointColumns::open(reader, "p").unwrap().unwrap();
        let points = (0..reader.max_doc())
            .map(|d| cols.points(d).map(|p| (p.lat, p.lon)).collect())
            .collect();
        let has = (0..reader.max_doc()).map(|d| cols.has_point(d)).collect();
        (points, has, cols.rows)
    }

    #[test]
    fn single_valued_columns_are_read_by_doc_id() {
        let (points, has, rows) = read(&[
            r#"{"p": {"lat": 1.5, "lon": 2.5}}"#,
            r#"{"p": {"lat": -3, "lon": 4}, "n": 1}"#,
        ]);
        assert_eq!(rows, Rows::Full);
        assert_eq!(points, [vec![(1.5, 2.5)], vec![(-3.0, 4.0)]]);
        assert_eq!(has, [true, true]);
    }

    #[test]
    fn blocks_are_read_only_when_every_document_has_one_point() {
        let searcher = segment(&[
            r#"{"p": {"lat": 1.5, "lon": 2.5}}"#,
            r#"{"p": {"lat": -3, "lon": 4}}"#,
            r#"{"p": {"lat": 5.25, "lon": -6}}"#,
        ]);
        let cols = PointColumns::open(searcher.segment_reader(0), "p")
            .unwrap()
            .unwrap();
        let (mut lat, mut lon) = (vec![9.0; 7], Vec::new());
        assert!(cols.read_block(&[0, 2], &mut lat, &mut lon));
        assert_eq!((lat, lon), (vec![1.5, 5.25], vec![2.5, -6.0]));

        let searcher = segment(&[r#"{"p": {"lat": 1.5, "lon": 2.5}}"#, r#"{"n": 1}"#]);
        let cols = PointColumns::open(searcher.segment_reader(0), "p")
            .unwrap()
            .unwrap();
        let (mut lat, mut lon) = (Vec::new(), Vec::new());
        assert!(!cols.read_block(&[0, 1], &mut lat, &mut lon));
        assert!(lat.is_empty() && lon.is_empty());
    }

    #[test]
    fn optional_and_multi_valued_columns_share_rows() {
        let (points, has, rows) = read(&[
            r#"{"p": {"lat": 1.5, "lon": 2.5}}"#,
            r#"{"n": 1}"#,
            r#"{"p": {"lat": 7, "lon": 8}}"#,
        ]);
        assert_eq!(rows, Rows::Shared);
        assert_eq!(points, [vec![(1.5, 2.5)], vec![], vec![(7.0, 8.0)]]);
        assert_eq!(has, [true, false, true]);
        let (points, has, rows) = read(&[
            r#"{"p": {"lat": [1.5, 2.5], "lon": [3.5, 4.5]}}"#,
            r#"{"n": 1}"#,
            r#"{"p": {"lat": 7, "lon": 8.25}}"#,
        ]);
        assert_eq!(rows, Rows::Shared);
        assert_eq!(
            points,
            [vec![(1.5, 3.5), (2.5, 4.5)], vec![], vec![(7.0, 8.25)]]
        );
        assert_eq!(has, [true, false, true]);
    }

    #[test]
    fn unmatched_columns_pair_values_in_order() {
        // Not something indexing writes; read safely all the same.
        let (points, has, rows) = read(&[
            r#"{"p": {"lat": 1.5}}"#,
            r#"{"p": {"lat": [2.5, 3.5], "lon": 4.5}}"#,
            r#"{"p": {"lon": 5.5}}"#,
        ]);
        assert_eq!(rows, Rows::Separate);
        assert_eq!(points, [vec![], vec![(2.5, 4.5)], vec![]]);
        assert_eq!(has, [false, true, false]);
    }
}
