//! The catalog's aliases, templates and rollover without HTTP: state kept
//! across reopening, links to an index whose directory vanished (a crash
//! between deleting an index and saving the alias table) dropped on open,
//! alias filters combined as Elasticsearch does.

use serde_json::json;
use strata_search::{AliasAction, Catalog, IndicesOptions, TemplateKind};

#[test]
fn aliases_templates_and_rollover_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("search");
    {
        let cat = Catalog::open(&root).unwrap();
        cat.put_template(
            TemplateKind::Composable,
            "x",
            &json!({"index_patterns": ["x-*"], "template": {"aliases": {"all-x": {}}}}),
            false,
        )
        .unwrap();
        cat.create_index(
            "x-000001",
            &json!({"aliases": {"w": {"is_write_index": true}}}),
        )
        .unwrap();
        let out = cat.rollover("w", None, &json!({}), false).unwrap();
        assert!(out.rolled_over);
        assert_eq!(out.new_index, "x-000002");
        let write = cat.write_index("w").unwrap().unwrap();
        assert_eq!(write.name(), "x-000002");
        let links = cat.aliases();
        assert_eq!(links.targets("all-x").unwrap().len(), 2);
        assert_eq!(
            links.targets("w").unwrap()["x-000001"].is_write_index,
            Some(false)
        );
        cat.shutdown().unwrap();
    }
    // The index directory disappears behind the catalog's back.
    std::fs::remove_dir_all(root.join("x-000001")).unwrap();
    let cat = Catalog::open(&root).unwrap();
    let links = cat.aliases();
    assert_eq!(links.targets("all-x").unwrap().len(), 1);
    assert!(links.targets("w").unwrap().contains_key("x-000002"));
    assert!(links.of_index("x-000001").is_empty());
    assert!(cat.templates().composable.contains_key("x"));
    cat.create_index("x-000003", &json!(null)).unwrap();
    assert_eq!(cat.aliases().targets("all-x").unwrap().len(), 2);
    cat.shutdown().unwrap();
}

#[test]
fn filters_combine_per_index() {
    let dir = tempfile::tempdir().unwrap();
    let cat = Catalog::open(dir.path()).unwrap();
    cat.create_index("a", &json!(null)).unwrap();
    cat.create_index("b", &json!(null)).unwrap();
    let add = |alias: &str, index: &str, filter: serde_json::Value| AliasAction::Add {
        indices: vec![index.into()],
        aliases: vec![alias.into()],
        meta: strata_search::AliasMeta {
            filter: Some(filter),
            ..Default::default()
        },
    };
    cat.update_aliases(&[
        add("f1", "a", json!({"term": {"k": 1}})),
        add("f2", "a", json!({"term": {"k": 2}})),
    ])
    .unwrap();
    // Two filtered aliases: either filter lets a document through.
    let t = cat
        .resolve_targets_with("f1,f2", IndicesOptions::default())
        .unwrap();
    assert_eq!(t.len(), 1);
    assert_eq!(
        t[0].filter.as_ref().unwrap()["bool"]["should"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // Reached directly as well: no filter.
    let t = cat
        .resolve_targets_with("f1,a", IndicesOptions::default())
        .unwrap();
    assert!(t[0].filter.is_none());
    // A wildcard over index names reaches every index directly.
    let t = cat
        .resolve_targets_with("*", IndicesOptions::default())
        .unwrap();
    assert!(t.iter().all(|t| t.filter.is_none()));
    // A wildcard over alias names keeps the alias filter.
    let t = cat
        .resolve_targets_with("f1*", IndicesOptions::default())
        .unwrap();
    assert_eq!(t.len(), 1);
    assert!(t[0].filter.is_some());
    assert!(cat
        .resolve_targets_with("nope", IndicesOptions::default())
        .is_err());
    // A hidden alias is skipped by wildcards but reached by name.
    cat.update_aliases(&[AliasAction::Add {
        indices: vec!["b".into()],
        aliases: vec!["hid".into()],
        meta: strata_search::AliasMeta {
            filter: Some(json!({"term": {"k": 3}})),
            is_hidden: Some(true),
            ..Default::default()
        },
    }])
    .unwrap();
    assert!(cat
        .resolve_targets_with("hi*", IndicesOptions::default())
        .unwrap()
        .is_empty());
    assert_eq!(
        cat.resolve_targets_with("hid", IndicesOptions::default())
            .unwrap()
            .len(),
        1
    );
    // An alias is not an index to delete.
    assert!(cat.delete("f1").is_err());
    cat.shutdown().unwrap();
}

/// A crash between saving a pending alias table and creating its index
/// (forgotten on open), or after creating it (finished on open).
#[test]
fn pending_alias_tables_are_finished_or_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("search");
    {
        let cat = Catalog::open(&root).unwrap();
        cat.create_index("p", &json!({"aliases": {"a": {}}}))
            .unwrap();
        cat.create_index("q", &json!(null)).unwrap();
        cat.shutdown().unwrap();
    }
    let file = root.join("aliases.json");
    let write = |pending_index: &str| {
        let doc = json!({
            "aliases": {"a": {"p": {}}},
            "pending": {"index": pending_index, "aliases": {"a": {pending_index: {"is_write_index": true}}}}
        });
        std::fs::write(&file, doc.to_string()).unwrap();
    };
    // The index was never created: the old table stands.
    write("never");
    {
        let cat = Catalog::open(&root).unwrap();
        let a = cat.aliases();
        assert_eq!(a.targets("a").unwrap().keys().collect::<Vec<_>>(), ["p"]);
        cat.shutdown().unwrap();
    }
    let stored: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert!(stored.get("pending").is_none());
    // The index exists: the pending table is the one that counts.
    write("q");
    let cat = Catalog::open(&root).unwrap();
    let a = cat.aliases();
    assert_eq!(a.targets("a").unwrap().keys().collect::<Vec<_>>(), ["q"]);
    assert_eq!(cat.write_index("a").unwrap().unwrap().name(), "q");
    cat.shutdown().unwrap();
}
