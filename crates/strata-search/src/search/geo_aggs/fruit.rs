//! Partial results of the geo aggregations ([`GeoFruit`]): what a segment
//! or shard found, merged exactly (sums and counts) so the result does not
//! depend on how documents are split, then rendered as the response JSON.

use rustc_hash::FxHashMap;
use serde_json::{json, Map, Value};

use super::plan::GeoAgg;
use crate::mapping::geo::{GeoPoint, GeohashCell};

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

/// One geohash cell: documents, and one centroid per `geo_centroid`
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

/// A grid's cells, keyed by [`GeohashCell::bits`] at the grid's precision.
pub(super) type Cells = FxHashMap<u64, Cell>;

/// The partial result of one aggregation.
#[derive(Debug, Clone)]
pub(super) enum Partial {
    Centroid(Centroid),
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
                (
                    GeoAgg::Grid {
                        precision,
                        size,
                        centroids,
                        ..
                    },
                    Partial::Grid(cells),
                ) => grid_json(cells, *precision, *size, centroids),
                (GeoAgg::Centroid { .. }, Partial::Grid(_)) => Value::Null,
            };
            out.insert(name.clone(), value);
        }
        out
    }
}

/// The `size` fullest cells, ties by key; keys are rendered only for them.
fn grid_json(cells: Cells, precision: usize, size: usize, subs: &[(String, String)]) -> Value {
    let mut cells: Vec<(u64, Cell)> = cells.into_iter().collect();
    // At one precision, bits order as the keys' texts do.
    cells.sort_unstable_by(|a, b| b.1.docs.cmp(&a.1.docs).then_with(|| a.0.cmp(&b.0)));
    let buckets: Vec<Value> = cells
        .into_iter()
        .take(size)
        .map(|(bits, cell)| {
            let key = GeohashCell::new(bits, precision).map_or_else(String::new, |c| c.to_string());
            let mut bucket = json!({"key": key, "doc_count": cell.docs});
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

    #[test]
    fn grid_buckets_sort_by_count_then_key_text() {
        let agg = GeoAgg::Grid {
            field: "p".into(),
            precision: 1,
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
        assert_eq!(keys, [("z", 10), ("9", 4), ("b", 4)]);
        assert_eq!(
            buckets[0]["c"],
            json!({"location": {"lat": 1.0, "lon": 2.0}, "count": 2})
        );
    }
}
