//! The tantivy collector of a request's geo aggregations.
//!
//! Per segment it opens each distinct geo_point field once, and reads a
//! document's points of a field at most once however many aggregations use
//! it (a grid and its `geo_centroid` on the same field, say). A grid keys
//! its cells by geohash or tile bits ([`CellOf`], in a [`CellTable`]) and
//! adds a document to each of its cells once. Nothing is allocated per document:
//! the point and cell buffers are reused, and a cell allocates only when
//! first seen. Where every field holds one point per document in a
//! segment (the usual case), points are read a block of documents at a
//! time, in one tight loop per aggregation.

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::cell_of::{CellOf, OUTSIDE};
use super::cell_table::CellTable;
use super::fruit::{Cells, Centroid, Extent, GeoFruit, Partial};
use super::plan::{GeoAgg, Grid};
use super::points::FieldPoints;
use crate::mapping::geo::GeoPoint;
use crate::store::geo_columns::PointColumns;

/// One aggregation, its fields given as indexes into [`GeoCollector::fields`].
#[derive(Debug, Clone)]
enum Plan {
    Centroid {
        field: usize,
    },
    Bounds {
        field: usize,
    },
    Grid {
        field: usize,
        grid: Grid,
        subs: Vec<usize>,
    },
}

/// The collector of a request's geo aggregations.
pub struct GeoCollector {
    /// The distinct fields the aggregations read.
    fields: Vec<String>,
    /// The aggregations, in request order.
    plan: Vec<Plan>,
}

impl GeoCollector {
    /// A collector for `aggs`.
    pub fn new(aggs: Vec<(String, GeoAgg)>) -> GeoCollector {
        let mut fields: Vec<String> = Vec::new();
        let mut slot = |name: &str| match fields.iter().position(|f| f == name) {
            Some(i) => i,
            None => {
                fields.push(name.to_string());
                fields.len() - 1
            }
        };
        let plan = aggs
            .iter()
            .map(|(_, agg)| match agg {
                GeoAgg::Centroid { field } => Plan::Centroid { field: slot(field) },
                GeoAgg::Bounds { field, .. } => Plan::Bounds { field: slot(field) },
                GeoAgg::Grid {
                    field,
                    grid,
                    centroids,
                    ..
                } => Plan::Grid {
                    field: slot(field),
                    grid: *grid,
                    subs: centroids.iter().map(|(_, f)| slot(f)).collect(),
                },
            })
            .collect();
        GeoCollector { fields, plan }
    }

    /// The result of no documents.
    pub fn empty(&self) -> GeoFruit {
        GeoFruit(
            self.plan
                .iter()
                .map(|p| match p {
                    Plan::Centroid { .. } => Partial::Centroid(Centroid::default()),
                    Plan::Bounds { .. } => Partial::Bounds(Extent::default()),
                    Plan::Grid { .. } => Partial::Grid(Cells::default()),
                })
                .collect(),
        )
    }
}

/// Per-segment state of one aggregation.
enum SegmentAgg {
    Centroid {
        field: usize,
        centroid: Centroid,
    },
    Bounds {
        field: usize,
        extent: Extent,
    },
    Grid {
        field: usize,
        /// Finds cells at the grid's precision, inside its bounds.
        finder: CellOf,
        subs: Vec<usize>,
        cells: CellTable,
    },
}

/// [`GeoCollector`]'s per-segment part.
pub struct GeoSegmentCollector {
    fields: Vec<FieldPoints>,
    aggs: Vec<SegmentAgg>,
    /// A document's cells when it has several points, or a block's
    /// cells (one point per document).
    scratch: Vec<u64>,
}

