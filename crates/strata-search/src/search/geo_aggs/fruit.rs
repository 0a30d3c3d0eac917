//! Partial results of the geo aggregations ([`GeoFruit`]): what a segment
//! or shard found, merged exactly (sums and counts) so the result does not
//! depend on how documents are split, then rendered as the response JSON.

use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value};

use super::cell_of::key;
use super::plan::{GeoAgg, Grid};
use crate::mapping::geo::GeoPoint;

/// A running centroid: sums and the number of points.
#[derive(Debug, Clone, Copy, Default)]
pub struct Centroid {
    lat: f64,
    lon: f64,
    pub(super) count: u64,
}

impl Centroid {
    #[inline]
    pub(super) fn add(&mut self, p: GeoPoint) {
        self.lat += p.lat;
        self.lon += p.lon;
        self.count += 1;
    }

    fn merge(&mut self, other: &Centroid) {
        self.lat += other.lat;
        self.lon += other.lon;
        self.count += other.count;
    }

    fn to_json(self) -> Value {
        if self.count == 0 {
            return json!({"count": 0});
        }
        let n = self.count as f64;
        json!({"location": {"lat": self.lat / n, "lon": self.lon / n}, "count": self.count})
    }
}

/// A running `geo_bounds`: the extreme latitudes, and the extreme
/// longitudes east and west of Greenwich apart, so the box can be chosen
/// across the date line when narrower (Elasticsearch's `InternalGeoBounds`).
#[derive(Debug, Clone, Copy)]
pub struct Extent {
    top: f64,
    bottom: f64,
    pos_left: f64,
    pos_right: f64,
    neg_left: f64,
    neg_right: f64,
}

impl Default for Extent {
    fn default() -> Extent {
        Extent {
            top: f64::NEG_INFINITY,
            bottom: f64::INFINITY,
            pos_left: f64::INFINITY,
            pos_right: f64::NEG_INFINITY,
            neg_left: f64::INFINITY,
            neg_right: f64::NEG_INFINITY,
        }
    }
}

impl Extent {
    #[inline]
    pub(super) fn add(&mut self, p: GeoPoint) {
        self.top = self.top.max(p.lat);
        self.bottom = self.bottom.min(p.lat);
        if p.lon >= 0.0 {
            self.pos_left = self.pos_left.min(p.lon);
            self.pos_right = self.pos_right.max(p.lon);
        } else {
            self.neg_left = self.neg_left.min(p.lon);
            self.neg_right = self.neg_right.max(p.lon);
        }
    }

    fn merge(&mut self, o: &Extent) {
        self.top = self.top.max(o.top);
        self.bottom = self.bottom.min(o.bottom);
        self.pos_left = self.pos_left.min(o.pos_left);
        self.pos_right = self.pos_right.max(o.pos_right);
        self.neg_left = self.neg_left.min(o.neg_left);
        self.neg_right = self.neg_right.max(o.neg_right);
    }

    /// `{"bounds": {"top_left": .., "bottom_right": ..}}`, or `{}` without points.
    fn to_json(self, wrap_longitude: bool) -> Value {
        if self.top == f64::NEG_INFINITY {
            return json!({});
        }
        let (left, right) = if self.pos_left == f64::INFINITY {
            (self.neg_left, self.neg_right)
        } else if self.neg_left == f64::INFINITY {
            (self.pos_left, self.pos_right)
        } else {
            let unwrapped = self.pos_right - self.neg_left;
            let wrapped = (180.0 - self.pos_left) - (-180.0 - self.neg_right);
            if !wrap_longitude || unwrapped <= wrapped {
                (self.neg_left, self.pos_right)
            } else {
                (self.pos_left, self.neg_right)
            }
        };
        json!({"bounds": {
            "top_left": {"lat": self.top, "lon": left},
            "bottom_right": {"lat": self.bottom, "lon": right},
        }})
    }
}

/// One grid cell: documents, and one centroid per `geo_centroid`
/// sub-aggregation, in request order.
#[derive(Debug, Clone, Default)]
pub(super) struct Cell {
    pub(super) docs: u64,
    pub(super) centroids: Vec<Centroid>,
}

impl Cell {
    /// An empty cell for a grid with `subs` sub-aggregations.
    pub(super) fn new(subs: usize) -> Cell {
        Cell {
            docs: 0,
            centroids: vec![Centroid::default(); subs],
        }
    }
}

/// A grid's cells, keyed by their bits at the grid's precision (geohash
/// or tile bits, `cell_of`).
pub(super) type Cells = FxHashMap<u64, Cell>;

/// The partial result of one aggregation.
#[derive(Debug, Clone)]
pub(super) enum Partial {
    Centroid(Centroid),
    Bounds(Extent),
    Grid(Cells),
}

/// Partial results of all geo aggregations, in request order.
#[derive(Debug, Clone)]
pub struct GeoFruit(pub(super) Vec<Partial>);

