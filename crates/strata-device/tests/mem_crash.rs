//! Simulated power cuts with [`MemDirectory`]: only what `sync` and
//! `sync_names` made durable survives `crash`; `crash_torn` keeps in
//! addition an in-order, possibly torn, prefix of the unsynced writes.

use crate::common;

use common::{content, model_write};
use proptest::prelude::*;
use strata_device::{Directory, MemDirectory};

fn read(dir: &MemDirectory, name: &str) -> Vec<u8> {
    content(&*dir.open(name).unwrap())
}

#[test]
fn unsynced_bytes_vanish_synced_survive() {
    let dir = MemDirectory::new();
    let device = dir.create("log").unwrap();
    dir.sync_names().unwrap();
    device.write_all_at(b"hello", 0).unwrap();
    assert_eq!(read(&dir.crash(), "log"), b"");

    device.sync().unwrap();
    device.write_all_at(b", world", 5).unwrap();
    device.write_all_at(b"J", 0).unwrap();
    assert_eq!(read(&dir.crash(), "log"), b"hello");
    assert_eq!(read(&dir, "log"), b"Jello, world");

    device.sync().unwrap();
    assert_eq!(read(&dir.crash(), "log"), b"Jello, world");
}

#[test]
fn unsynced_length_changes_vanish() {
    let dir = MemDirectory::new();
    let device = dir.create("f").unwrap();
    dir.sync_names().unwrap();
    device.write_all_at(b"0123456789", 0).unwrap();
    device.sync().unwrap();
    device.set_len(4).unwrap();
    assert_eq!(read(&dir.crash(), "f"), b"0123456789");
    device.sync().unwrap();
    assert_eq!(read(&dir.crash(), "f"), b"0123");

    // `create` on an existing name truncates, durably only after a sync.
    let again = dir.create("f").unwrap();
    assert_eq!(read(&dir, "f"), b"");
    assert_eq!(read(&dir.crash(), "f"), b"0123");
    again.sync().unwrap();
    assert_eq!(read(&dir.crash(), "f"), b"");
}

#[test]
fn unsynced_names_vanish_synced_survive() {
    let dir = MemDirectory::new();
    let kept = dir.create("kept").unwrap();
    kept.write_all_at(b"kept", 0).unwrap();
    kept.sync().unwrap();
    dir.sync_names().unwrap();

    // A synced file whose name was never made durable is lost.
    let fresh = dir.create("fresh").unwrap();
    fresh.write_all_at(b"fresh", 0).unwrap();
    fresh.sync().unwrap();
    // An unsynced rename and remove are undone.
    dir.rename("kept", "renamed").unwrap();
    let crashed = dir.crash();
    assert_eq!(crashed.list().unwrap(), ["kept"]);
    assert_eq!(read(&crashed, "kept"), b"kept");

    dir.remove("renamed").unwrap();
    assert_eq!(dir.crash().list().unwrap(), ["kept"]);

    dir.sync_names().unwrap();
    let crashed = dir.crash();
    assert_eq!(crashed.list().unwrap(), ["fresh"]);
    assert_eq!(read(&crashed, "fresh"), b"fresh");
}

#[test]
fn rename_over_target_is_atomic_across_a_crash() {
    let dir = MemDirectory::new();
    let old = dir.create("snapshot").unwrap();
    old.write_all_at(b"old", 0).unwrap();
    old.sync().unwrap();
    let new = dir.create("snapshot.tmp").unwrap();
    new.write_all_at(b"new", 0).unwrap();
    new.sync().unwrap();
    dir.sync_names().unwrap();

    dir.rename("snapshot.tmp", "snapshot").unwrap();
    let before = dir.crash();
    assert_eq!(before.list().unwrap(), ["snapshot", "snapshot.tmp"]);
    assert_eq!(read(&before, "snapshot"), b"old");

    dir.sync_names().unwrap();
    let after = dir.crash();
    assert_eq!(after.list().unwrap(), ["snapshot"]);
    assert_eq!(read(&after, "snapshot"), b"new");
}

#[test]
fn crash_leaves_an_independent_directory() {
    let dir = MemDirectory::new();
    let device = dir.create("f").unwrap();
    device.write_all_at(b"abc", 0).unwrap();
    device.sync().unwrap();
    dir.sync_names().unwrap();
    let crashed = dir.crash();
    crashed.open("f").unwrap().write_all_at(b"X", 0).unwrap();
    crashed.create("g").unwrap();
    assert_eq!(read(&dir, "f"), b"abc");
    assert_eq!(dir.list().unwrap(), ["f"]);
    // What survived is durable in the new directory.
    assert_eq!(read(&crashed.crash(), "f"), b"abc");
    // Clones share state.
    let clone = dir.clone();
    clone.create("h").unwrap();
    assert_eq!(dir.list().unwrap(), ["f", "h"]);
}

