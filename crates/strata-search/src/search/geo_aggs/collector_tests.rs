//! Tests of the geo collector: planning, per-cell counting, and block
//! collection against per-document collection.

use super::*;
use crate::mapping::geo::GeohashCell;
use crate::query::BoundingBox;
use crate::search::agg_tree::GridSystem;

fn hashes(precision: usize) -> Grid {
    Grid {
        system: GridSystem::Geohash,
        precision,
        bounds: None,
    }
}

fn loaded(points: &[(f64, f64)]) -> FieldPoints {
    let mut f = FieldPoints::new(None);
    f.doc = Some(0);
    f.points = points
        .iter()
        .map(|&(lat, lon)| GeoPoint { lat, lon })
        .collect();
    f
}

/// Every partial result in a fixed order, cells sorted by bits.
fn render(fruit: GeoFruit) -> Vec<String> {
    fruit
        .0
        .into_iter()
        .map(|partial| match partial {
            Partial::Centroid(c) => format!("{c:?}"),
            Partial::Bounds(e) => format!("{e:?}"),
            Partial::Grid(cells) => {
                let mut cells: Vec<_> = cells.into_iter().collect();
                cells.sort_by_key(|(bits, _)| *bits);
                format!("{cells:?}")
            }
        })
        .collect()
}