impl Collector for GeoCollector {
    type Fruit = GeoFruit;
    type Child = GeoSegmentCollector;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<GeoSegmentCollector> {
        let fields = self
            .fields
            .iter()
            .map(|f| {
                PointColumns::open(segment, f)
                    .map(FieldPoints::new)
                    .map_err(|e| tantivy::TantivyError::InternalError(e.to_string()))
            })
            .collect::<tantivy::Result<_>>()?;
        let aggs = self
            .plan
            .iter()
            .map(|p| match p {
                Plan::Centroid { field } => SegmentAgg::Centroid {
                    field: *field,
                    centroid: Centroid::default(),
                },
                Plan::Bounds { field } => SegmentAgg::Bounds {
                    field: *field,
                    extent: Extent::default(),
                },
                Plan::Grid { field, grid, subs } => SegmentAgg::Grid {
                    field: *field,
                    finder: CellOf::new(grid),
                    subs: subs.clone(),
                    cells: CellTable::new(grid.key_bits(), subs.len()),
                },
            })
            .collect();
        Ok(GeoSegmentCollector {
            fields,
            aggs,
            scratch: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<GeoFruit>) -> tantivy::Result<GeoFruit> {
        let mut out = self.empty();
        for f in fruits {
            out.merge(f);
        }
        Ok(out)
    }
}

impl SegmentCollector for GeoSegmentCollector {
    type Fruit = GeoFruit;

    fn collect(&mut self, doc: DocId, _score: Score) {
        let GeoSegmentCollector {
            fields,
            aggs,
            scratch,
        } = self;
        for agg in aggs.iter_mut() {
            match agg {
                SegmentAgg::Centroid { field, centroid } => {
                    let f = &mut fields[*field];
                    f.load(doc);
                    f.points.iter().for_each(|p| centroid.add(*p));
                }
                SegmentAgg::Bounds { field, extent } => {
                    let f = &mut fields[*field];
                    f.load(doc);
                    f.points.iter().for_each(|p| extent.add(*p));
                }
                SegmentAgg::Grid {
                    field,
                    finder,
                    subs,
                    cells,
                } => {
                    fields[*field].load(doc);
                    if fields[*field].points.is_empty() {
                        continue;
                    }
                    for sub in subs.iter() {
                        fields[*sub].load(doc);
                    }
                    let points = &fields[*field].points;
                    add_to_grid(cells, finder, points, subs, fields, scratch);
                }
            }
        }
    }

    fn collect_block(&mut self, docs: &[DocId]) {
        if !self.read_block(docs) {
            docs.iter().for_each(|&doc| self.collect(doc, 0.0));
            return;
        }
        let GeoSegmentCollector {
            fields,
            aggs,
            scratch,
        } = self;
        for agg in aggs.iter_mut() {
            match agg {
                SegmentAgg::Centroid { field, centroid } => {
                    let f = &fields[*field];
                    for (&lat, &lon) in f.block_lat.iter().zip(&f.block_lon) {
                        centroid.add(GeoPoint { lat, lon });
                    }
                }
                SegmentAgg::Bounds { field, extent } => {
                    let f = &fields[*field];
                    for (&lat, &lon) in f.block_lat.iter().zip(&f.block_lon) {
                        extent.add(GeoPoint { lat, lon });
                    }
                }
                SegmentAgg::Grid {
                    field,
                    finder,
                    subs,
                    cells,
                } => {
                    let f = &fields[*field];
                    finder.cells_of(&f.block_lat, &f.block_lon, scratch);
                    let points = f.block_lat.iter().zip(&f.block_lon).zip(scratch.iter());
                    if subs.iter().all(|sub| sub == field) {
                        // Centroids of the grid's own points (Kibana's map).
                        cells.add_own_points(scratch, &f.block_lat, &f.block_lon);
                        continue;
                    }
                    for (i, (_, &bits)) in points.enumerate() {
                        if bits == OUTSIDE {
                            continue;
                        }
                        let (docs, centroids) = cells.cell_mut(bits);
                        *docs += 1;
                        for (sub, centroid) in subs.iter().zip(centroids.iter_mut()) {
                            if let Some(p) = fields[*sub].block_point(i) {
                                centroid.add(p);
                            }
                        }
                    }
                }
            }
        }
    }

    fn harvest(self) -> GeoFruit {
        GeoFruit(
            self.aggs
                .into_iter()
                .map(|agg| match agg {
                    SegmentAgg::Centroid { centroid, .. } => Partial::Centroid(centroid),
                    SegmentAgg::Bounds { extent, .. } => Partial::Bounds(extent),
                    SegmentAgg::Grid { cells, .. } => Partial::Grid(cells.into_cells()),
                })
                .collect(),
        )
    }
}

impl GeoSegmentCollector {
    /// Reads every field's points of `docs` a block at a time, when each
    /// field has one point per document in this segment (or no column);
    /// false, reading nothing, otherwise.
    fn read_block(&mut self, docs: &[DocId]) -> bool {
        let one_each = self
            .fields
            .iter()
            .all(|f| f.columns.as_ref().is_none_or(PointColumns::one_per_doc));
        if !one_each {
            return false;
        }
        for f in &mut self.fields {
            // The per-document cache no longer holds the last document read.
            f.doc = None;
            match &f.columns {
                Some(columns) => {
                    columns.read_block(docs, &mut f.block_lat, &mut f.block_lon);
                }
                None => {
                    f.block_lat.clear();
                    f.block_lon.clear();
                }
            }
        }
        true
    }
}

/// Counts a document with `points` once in each cell they fall in (inside
/// the grid's bounds); each of those cells' sub-centroids takes all the
/// points its field holds in `fields` (loaded for this document).
fn add_to_grid(
    cells: &mut CellTable,
    finder: &CellOf,
    points: &[GeoPoint],
    subs: &[usize],
    fields: &[FieldPoints],
    scratch: &mut Vec<u64>,
) {
    if let [p] = points {
        let bits = finder.bits(*p);
        if bits != OUTSIDE {
            add_to_cell(cells, bits, subs, fields);
        }
        return;
    }
    scratch.clear();
    scratch.extend(points.iter().map(|p| finder.bits(*p)));
    scratch.sort_unstable();
    scratch.dedup();
    for &bits in scratch.iter().filter(|&&b| b != OUTSIDE) {
        add_to_cell(cells, bits, subs, fields);
    }
}

#[inline]
fn add_to_cell(cells: &mut CellTable, bits: u64, subs: &[usize], fields: &[FieldPoints]) {
    let (docs, centroids) = cells.cell_mut(bits);
    *docs += 1;
    for (sub, centroid) in subs.iter().zip(centroids.iter_mut()) {
        fields[*sub].points.iter().for_each(|p| centroid.add(*p));
    }
}

#[cfg(test)]
#[path = "collector_tests.rs"]
mod tests;
