//! The directory trees' listings (`list_dirs`, `list_files`): the real
//! filesystem and the memory tree list the same directories and files
//! with the same lengths, neither creates what it lists, a power cut keeps
//! the directories but only the durable files, and a faulty tree fails
//! creating and listing directories when told to.

use std::path::Path;
use std::sync::Arc;

use strata_device::{DirectoryTree, FaultyTree, FsTree, MemTree};

/// Builds the same small tree in `tree` under `root`: `a/b` holding a
/// durable file and an unsynced one, and an empty `c`.
fn build(tree: &dyn DirectoryTree, root: &Path) {
    let b = tree.open_dir(&root.join("a").join("b")).unwrap();
    b.replace("durable", b"12345").unwrap();
    b.create("volatile")
        .unwrap()
        .write_all_at(b"123", 0)
        .unwrap();
    tree.open_dir(&root.join("c")).unwrap();
}

fn listings(
    tree: &dyn DirectoryTree,
    root: &Path,
) -> (Vec<String>, Vec<String>, Vec<(String, u64)>) {
    (
        tree.list_dirs(root).unwrap(),
        tree.list_dirs(&root.join("a")).unwrap(),
        tree.list_files(&root.join("a").join("b")).unwrap(),
    )
}

#[test]
fn fs_and_mem_trees_list_alike_without_creating() {
    let disk = tempfile::tempdir().unwrap();
    let fs = FsTree::default();
    let mem = MemTree::new();
    build(&fs, disk.path());
    build(&mem, disk.path());
    let expected = (
        vec!["a".to_string(), "c".to_string()],
        vec!["b".to_string()],
        vec![("durable".to_string(), 5), ("volatile".to_string(), 3)],
    );
    assert_eq!(listings(&fs, disk.path()), expected);
    assert_eq!(listings(&mem, disk.path()), expected);
    // Files are not directories and directories are not files.
    assert!(fs.list_dirs(&disk.path().join("a/b")).unwrap().is_empty());
    assert!(mem.list_dirs(&disk.path().join("a/b")).unwrap().is_empty());
    assert!(fs.list_files(&disk.path().join("a")).unwrap().is_empty());
    assert!(mem.list_files(&disk.path().join("a")).unwrap().is_empty());

    let absent = disk.path().join("absent");
    for tree in [&fs as &dyn DirectoryTree, &mem] {
        assert!(tree.list_dirs(&absent).unwrap().is_empty());
        assert!(tree.list_files(&absent).unwrap().is_empty());
    }
    assert!(!absent.exists(), "listing created the directory");
    assert!(!mem
        .list_dirs(disk.path())
        .unwrap()
        .contains(&"absent".into()));

    // A power cut keeps every directory, and only the durable file.
    let after = mem.crash();
    assert_eq!(
        listings(&after, disk.path()),
        (expected.0, expected.1, vec![("durable".to_string(), 5)])
    );
    mem.remove_dir(&disk.path().join("a")).unwrap();
    assert_eq!(mem.list_dirs(disk.path()).unwrap(), vec!["c".to_string()]);
}

#[test]
fn faulty_tree_fails_creating_and_listing_directories() {
    let root = Path::new("/nonexistent/strata-tree-listing");
    let mem = MemTree::new();
    let faulty = FaultyTree::new(Arc::new(mem.clone()));
    faulty.faults().fail_tree_ops_after(1);
    let before = faulty.faults().tree_ops();
    faulty.open_dir(&root.join("ok")).unwrap();
    let eio = Some(libc::EIO);
    assert_eq!(
        faulty
            .open_dir(&root.join("no"))
            .err()
            .unwrap()
            .raw_os_error(),
        eio
    );
    assert!(
        mem.dir(&root.join("no")).is_none(),
        "a failed open_dir created"
    );
    assert_eq!(faulty.list_dirs(root).unwrap_err().raw_os_error(), eio);
    assert_eq!(faulty.list_files(root).unwrap_err().raw_os_error(), eio);
    assert_eq!(faulty.faults().tree_ops() - before, 4);
    // Writes and syncs are not tree operations.
    faulty.faults().heal();
    let dir = faulty.open_dir(&root.join("ok")).unwrap();
    faulty.faults().fail_tree_ops_after(0);
    dir.replace("x", b"still written").unwrap();
    faulty.faults().heal();
    assert_eq!(faulty.list_dirs(root).unwrap(), vec!["ok".to_string()]);
    assert_eq!(
        faulty.list_files(&root.join("ok")).unwrap(),
        vec![("x".to_string(), 13)]
    );
}
