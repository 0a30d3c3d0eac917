//! `Directory::replace` (the one atomic replace every JSON file of search
//! uses) and the directory trees: across a power cut at every sync and a
//! failing or tearing write, a replaced device holds its old or its new
//! content, whole.

use std::sync::Arc;

use strata_device::{
    Directory, DirectoryTree, Faults, FaultyDirectory, FaultyTree, FsTree, MemDirectory, MemTree,
    REPLACING,
};

const OLD: &[u8] = b"the old content, long enough to tear";
const NEW: &[u8] = b"the new content, of another length entirely";

/// A directory holding `OLD` durably, under a faulty wrapper.
fn setup() -> (MemDirectory, FaultyDirectory) {
    let mem = MemDirectory::new();
    mem.replace("meta.json", OLD).unwrap();
    let faulty = FaultyDirectory::new(Arc::new(mem.clone()));
    (mem, faulty)
}

fn assert_old_or_new(dir: &MemDirectory, ok: bool) {
    let got = dir.read_all("meta.json").unwrap();
    assert!(got == OLD || got == NEW, "torn: {got:?}");
    if ok {
        assert_eq!(got, NEW, "a successful replace was lost");
    }
}

#[test]
fn replace_survives_a_cut_at_every_sync_and_every_failing_write() {
    for inject in [
        (|f: &Faults, k| f.fail_syncs_after(k)) as fn(&Faults, u64),
        |f, k| f.fail_writes_after(k),
        |f, k| {
            f.fail_writes_after(k + 1);
            f.tear_next_write(5);
        },
    ] {
        for k in 0..3 {
            let (mem, faulty) = setup();
            inject(&faulty.faults(), k);
            let ok = faulty.replace("meta.json", NEW).is_ok();
            assert_old_or_new(&mem.crash(), ok);
            for seed in 0..8 {
                assert_old_or_new(&mem.crash_torn(seed), ok);
            }
        }
    }
    let (mem, faulty) = setup();
    faulty.replace("meta.json", NEW).unwrap();
    assert_eq!(mem.crash().read_all("meta.json").unwrap(), NEW);
    assert!(mem.list().unwrap().iter().all(|n| !n.ends_with(REPLACING)));
}

#[test]
fn trees_cut_every_directory_and_share_faults() {
    let mem = MemTree::new();
    let root = std::path::Path::new("/nonexistent/strata-tree-test");
    let a = mem.open_dir(&root.join("a")).unwrap();
    let b = mem.open_dir(&root.join("b")).unwrap();
    a.replace("x", b"durable").unwrap();
    b.create("y").unwrap().write_all_at(b"volatile", 0).unwrap();
    let after = mem.crash();
    assert_eq!(
        after
            .open_dir(&root.join("a"))
            .unwrap()
            .read_all("x")
            .unwrap(),
        b"durable"
    );
    assert!(after
        .open_dir(&root.join("b"))
        .unwrap()
        .list()
        .unwrap()
        .is_empty());
    mem.remove_dir(root).unwrap();
    assert!(mem.dir(&root.join("a")).is_none());

    let faulty = FaultyTree::new(Arc::new(MemTree::new()));
    faulty.faults().set_capacity(4);
    let c = faulty.open_dir(&root.join("c")).unwrap();
    let err = c.replace("z", b"too long").unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::ENOSPC));

    let disk = tempfile::tempdir().unwrap();
    let fs = FsTree::default()
        .open_dir(&disk.path().join("d/e"))
        .unwrap();
    fs.replace("f", b"on disk").unwrap();
    assert_eq!(
        std::fs::read(disk.path().join("d/e/f")).unwrap(),
        b"on disk"
    );
    FsTree::default()
        .remove_dir(&disk.path().join("d"))
        .unwrap();
    assert!(!disk.path().join("d").exists());
    FsTree::default()
        .remove_dir(&disk.path().join("d"))
        .unwrap();
}
