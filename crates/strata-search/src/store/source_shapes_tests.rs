//! Shaped sources read back byte for byte, and the table saved and loaded.

use proptest::prelude::*;
use serde_json::{json, Value};
use tantivy::directory::RamDirectory;

use super::*;

/// `source` shaped: met twice, so that its shape is in the table.
fn shaped(shapes: &SourceShapes, source: &[u8]) -> Vec<u8> {
    let _first = shapes.encode(source);
    shapes
        .encode(source)
        .expect("a shape met twice is in the table")
}

fn round_trip(shapes: &SourceShapes, source: &[u8]) -> Vec<u8> {
    match shapes.encode(source) {
        Some(stored) => shapes.decode(&stored).unwrap().into_owned(),
        None => shapes.decode(source).unwrap().into_owned(),
    }
}

#[test]
fn sources_of_one_shape_share_it_and_read_back_as_written() {
    let shapes = SourceShapes::default();
    let a = br#"{"@timestamp":"2026-01-01T00:00:24Z","n":12,"ok":true,"tags":["a","b"],"o":{"x":null}}"#;
    let b = br#"{"@timestamp":"2026-01-02T10:00:00Z","n":-3.5e2,"ok":false,"tags":["c","d"],"o":{"x":1}}"#;
    // Met once, a shape is not kept: the source is stored as it came.
    assert_eq!(shapes.encode(a), None);
    let stored_b = shapes.encode(b).unwrap();
    let stored_a = shapes.encode(a).unwrap();
    assert_eq!(stored_a[..2], [SHAPED, 0]);
    assert_eq!(stored_b[..2], [SHAPED, 0]);
    assert_eq!(shapes.table.read().shapes.len(), 1);
    assert!(stored_a.len() < a.len());
    assert_eq!(&shapes.decode(&stored_a).unwrap()[..], a);
    assert_eq!(&shapes.decode(&stored_b).unwrap()[..], b);
}

