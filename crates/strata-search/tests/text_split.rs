//! How text is split into terms: indices created now split as
//! Elasticsearch's `standard` analyzer (Unicode word boundaries), so an
//! address, a file name or a version is one term that `match` finds
//! exactly; an index created before keeps the split its segments hold
//! (alphanumeric runs), at indexing and in queries, across a restart.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};
use strata_search::{Catalog, Precondition};

const LINES: [&str; 4] = [
    "83.149.9.216 GET /images/kibana-search.png Mozilla/5.0",
    "83.149.9.217 GET /images/search.png Mozilla/4.0",
    "10.0.0.1 GET /kibana/search png 5 0",
    "the dog's bone, The 2 QUICK Brown-Foxes",
];

fn create(dir: &Path) -> Catalog {
    let catalog = Catalog::open(dir).unwrap();
    catalog
        .create_index(
            "logs",
            &json!({
                "settings": {"number_of_shards": 2, "refresh_interval": "-1"},
                "mappings": {"properties": {"message": {"type": "text"}}}
            }),
        )
        .unwrap();
    catalog
}

fn fill(catalog: &Catalog) {
    let index = catalog.get("logs").unwrap();
    for (i, line) in LINES.iter().enumerate() {
        let doc = json!({"message": line}).to_string();
        index
            .index_document(Some(&i.to_string()), doc.as_bytes(), Precondition::None)
            .unwrap();
    }
    index.refresh().unwrap();
}

fn ids(catalog: &Catalog, query: Value) -> BTreeSet<String> {
    let resp = crate::common::search_logs(catalog, &json!({"query": query, "size": 100}));
    crate::common::hit_ids(&resp).into_iter().collect()
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

fn matching(catalog: &Catalog, text: &str) -> BTreeSet<String> {
    ids(catalog, json!({"match": {"message": text}}))
}

#[test]
fn addresses_file_names_and_versions_are_one_term() {
    let tmp = tempfile::tempdir().unwrap();
    let catalog = create(tmp.path());
    fill(&catalog);
    assert_eq!(matching(&catalog, "83.149.9.216"), set(&["0"]));
    // `kibana-search.png` splits at the hyphen only.
    assert_eq!(matching(&catalog, "search.png"), set(&["0", "1"]));
    assert_eq!(matching(&catalog, "5.0"), set(&["0"]));
    assert_eq!(matching(&catalog, "png"), set(&["2"]));
    assert_eq!(matching(&catalog, "dog's"), set(&["3"]));
    assert_eq!(matching(&catalog, "FOXES"), set(&["3"]));
    assert_eq!(
        ids(
            &catalog,
            json!({"match_phrase": {"message": "get /images/search.png"}})
        ),
        set(&["1"])
    );
    let index = catalog.get("logs").unwrap();
    let terms: Vec<String> = strata_search::analyze_text(Some(&index), "GET a.b")
        .into_iter()
        .map(|t| t.2)
        .collect();
    assert_eq!(terms, ["get", "a.b"]);
    assert_eq!(
        index.settings().to_json("logs")["index"]["version"]["created"],
        "8521100"
    );
}

#[test]
fn an_index_created_before_keeps_its_split() {
    let tmp = tempfile::tempdir().unwrap();
    drop(create(tmp.path()));
    // Make the empty index one created before the standard split, as its
    // recorded version says.
    let meta = find(tmp.path(), "index.json");
    let mut body: Value = serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
    body["settings"]["index"]["version"]["created"] = json!("8521000");
    std::fs::write(&meta, serde_json::to_vec(&body).unwrap()).unwrap();

    let catalog = Catalog::open(tmp.path()).unwrap();
    fill(&catalog);
    let index = catalog.get("logs").unwrap();
    index.flush().unwrap();
    let doc = json!({"message": "192.168.7.7 GET /x.png"}).to_string();
    index
        .index_document(Some("new"), doc.as_bytes(), Precondition::None)
        .unwrap();
    drop((index, catalog));
    // Reopened: committed segments and the replayed translog alike keep
    // alphanumeric runs, and queries split the same way.
    let catalog = Catalog::open(tmp.path()).unwrap();
    let index = catalog.get("logs").unwrap();
    index.refresh().unwrap();
    assert_eq!(
        index.settings().to_json("logs")["index"]["version"]["created"],
        "8521000"
    );
    let terms: Vec<String> = strata_search::analyze_text(Some(&index), "GET a.b")
        .into_iter()
        .map(|t| t.2)
        .collect();
    assert_eq!(terms, ["get", "a", "b"]);
    let all = |text: &str| {
        ids(
            &catalog,
            json!({"match": {"message": {"query": text, "operator": "and"}}}),
        )
    };
    assert_eq!(all("192.168.7.7"), set(&["new"]));
    assert_eq!(all("83.149.9.216"), set(&["0"]));
    assert_eq!(matching(&catalog, "png"), set(&["0", "1", "2", "new"]));
    assert_eq!(all("kibana search.png"), set(&["0", "2"]));
}

/// The one file named `name` below `dir`.
fn find(dir: &Path, name: &str) -> std::path::PathBuf {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == name) {
                found.push(path);
            }
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    found.pop().unwrap()
}
