//! Geo aggregations, which tantivy does not have: `geo_centroid` and
//! `geohash_grid` (optionally with `geo_centroid` sub-aggregations, as
//! Kibana's maps send), computed by a tantivy collector over the
//! latitude/longitude fast-field columns (`store::geo_columns`).
//!
//! They are accepted at the top level of `aggs` only; [`split`] takes them
//! out of the request before the rest goes to tantivy's aggregations.
//! Shard results merge exactly (sums and counts), so the final result does
//! not depend on the shard count.

use std::collections::HashMap;

use serde_json::{json, Map, Value};
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use crate::error::{Result, SearchError};
use crate::mapping::geo::{geohash, GeoPoint};
use crate::mapping::{FieldType, Mappings};
use crate::store::geo_columns::PointColumns;

/// One geo aggregation request.
#[derive(Debug, Clone)]
pub enum GeoAgg {
    /// `geo_centroid`: the mean of the field's points.
    Centroid {
        /// geo_point field path.
        field: String,
    },
    /// `geohash_grid`: documents per geohash cell.
    Grid {
        /// geo_point field path.
        field: String,
        /// Geohash length, 1..=12.
        precision: usize,
        /// Buckets returned.
        size: usize,
        /// `geo_centroid` sub-aggregations: (name, field).
        centroids: Vec<(String, String)>,
    },
}

/// Named geo aggregations, in request order.
pub type GeoAggs = Vec<(String, GeoAgg)>;

/// Takes the top-level geo aggregations out of `aggs`; returns them and the rest.
pub fn split(aggs: &Value) -> Result<(GeoAggs, Option<Value>)> {
    let Some(obj) = aggs.as_object() else {
        return Ok((Vec::new(), Some(aggs.clone())));
    };
    let mut geo = Vec::new();
    let mut rest = Map::new();
    for (name, body) in obj {
        match parse(name, body)? {
            Some(agg) => geo.push((name.clone(), agg)),
            None => {
                rest.insert(name.clone(), body.clone());
            }
        }
    }
    Ok((geo, (!rest.is_empty()).then_some(Value::Object(rest))))
}

fn parse(name: &str, body: &Value) -> Result<Option<GeoAgg>> {
    let Some(obj) = body.as_object() else {
        return Ok(None);
    };
    let subs = obj.get("aggs").or_else(|| obj.get("aggregations"));
    if let Some(params) = obj.get("geo_centroid") {
        if subs.is_some() {
            return Err(SearchError::illegal(format!(
                "Aggregator [{name}] of type [geo_centroid] cannot accept sub-aggregations"
            )));
        }
        let field = field_param(name, "geo_centroid", params)?;
        return Ok(Some(GeoAgg::Centroid { field }));
    }
    let Some(params) = obj.get("geohash_grid") else {
        return Ok(None);
    };
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
    for (sub_name, sub) in subs.and_then(Value::as_object).into_iter().flatten() {
        match sub.get("geo_centroid") {
            Some(p) if sub.as_object().is_some_and(|o| o.len() == 1) => {
                centroids.push((sub_name.clone(), field_param(sub_name, "geo_centroid", p)?));
            }
            _ => {
                return Err(SearchError::illegal(format!(
                    "sub-aggregation [{sub_name}] of [geohash_grid] [{name}]: only geo_centroid is supported there"
                )))
            }
        }
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

/// A running centroid: sums and the number of points.
#[derive(Debug, Clone, Copy, Default)]
pub struct Centroid {
    lat: f64,
    lon: f64,
    count: u64,
}

impl Centroid {
    fn add(&mut self, p: GeoPoint) {
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

/// One geohash cell: documents and sub-centroids.
#[derive(Debug, Clone, Default)]
struct Cell {
    docs: u64,
    centroids: Vec<Centroid>,
}

/// The partial result of one aggregation.
#[derive(Debug, Clone)]
enum Partial {
    Centroid(Centroid),
    Grid(HashMap<String, Cell>),
}

/// Partial results of all geo aggregations, in request order.
#[derive(Debug, Clone)]
pub struct GeoFruit(Vec<Partial>);

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
                        size, centroids, ..
                    },
                    Partial::Grid(cells),
                ) => {
                    let mut cells: Vec<(String, Cell)> = cells.into_iter().collect();
                    cells.sort_by(|a, b| b.1.docs.cmp(&a.1.docs).then_with(|| a.0.cmp(&b.0)));
                    let buckets: Vec<Value> = cells
                        .into_iter()
                        .take(*size)
                        .map(|(key, cell)| {
                            let mut bucket = json!({"key": key, "doc_count": cell.docs});
                            for ((sub, _), c) in centroids.iter().zip(cell.centroids) {
                                bucket[sub] = c.to_json();
                            }
                            bucket
                        })
                        .collect();
                    json!({ "buckets": buckets })
                }
                (GeoAgg::Centroid { .. }, Partial::Grid(_)) => Value::Null,
            };
            out.insert(name.clone(), value);
        }
        out
    }
}