#[test]
fn shapes_met_once_stay_out_of_the_table() {
    let shapes = SourceShapes::default();
    // A map keyed by data: every source its own shape.
    for i in 0..10_000 {
        let source = format!("{{\"user-{i}\":{{\"n\":{i}}}}}");
        assert_eq!(shapes.encode(source.as_bytes()), None);
    }
    assert_eq!(shapes.table.read().shapes.len(), 0);
    // A shape met again still gets in.
    let stored = shaped(&shapes, br#"{"user-7":{"n":8}}"#);
    assert_eq!(stored[..2], [SHAPED, 0]);
}

#[test]
fn spacing_escapes_and_empty_values_are_kept() {
    let shapes = SourceShapes::default();
    for source in [
        &b"{ \"a\" : \"x \\\" y\\\\\" ,\n\t\"b\":[ ] , \"c\":\"\", \"d\":{}}"[..],
        br#"{"k\"ey":"v","\u00e9":"\ud83d\ude00","a":[1,[2,[3,{"b":[]}]]]}"#,
        "{\"caf\u{e9}\":\"na\u{ef}ve \u{1f600}\"}".as_bytes(),
        br#"{}"#,
    ] {
        let stored = shaped(&shapes, source);
        assert_eq!(&shapes.decode(&stored).unwrap()[..], source);
    }
}

#[test]
fn what_cannot_be_split_is_stored_as_it_came() {
    let shapes = SourceShapes::default();
    let deep = format!("{}{}", "[".repeat(DEPTH_MAX + 1), "]".repeat(DEPTH_MAX + 1));
    for source in [
        &b"{\"a\":\"x\x00\"}"[..],
        b"{\"a\":\"x\x01\"}",
        br#"{"a":"unterminated}"#,
        br#"{"a":[1}"#,
        br#"{"a":1}}"#,
        br#"{"a":1"#,
        deep.as_bytes(),
    ] {
        for _ in 0..2 {
            let stored = shapes.encode(source);
            assert_eq!(stored, None, "{}", String::from_utf8_lossy(source));
        }
        assert_eq!(&shapes.decode(source).unwrap()[..], source);
    }
}

#[test]
fn the_table_stops_growing_at_its_bounds() {
    let shapes = SourceShapes::default();
    for i in 0..TABLE_MAX_SHAPES + 10 {
        let source = format!("{{\"key{i}\":1}}");
        let _first = shapes.encode(source.as_bytes());
        let stored = shapes.encode(source.as_bytes());
        assert_eq!(stored.is_some(), i < TABLE_MAX_SHAPES, "{i}");
        assert_eq!(round_trip(&shapes, source.as_bytes()), source.as_bytes());
    }
    let long_key = format!("{{\"{}\":1}}", "k".repeat(SHAPE_MAX_BYTES));
    let fresh = SourceShapes::default();
    for _ in 0..2 {
        assert_eq!(fresh.encode(long_key.as_bytes()), None);
    }
}

#[test]
fn a_shape_the_shard_lacks_or_values_that_do_not_fit_are_errors() {
    let shapes = SourceShapes::default();
    let stored = shaped(&shapes, br#"{"a":"x","b":2}"#);
    let other = SourceShapes::default();
    assert_eq!(
        other.decode(&stored).unwrap_err().kind(),
        io::ErrorKind::InvalidData
    );
    let mut short = stored.clone();
    short.truncate(short.len() - 2);
    assert!(shapes.decode(&short).is_err());
    let mut long = stored.clone();
    long.extend_from_slice(b"extra\x00");
    assert!(shapes.decode(&long).is_err());
    assert!(shapes.decode(&[SHAPED, 0x80]).is_err());
}

#[test]
fn the_saved_table_reads_back_and_a_damaged_one_is_refused() {
    let dir = RamDirectory::create();
    let empty = SourceShapes::load(&dir).unwrap();
    assert_eq!(empty.table.read().shapes.len(), 0);
    let shapes = SourceShapes::default();
    let one = shaped(&shapes, br#"{"a":1}"#);
    let two = shaped(&shapes, br#"{"b":"x"}"#);
    shapes.save(&dir).unwrap();
    let loaded = SourceShapes::load(&dir).unwrap();
    assert_eq!(&loaded.decode(&one).unwrap()[..], br#"{"a":1}"#);
    assert_eq!(&loaded.decode(&two).unwrap()[..], br#"{"b":"x"}"#);
    // A reopened table keeps numbering after the saved shapes.
    assert_eq!(shaped(&loaded, br#"{"c":1}"#)[1], 2);
    let path = Path::new(SHAPES_FILE);
    let mut bytes = dir.atomic_read(path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    dir.atomic_write(path, &bytes).unwrap();
    assert_eq!(
        SourceShapes::load(&dir).err().map(|e| e.kind()),
        Some(io::ErrorKind::InvalidData)
    );
}

#[test]
fn saving_writes_only_when_shapes_were_added() {
    let dir = RamDirectory::create();
    let shapes = SourceShapes::default();
    // A shape met once is not in the table: nothing to save.
    assert_eq!(shapes.encode(br#"{"a":1}"#), None);
    shapes.save(&dir).unwrap();
    assert!(!dir.exists(Path::new(SHAPES_FILE)).unwrap());
    shaped(&shapes, br#"{"a":1}"#);
    shapes.save(&dir).unwrap();
    dir.delete(Path::new(SHAPES_FILE)).unwrap();
    shaped(&shapes, br#"{"a":2}"#);
    shapes.save(&dir).unwrap();
    assert!(!dir.exists(Path::new(SHAPES_FILE)).unwrap());
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn any_json_reads_back_byte_for_byte(value in json_value(), pretty in any::<bool>()) {
        let doc = json!({"doc": value});
        let source = match pretty {
            true => serde_json::to_vec_pretty(&doc).unwrap(),
            false => serde_json::to_vec(&doc).unwrap(),
        };
        let shapes = SourceShapes::default();
        // Control characters are escaped in JSON text: every source splits.
        let stored = shaped(&shapes, &source);
        prop_assert_eq!(&shapes.decode(&stored).unwrap()[..], &source[..]);
    }

    #[test]
    fn any_bytes_are_stored_whole_or_read_back(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        // Stored whole, a source must not look shaped: JSON text never does.
        prop_assume!(bytes.first() != Some(&SHAPED));
        let shapes = SourceShapes::default();
        prop_assert_eq!(round_trip(&shapes, &bytes), bytes);
    }
}