#[test]
fn blocks_and_single_documents_give_the_same_result() {
    // `p` and `r`: one point per document (read by blocks); `q`: on
    // some documents only, so a grid that reads it goes document by
    // document.
    let docs: Vec<String> = (0..300)
        .map(|i| {
            let (lat, lon) = (
                f64::from(i * 37 % 180) - 89.5,
                f64::from(i * 71 % 360) - 179.25,
            );
            let (p, r) = (
                format!(r#""p": {{"lat": {lat}, "lon": {lon}}}"#),
                format!(r#""r": {{"lat": {}, "lon": {lat}}}"#, lat / 2.0),
            );
            match i % 3 {
                0 => format!(r#"{{{p}, {r}, "q": {{"lat": 1, "lon": {i}}}}}"#),
                _ => format!(r#"{{{p}, {r}}}"#),
            }
        })
        .collect();
    let docs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let searcher = crate::store::geo_columns::tests::segment(&docs);
    let reader = searcher.segment_reader(0);
    let grid = |grid: Grid, centroids: &[&str]| GeoAgg::Grid {
        field: "p".into(),
        grid,
        size: 10_000,
        centroids: centroids
            .iter()
            .map(|f| (format!("c-{f}"), f.to_string()))
            .collect(),
    };
    let centroid = |f: &str| GeoAgg::Centroid { field: f.into() };
    let bounds = |f: &str| GeoAgg::Bounds {
        field: f.into(),
        wrap_longitude: true,
    };
    let tiles = |precision, bounds| Grid {
        system: GridSystem::Geotile,
        precision,
        bounds,
    };
    let crossing = BoundingBox {
        top: 60.0,
        bottom: -30.0,
        left: 90.0,
        right: -100.0,
    };
    let bounded = Grid {
        bounds: Some(crossing),
        ..hashes(3)
    };
    let requests = [
        vec![
            ("g".into(), grid(hashes(2), &["p"])),
            ("c".into(), centroid("p")),
        ],
        vec![
            ("g".into(), grid(hashes(4), &["p"])),
            ("m".into(), centroid("missing")),
        ],
        vec![
            ("g".into(), grid(hashes(1), &["p", "q"])),
            ("c".into(), centroid("q")),
        ],
        vec![
            ("g".into(), grid(hashes(3), &["r", "p", "r"])),
            ("c".into(), centroid("r")),
        ],
        vec![
            ("t".into(), grid(tiles(5, None), &["p"])),
            ("b".into(), bounds("p")),
        ],
        vec![
            ("t".into(), grid(tiles(9, Some(crossing)), &["p", "q"])),
            ("b".into(), bounds("q")),
        ],
        vec![
            ("g".into(), grid(bounded, &["p"])),
            ("t".into(), grid(tiles(2, Some(crossing)), &[])),
        ],
    ];
    let all: Vec<DocId> = (0..reader.max_doc()).collect();
    for aggs in requests {
        let collector = GeoCollector::new(aggs);
        let mut one_by_one = collector.for_segment(0, reader).unwrap();
        all.iter().for_each(|&d| one_by_one.collect(d, 0.0));
        let mut by_blocks = collector.for_segment(0, reader).unwrap();
        all.chunks(64)
            .for_each(|block| by_blocks.collect_block(block));
        let (a, b) = (render(one_by_one.harvest()), render(by_blocks.harvest()));
        assert!(a.iter().all(|r| r.len() > 20), "{a:?}");
        assert_eq!(a, b);
    }
}

#[test]
fn fields_are_opened_once() {
    let grid = GeoAgg::Grid {
        field: "a".into(),
        grid: hashes(3),
        size: 10,
        centroids: vec![("c1".into(), "a".into()), ("c2".into(), "b".into())],
    };
    let centroid = GeoAgg::Centroid { field: "b".into() };
    let c = GeoCollector::new(vec![("g".into(), grid), ("c".into(), centroid)]);
    assert_eq!(c.fields, ["a", "b"]);
    assert!(matches!(&c.plan[0], Plan::Grid { field: 0, subs, .. } if subs == &[0, 1]));
    assert!(matches!(c.plan[1], Plan::Centroid { field: 1 }));
}

#[test]
fn a_document_counts_once_per_cell() {
    // Two points in cell "s" (lon >= 0, lat >= 0), one in "0".
    let grid = loaded(&[(10.0, 10.0), (-80.0, -170.0), (20.0, 20.0)]);
    let other = loaded(&[(1.0, 2.0)]);
    let fields = [grid, other];
    let (mut table, mut scratch) = (CellTable::new(5, 2), Vec::new());
    let finder = CellOf::new(&hashes(1));
    for _ in 0..2 {
        add_to_grid(
            &mut table,
            &finder,
            &fields[0].points,
            &[0, 1],
            &fields,
            &mut scratch,
        );
    }
    add_to_grid(
        &mut table,
        &finder,
        &fields[1].points,
        &[],
        &fields,
        &mut scratch,
    );
    let cells = table.into_cells();
    let s = GeohashCell::of(
        GeoPoint {
            lat: 10.0,
            lon: 10.0,
        },
        1,
    )
    .bits;
    assert_eq!(GeohashCell::new(s, 1).unwrap().to_string(), "s");
    let zero = &cells[&0];
    assert_eq!((cells[&s].docs, zero.docs, cells.len()), (3, 2, 2));
    // Sub-centroids take all the document's points, in each of its cells.
    let sums = |c: &Centroid| (c.count, format!("{c:?}"));
    assert_eq!(sums(&cells[&s].centroids[0]), sums(&zero.centroids[0]));
    assert_eq!(zero.centroids[0].count, 6);
    assert_eq!(zero.centroids[1].count, 2);
    assert!(cells[&s].centroids.len() == 2);
}

#[test]
fn points_outside_a_grids_bounds_are_not_counted() {
    // One document with a point in the box and one outside; one outside only.
    let inside = loaded(&[(10.0, 10.0), (-80.0, -170.0)]);
    let outside = loaded(&[(-80.0, -170.0)]);
    let fields = [inside, outside];
    let bounds = BoundingBox {
        top: 20.0,
        bottom: 0.0,
        left: 0.0,
        right: 20.0,
    };
    let grid = Grid {
        bounds: Some(bounds),
        ..hashes(1)
    };
    let (mut table, mut scratch) = (CellTable::new(grid.key_bits(), 1), Vec::new());
    let finder = CellOf::new(&grid);
    for f in &fields {
        add_to_grid(&mut table, &finder, &f.points, &[0], &fields, &mut scratch);
    }
    let cells = table.into_cells();
    assert_eq!(cells.len(), 1);
    let cell = cells.values().next().unwrap();
    // Its centroid still takes all the document's points, as Elasticsearch's sub-aggregations do.
    assert_eq!((cell.docs, cell.centroids[0].count), (1, 2));
}
