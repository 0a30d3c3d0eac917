//! Search's metadata files (each index's `index.json`, the node's
//! `aliases.json` and `templates.json`) under power cuts and failing
//! devices: every file search writes goes through the device layer
//! (`SearchStorage::files`), so a `MemTree` cuts the power under all of
//! them at once and a `FaultyTree` fails them. Whatever the cut or the
//! fault, the node reopens (never a torn or half-written file) with each
//! change either whole or absent, and a failed change is reported as an
//! error, not a panic.
//!
//! Tantivy's own segment files stay on the real filesystem here (they go
//! through tantivy's directory, not the device layer yet).

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use strata_device::{DirectoryTree, Faults, FaultyTree, MemTree};
use strata_search::{AliasAction, Catalog, SearchError, SearchFiles, SearchStorage};

fn open(root: &Path, tree: Arc<dyn DirectoryTree>) -> strata_search::Result<Catalog> {
    let storage = SearchStorage {
        files: SearchFiles::new(tree),
        ..Default::default()
    };
    Catalog::open_with(root, storage)
}

/// What a restart shows of the metadata the steps below change.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    index: bool,
    refresh: Option<String>,
    aliases: Vec<String>,
    templates: usize,
}

fn seen(catalog: &Catalog) -> Seen {
    let index = catalog.get("logs").ok();
    let refresh = index.as_ref().and_then(|i| {
        let described = i.describe();
        described["logs"]["settings"]["index"]["refresh_interval"]
            .as_str()
            .map(str::to_string)
    });
    let mut aliases: Vec<String> = catalog.aliases().names().cloned().collect();
    aliases.sort();
    let templates = catalog.templates().to_json()["composable"]
        .as_object()
        .map_or(0, |t| t.len());
    Seen {
        index: index.is_some(),
        refresh,
        aliases,
        templates,
    }
}

/// The metadata changes, in order; each one rewrites at least one file.
const STEPS: usize = 4;

fn step(catalog: &Catalog, n: usize) -> strata_search::Result<()> {
    match n {
        // Index creation with an alias: the pending alias table, then
        // `index.json` (the commit point), then the final alias table.
        0 => catalog
            .create_index(
                "logs",
                &json!({
                    "settings": {"number_of_shards": 1, "refresh_interval": "1s"},
                    "aliases": {"all-logs": {}}
                }),
            )
            .map(drop),
        1 => catalog
            .get("logs")?
            .update_settings(&json!({"index": {"refresh_interval": "7s"}})),
        2 => catalog.update_aliases(&[AliasAction::parse(
            &json!({"add": {"index": "logs", "alias": "recent"}}),
        )?]),
        3 => catalog.put_template(
            strata_search::TemplateKind::Composable,
            "t1",
            &json!({"index_patterns": ["t1-*"], "template": {"settings": {}}}),
            false,
        ),
        _ => unreachable!(),
    }
}

/// A fresh node's root, its memory tree, and a faulty tree over that.
fn prepared() -> (tempfile::TempDir, MemTree, FaultyTree) {
    let root = tempfile::tempdir().unwrap();
    let mem = MemTree::new();
    let faulty = FaultyTree::new(Arc::new(mem.clone()));
    (root, mem, faulty)
}

/// What each step leaves, without faults: `states[n]` before step `n`.
fn states() -> Vec<Seen> {
    let (root, mem, _) = prepared();
    let catalog = open(root.path(), Arc::new(mem)).unwrap();
    let mut states = vec![seen(&catalog)];
    for n in 0..STEPS {
        step(&catalog, n).unwrap();
        states.push(seen(&catalog));
    }
    states
}