impl GeoFruit {
    /// Adds another shard's partial results.
    pub fn merge(&mut self, other: GeoFruit) {
        for (mine, theirs) in self.0.iter_mut().zip(other.0) {
            match (mine, theirs) {
                (Partial::Centroid(a), Partial::Centroid(b)) => a.merge(&b),
                (Partial::Bounds(a), Partial::Bounds(b)) => a.merge(&b),
                (Partial::Grid(a), Partial::Grid(b)) => {
                    for (key, cell) in b {
                        let entry = a.entry(key).or_default();
                        entry.docs += cell.docs;
                        entry
                            .centroids
                            .resize(cell.centroids.len(), Centroid::default());
                        for (x, y) in entry.centroids.iter_mut().zip(&cell.centroids) {
                            x.merge(y);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The final results, keyed by aggregation name.
    pub fn into_json(self, aggs: &[(String, GeoAgg)]) -> Map<String, Value> {
        let mut out = Map::new();
        for ((name, agg), partial) in aggs.iter().zip(self.0) {
            let value = match (agg, partial) {
                (_, Partial::Centroid(c)) => c.to_json(),
                (GeoAgg::Bounds { wrap_longitude, .. }, Partial::Bounds(e)) => {
                    e.to_json(*wrap_longitude)
                }
                (
                    GeoAgg::Grid {
                        grid,
                        size,
                        centroids,
                        ..
                    },
                    Partial::Grid(cells),
                ) => grid_json(cells, grid, *size, centroids),
                _ => Value::Null,
            };
            out.insert(name.clone(), value);
        }
        out
    }
}

/// The `size` fullest cells, ties by descending bits (OpenSearch's and
/// Elasticsearch's order: a geohash's text, a tile's column then row);
/// keys are rendered only for them.
fn grid_json(cells: Cells, grid: &Grid, size: usize, subs: &[(String, String)]) -> Value {
    let mut cells: Vec<(u64, Cell)> = cells.into_iter().collect();
    cells.sort_unstable_by(|a, b| b.1.docs.cmp(&a.1.docs).then_with(|| b.0.cmp(&a.0)));
    let buckets: Vec<Value> = cells
        .into_iter()
        .take(size)
        .map(|(bits, cell)| {
            let mut bucket = json!({"key": key(grid, bits), "doc_count": cell.docs});
            for ((sub, _), c) in subs.iter().zip(cell.centroids) {
                bucket[sub] = c.to_json();
            }
            bucket
        })
        .collect();
    json!({ "buckets": buckets })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::agg_tree::GridSystem;

    #[test]
    fn bounds_wrap_the_date_line_when_narrower() {
        let extent = |points: &[(f64, f64)]| {
            let mut e = Extent::default();
            points
                .iter()
                .for_each(|&(lat, lon)| e.add(GeoPoint { lat, lon }));
            e
        };
        let corners = |v: Value| {
            let b = &v["bounds"];
            let n = |p: &str, k: &str| b[p][k].as_f64().unwrap();
            [
                n("top_left", "lat"),
                n("top_left", "lon"),
                n("bottom_right", "lat"),
                n("bottom_right", "lon"),
            ]
        };
        // OpenSearch 2.19.6 gave these corners for these points.
        let mut e = extent(&[(52.37, 4.91), (48.86, 2.33), (-40.1, -170.5), (60.3, 175.2)]);
        e.merge(&extent(&[(85.5, -179.99), (-33.87, 151.21)]));
        assert_eq!(corners(e.to_json(true)), [85.5, 2.33, -40.1, -170.5]);
        assert_eq!(corners(e.to_json(false)), [85.5, -179.99, -40.1, 175.2]);
        let west = extent(&[(1.0, -3.0), (2.0, -1.0)]);
        assert_eq!(corners(west.to_json(true)), [2.0, -3.0, 1.0, -1.0]);
        let east = extent(&[(1.0, 3.0)]);
        assert_eq!(corners(east.to_json(true)), [1.0, 3.0, 1.0, 3.0]);
        // Both sides of Greenwich, narrower without wrapping.
        let near = extent(&[(0.0, -1.0), (0.0, 1.0)]);
        assert_eq!(corners(near.to_json(true)), [0.0, -1.0, 0.0, 1.0]);
        assert_eq!(Extent::default().to_json(true), json!({}));
        let mut empty = Extent::default();
        empty.merge(&Extent::default());
        assert_eq!(empty.to_json(false), json!({}));
    }

    #[test]
    fn grid_buckets_sort_by_count_then_key_text_descending() {
        let agg = GeoAgg::Grid {
            field: "p".into(),
            grid: Grid {
                system: GridSystem::Geohash,
                precision: 1,
                bounds: None,
            },
            size: 3,
            centroids: vec![("c".into(), "p".into())],
        };
        let mut cells = Cells::default();
        // "b" (10), "9" (9), "z" (31), "0" (0): counts 2, 2, 5, 1.
        for (bits, docs) in [(10, 2), (9, 2), (31, 5), (0, 1)] {
            let mut cell = Cell::new(1);
            cell.docs = docs;
            cell.centroids[0].add(GeoPoint { lat: 1.0, lon: 2.0 });
            cells.insert(bits, cell);
        }
        let mut fruit = GeoFruit(vec![Partial::Grid(cells.clone())]);
        fruit.merge(GeoFruit(vec![Partial::Grid(cells)]));
        let out = fruit.into_json(&[("g".into(), agg)]);
        let buckets = out["g"]["buckets"].as_array().unwrap();
        let keys: Vec<(&str, u64)> = buckets
            .iter()
            .map(|b| (b["key"].as_str().unwrap(), b["doc_count"].as_u64().unwrap()))
            .collect();
        assert_eq!(keys, [("z", 10), ("b", 4), ("9", 4)]);
        assert_eq!(
            buckets[0]["c"],
            json!({"location": {"lat": 1.0, "lon": 2.0}, "count": 2})
        );
    }
}
