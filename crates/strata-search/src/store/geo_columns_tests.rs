//! Tests of `store::geo_columns`: each layout of rows, the codes and the
//! degrees, and a segment holding both.

use tantivy::{Index, Searcher, TantivyDocument};

use super::*;
use crate::store::geo_codes::Axis;
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
    (points, has, cols.first.rows)
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

/// A point as indexing writes it now: `{"lat_code": .., "lon_code": ..}`.
fn codes(lat: f64, lon: f64) -> String {
    format!(
        r#"{{"lat_code": {}, "lon_code": {}}}"#,
        Latitude::encode(lat),
        Longitude::encode(lon)
    )
}

#[test]
fn codes_read_back_as_the_degrees_of_their_steps() {
    let docs = [
        format!(r#"{{"p": {}}}"#, codes(52.37, 4.89)),
        format!(r#"{{"p": {}}}"#, codes(-90.0, 180.0)),
    ];
    let docs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let (points, has, rows) = read(&docs);
    assert_eq!(rows, Rows::Full);
    let q = |lat, lon| (Latitude::quantize(lat), Longitude::quantize(lon));
    assert_eq!(points, [vec![q(52.37, 4.89)], vec![q(-90.0, 180.0)]]);
    assert_eq!(points[1][0].0, -90.0);
    assert!((points[0][0].0 - 52.37).abs() < 1e-7);
    assert_eq!(has, [true, true]);
}

#[test]
fn a_merge_of_codes_and_degrees_reads_both() {
    // Segments written before the codes merged with newer ones.
    let docs = [
        // Steps start at multiples of 180 / 2^32 degrees: 45 and 90 read back exactly.
        format!(r#"{{"p": {}}}"#, codes(45.0, 90.0)),
        r#"{"p": {"lat": 1.5, "lon": 2.5}}"#.to_owned(),
        r#"{"n": 1}"#.to_owned(),
        r#"{"p": {"lat": [3.5, 4.5], "lon": [5.5, 6.5]}}"#.to_owned(),
    ];
    let docs: Vec<&str> = docs.iter().map(String::as_str).collect();
    let searcher = segment(&docs);
    let reader = searcher.segment_reader(0);
    let cols = PointColumns::open(reader, "p").unwrap().unwrap();
    let points: Vec<Vec<(f64, f64)>> = (0..4)
        .map(|d| cols.points(d).map(|p| (p.lat, p.lon)).collect())
        .collect();
    assert_eq!(
        points,
        [
            vec![(45.0, 90.0)],
            vec![(1.5, 2.5)],
            vec![],
            vec![(3.5, 5.5), (4.5, 6.5)]
        ]
    );
    let has: Vec<bool> = (0..4).map(|d| cols.has_point(d)).collect();
    assert_eq!(has, [true, true, false, true]);
    assert!(!cols.one_per_doc());
    let (mut lat, mut lon) = (Vec::new(), Vec::new());
    assert!(!cols.read_block(&[0, 1], &mut lat, &mut lon));
}