/// Step `n` under `inject` (a fault switched on just before it), then a
/// power cut (`cut`), then a restart: the node must open and show the state
/// before or after the step. Returns whether the step reported success.
fn cut_during(
    n: usize,
    states: &[Seen],
    inject: &dyn Fn(&Faults),
    cut: &dyn Fn(&MemTree) -> MemTree,
) -> bool {
    let (root, mem, faulty) = prepared();
    let ok = {
        let catalog = open(root.path(), Arc::new(faulty.clone())).unwrap();
        for before in 0..n {
            step(&catalog, before).unwrap();
        }
        inject(faulty.faults());
        let result = step(&catalog, n);
        faulty.faults().heal();
        if let Err(e) = &result {
            // Reported as the device's error, not swallowed or mangled.
            assert!(
                matches!(e, SearchError::Io { .. } | SearchError::Translog(_)),
                "step {n}: {e:?}"
            );
        }
        result.is_ok()
    };
    let after = cut(&mem);
    let catalog = open(root.path(), Arc::new(after))
        .unwrap_or_else(|e| panic!("step {n}: the node does not reopen: {e}"));
    let now = seen(&catalog);
    assert!(
        now == states[n] || now == states[n + 1],
        "step {n}: neither before nor after: {now:?}\nbefore {:?}\nafter {:?}",
        states[n],
        states[n + 1]
    );
    if ok {
        assert_eq!(now, states[n + 1], "step {n}: a reported success was lost");
    }
    ok
}

/// Counts the writes and syncs step `n` makes.
fn cost(n: usize) -> (u64, u64) {
    let (root, _mem, faulty) = prepared();
    let catalog = open(root.path(), Arc::new(faulty.clone())).unwrap();
    for before in 0..n {
        step(&catalog, before).unwrap();
    }
    let faults = faulty.faults();
    let (writes, syncs) = (faults.writes(), faults.syncs());
    step(&catalog, n).unwrap();
    (faults.writes() - writes, faults.syncs() - syncs)
}

#[test]
fn a_power_cut_at_any_sync_of_a_metadata_change_leaves_old_or_new() {
    let states = states();
    for n in 0..STEPS {
        let (_, syncs) = cost(n);
        assert!(syncs >= 2, "step {n} must sync its file and the names");
        for k in 0..=syncs {
            // Syncs from the k-th on fail: the power is cut there.
            let inject = move |f: &Faults| f.fail_syncs_after(k);
            let succeeded = cut_during(n, &states, &inject, &|m: &MemTree| m.crash());
            assert_eq!(succeeded, k == syncs, "step {n}, cut at sync {k}");
            for seed in 0..3 {
                let torn = move |m: &MemTree| m.crash_torn(seed);
                cut_during(n, &states, &inject, &torn);
            }
        }
    }
}

#[test]
fn failing_and_tearing_writes_are_reported_and_leave_old_or_new() {
    let states = states();
    for n in 0..STEPS {
        let (writes, _) = cost(n);
        for k in 0..writes {
            let eio = move |f: &Faults| f.fail_writes_after(k);
            assert!(!cut_during(n, &states, &eio, &|m: &MemTree| m.crash()));
            let torn = move |f: &Faults| {
                f.fail_writes_after(k + 1);
                if k == 0 {
                    f.tear_next_write(10);
                }
            };
            cut_during(n, &states, &torn, &|m: &MemTree| m.crash_torn(k));
        }
    }
}

#[test]
fn a_full_disk_fails_the_change_and_keeps_the_old_metadata() {
    let states = states();
    for n in 0..STEPS {
        let enospc = |f: &Faults| f.set_capacity(0);
        let ok = cut_during(n, &states, &enospc, &|m: &MemTree| m.crash());
        assert!(!ok, "step {n} succeeded on a full disk");
    }
}

/// A damaged `index.json` (not a crash: bit rot or a hand edit) is an
/// error naming the file, not a panic and not a silently empty index.
#[test]
fn a_damaged_metadata_file_is_an_error_naming_it() {
    let (root, mem, _) = prepared();
    {
        let catalog = open(root.path(), Arc::new(mem.clone())).unwrap();
        step(&catalog, 0).unwrap();
    }
    let dir = mem.dir(&root.path().join("logs")).unwrap();
    use strata_device::Directory;
    let value: Value = serde_json::from_slice(&dir.read_all("index.json").unwrap()).unwrap();
    let text = serde_json::to_vec(&value).unwrap();
    dir.replace("index.json", &text[..text.len() / 2]).unwrap();
    let err = open(root.path(), Arc::new(mem))
        .err()
        .expect("opened a damaged index");
    assert!(err.to_string().contains("index.json"), "{err}");
}