/// The collector of a request's geo aggregations.
pub struct GeoCollector {
    aggs: Vec<(String, GeoAgg)>,
}

impl GeoCollector {
    /// A collector for `aggs`.
    pub fn new(aggs: Vec<(String, GeoAgg)>) -> GeoCollector {
        GeoCollector { aggs }
    }

    /// The result of no documents.
    pub fn empty(&self) -> GeoFruit {
        GeoFruit(
            self.aggs
                .iter()
                .map(|(_, a)| match a {
                    GeoAgg::Centroid { .. } => Partial::Centroid(Centroid::default()),
                    GeoAgg::Grid { .. } => Partial::Grid(HashMap::new()),
                })
                .collect(),
        )
    }
}

/// Per-segment state of one aggregation.
enum SegmentAgg {
    Centroid(Option<PointColumns>, Centroid),
    Grid {
        points: Option<PointColumns>,
        precision: usize,
        subs: Vec<Option<PointColumns>>,
        cells: HashMap<String, Cell>,
    },
}

/// [`GeoCollector`]'s per-segment part.
pub struct GeoSegmentCollector(Vec<SegmentAgg>);

impl Collector for GeoCollector {
    type Fruit = GeoFruit;
    type Child = GeoSegmentCollector;

    fn for_segment(
        &self,
        _ord: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<GeoSegmentCollector> {
        let open = |field: &str| {
            PointColumns::open(segment, field)
                .map_err(|e| tantivy::TantivyError::InternalError(e.to_string()))
        };
        let mut parts = Vec::new();
        for (_, agg) in &self.aggs {
            parts.push(match agg {
                GeoAgg::Centroid { field } => {
                    SegmentAgg::Centroid(open(field)?, Centroid::default())
                }
                GeoAgg::Grid {
                    field,
                    precision,
                    centroids,
                    ..
                } => SegmentAgg::Grid {
                    points: open(field)?,
                    precision: *precision,
                    subs: centroids
                        .iter()
                        .map(|(_, f)| open(f))
                        .collect::<tantivy::Result<_>>()?,
                    cells: HashMap::new(),
                },
            });
        }
        Ok(GeoSegmentCollector(parts))
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
        for part in &mut self.0 {
            match part {
                SegmentAgg::Centroid(Some(cols), c) => cols.points(doc).for_each(|p| c.add(p)),
                SegmentAgg::Centroid(None, _) => {}
                SegmentAgg::Grid {
                    points: Some(cols),
                    precision,
                    subs,
                    cells,
                } => {
                    let mut keys: Vec<String> =
                        cols.points(doc).map(|p| geohash(p, *precision)).collect();
                    // A document counts once per cell.
                    keys.sort_unstable();
                    keys.dedup();
                    for key in keys {
                        let cell = cells.entry(key).or_default();
                        cell.docs += 1;
                        cell.centroids.resize(subs.len(), Centroid::default());
                        for (sub, c) in subs.iter().zip(cell.centroids.iter_mut()) {
                            if let Some(sub) = sub {
                                sub.points(doc).for_each(|p| c.add(p));
                            }
                        }
                    }
                }
                SegmentAgg::Grid { points: None, .. } => {}
            }
        }
    }

    fn harvest(self) -> GeoFruit {
        GeoFruit(
            self.0
                .into_iter()
                .map(|part| match part {
                    SegmentAgg::Centroid(_, c) => Partial::Centroid(c),
                    SegmentAgg::Grid { cells, .. } => Partial::Grid(cells),
                })
                .collect(),
        )
    }
}
