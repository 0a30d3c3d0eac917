//! Unit tests of `functions.rs`.

use super::*;

fn lib(name: &str, functions: &[&str]) -> Library {
    Library {
        name: name.into(),
        code: format!("#!lua name={name}\n").into_bytes().into(),
        functions: functions
            .iter()
            .map(|f| FunctionInfo {
                name: f.to_string(),
                description: None,
                flags: vec![],
            })
            .collect(),
        generation: 1,
    }
}

#[test]
fn collisions_follow_redis() {
    let f = Functions::default();
    f.load(lib("a", &["f1", "f2"]), false).unwrap();
    assert_eq!(
        f.load(lib("a", &["g"]), false).unwrap_err(),
        "Library 'a' already exists"
    );
    assert_eq!(
        f.load(lib("b", &["f1"]), false).unwrap_err(),
        "Function f1 already exists"
    );
    // Replacing a library frees its function names.
    f.load(lib("a", &["f1"]), true).unwrap();
    f.load(lib("b", &["f2"]), false).unwrap();
    assert_eq!(
        f.counts(),
        Counts {
            libraries: 2,
            functions: 2
        }
    );
    assert!(f.delete(b"a"));
    assert!(!f.delete(b"a"));
    assert!(f.function(b"f1").is_none());
    assert_eq!(f.function(b"f2").unwrap().0.name, "b");
}

#[test]
fn dump_round_trips_and_detects_damage() {
    let f = Functions::default();
    f.load(lib("a", &["f1"]), false).unwrap();
    f.load(lib("b", &["f2"]), false).unwrap();
    let dump = f.dump();
    let codes = parse_dump(&dump).unwrap();
    assert_eq!(
        codes,
        vec![b"#!lua name=a\n".to_vec(), b"#!lua name=b\n".to_vec()]
    );
    let mut bad = dump.clone();
    bad[3] ^= 1;
    assert!(parse_dump(&bad).is_err());
    assert!(parse_dump(b"short").is_err());
}