#[test]
fn crash_torn_drops_keeps_and_tears() {
    let dir = MemDirectory::new();
    let device = dir.create("f").unwrap();
    dir.sync_names().unwrap();
    device.write_all_at(&[7; 100], 0).unwrap();
    let (mut dropped, mut whole, mut torn) = (false, false, false);
    for seed in 0..200 {
        let left = read(&dir.crash_torn(seed), "f");
        assert!(left.len() <= 100 && left.iter().all(|&b| b == 7));
        assert_eq!(
            left,
            read(&dir.crash_torn(seed), "f"),
            "same seed, same cut"
        );
        match left.len() {
            0 => dropped = true,
            100 => whole = true,
            _ => torn = true,
        }
    }
    assert!(dropped && whole && torn);
}

/// One step of the property test, on file `file` of three.
#[derive(Debug, Clone)]
enum Op {
    Write {
        file: usize,
        offset: usize,
        bytes: Vec<u8>,
    },
    SetLen {
        file: usize,
        len: usize,
    },
    Sync {
        file: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..3usize, 0..64usize, prop::collection::vec(any::<u8>(), 1..24))
            .prop_map(|(file, offset, bytes)| Op::Write { file, offset, bytes }),
        1 => (0..3usize, 0..80usize).prop_map(|(file, len)| Op::SetLen { file, len }),
        1 => (0..3usize).prop_map(|file| Op::Sync { file }),
    ]
}

/// A file in the model: its durable content and the changes after it.
#[derive(Default)]
struct ModelFile {
    durable: Vec<u8>,
    unsynced: Vec<Op>,
}

fn apply(content: &mut Vec<u8>, op: &Op) {
    match op {
        Op::Write { offset, bytes, .. } => model_write(content, *offset, bytes),
        Op::SetLen { len, .. } => content.resize(*len, 0),
        Op::Sync { .. } => {}
    }
}

/// Every content a torn crash may leave: the durable content followed by
/// the first `k` unsynced changes, the last of them a write possibly cut.
fn possible_after_torn_crash(file: &ModelFile) -> Vec<Vec<u8>> {
    let mut possible = vec![file.durable.clone()];
    let mut state = file.durable.clone();
    for op in &file.unsynced {
        if let Op::Write { offset, bytes, .. } = op {
            for cut in 0..bytes.len() {
                let mut torn = state.clone();
                model_write(&mut torn, *offset, &bytes[..cut]);
                possible.push(torn);
            }
        }
        apply(&mut state, op);
        possible.push(state.clone());
    }
    possible
}

proptest! {
    #[test]
    fn crash_torn_keeps_an_in_order_prefix(ops in prop::collection::vec(op(), 0..40), seed in any::<u64>()) {
        let dir = MemDirectory::new();
        let names = ["a", "b", "c"];
        let devices: Vec<_> = names.iter().map(|name| dir.create(name).unwrap()).collect();
        dir.sync_names().unwrap();
        let mut model: Vec<ModelFile> = names.iter().map(|_| ModelFile::default()).collect();
        for op in &ops {
            match op {
                Op::Write { file, offset, bytes } => {
                    devices[*file].write_all_at(bytes, *offset as u64).unwrap();
                    model[*file].unsynced.push(op.clone());
                }
                Op::SetLen { file, len } => {
                    devices[*file].set_len(*len as u64).unwrap();
                    model[*file].unsynced.push(op.clone());
                }
                Op::Sync { file } => {
                    devices[*file].sync().unwrap();
                    let file = &mut model[*file];
                    for change in std::mem::take(&mut file.unsynced) {
                        apply(&mut file.durable, &change);
                    }
                }
            }
        }
        let crashed = dir.crash();
        let torn = dir.crash_torn(seed);
        for (name, file) in names.iter().zip(&model) {
            prop_assert_eq!(&read(&crashed, name), &file.durable);
            let left = read(&torn, name);
            prop_assert!(
                possible_after_torn_crash(file).contains(&left),
                "{name}: {left:?} is not the durable content plus a prefix of the writes"
            );
        }
    }
}
