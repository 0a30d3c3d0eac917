//! Simulated power cuts (`MemDirectory::crash` and `crash_torn`) after every
//! single device and directory operation of a checkpoint: until `finish`
//! returns, the previous snapshot stays the newest complete one; once it
//! returns, the new one survives.

use crate::common;

use std::io;
use std::sync::{Arc, Mutex};

use common::*;
use strata_device::{Device, Directory, MemDirectory};
use strata_snapshot::{
    newest_complete, remove_older_than, snapshot_name, Fallback, SnapshotWriter,
};

/// What a power cut right after one operation would leave.
struct CrashState {
    op: &'static str,
    clean: MemDirectory,
    torn: MemDirectory,
}

/// A directory that records the crash states after every mutating
/// operation on it or its devices.
#[derive(Clone)]
struct Recording {
    mem: MemDirectory,
    states: Arc<Mutex<Vec<CrashState>>>,
}

impl Recording {
    fn new(mem: &MemDirectory) -> Recording {
        Recording {
            mem: mem.clone(),
            states: Arc::default(),
        }
    }

    fn record(&self, op: &'static str) {
        let mut states = self.states.lock().unwrap();
        let seed = states.len() as u64 * 7919 + 1;
        states.push(CrashState {
            op,
            clean: self.mem.crash(),
            torn: self.mem.crash_torn(seed),
        });
    }

    fn take_states(&self) -> Vec<CrashState> {
        std::mem::take(&mut self.states.lock().unwrap())
    }

    fn wrap(&self, inner: Box<dyn Device>) -> Box<dyn Device> {
        Box::new(RecordingDevice {
            inner,
            dir: self.clone(),
        })
    }

    fn after<T>(&self, op: &'static str, result: io::Result<T>) -> io::Result<T> {
        self.record(op);
        result
    }
}

impl Directory for Recording {
    fn create(&self, name: &str) -> io::Result<Box<dyn Device>> {
        let device = self.after("create", self.mem.create(name))?;
        Ok(self.wrap(device))
    }
    fn open(&self, name: &str) -> io::Result<Box<dyn Device>> {
        Ok(self.wrap(self.mem.open(name)?))
    }
    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        self.after("rename", self.mem.rename(from, to))
    }
    fn remove(&self, name: &str) -> io::Result<()> {
        self.after("remove", self.mem.remove(name))
    }
    fn list(&self) -> io::Result<Vec<String>> {
        self.mem.list()
    }
    fn sync_names(&self) -> io::Result<()> {
        self.after("sync_names", self.mem.sync_names())
    }
}

struct RecordingDevice {
    inner: Box<dyn Device>,
    dir: Recording,
}

impl Device for RecordingDevice {
    fn len(&self) -> io::Result<u64> {
        self.inner.len()
    }
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        self.inner.read_exact_at(buf, offset)
    }
    fn write_all_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        self.dir
            .after("write", self.inner.write_all_at(buf, offset))
    }
    fn sync(&self) -> io::Result<()> {
        self.dir.after("sync", self.inner.sync())
    }
    fn set_len(&self, len: u64) -> io::Result<()> {
        self.dir.after("set_len", self.inner.set_len(len))
    }
}

/// The name of the newest complete snapshot, which must be readable.
fn newest(dir: &MemDirectory) -> Option<String> {
    let (name, info) = newest_complete(dir, Fallback::Strict).expect("no damage after a crash")?;
    assert_eq!(read_all(dir, &name).unwrap().len() as u64, info.records);
    Some(name)
}

#[test]
fn a_checkpoint_is_atomic_at_every_operation() {
    let mem = MemDirectory::new();
    let old_items = small_items(40);
    write_snapshot(&mem, 10, &old_items, small_blocks()).unwrap();
    let recording = Recording::new(&mem);
    let new_items = small_items(150);
    let info = write_snapshot(&recording, 20, &new_items, small_blocks()).unwrap();
    let states = recording.take_states();
    assert!(states.len() > 30, "only {} operations", states.len());
    // The last operation of `finish` is the directory sync that completes
    // the snapshot: every earlier crash keeps the old one.
    let (last, before) = states.split_last().unwrap();
    assert_eq!(last.op, "sync_names");
    for (i, state) in before.iter().enumerate() {
        for dir in [&state.clean, &state.torn] {
            assert_eq!(
                newest(dir),
                Some(snapshot_name(10)),
                "crash after operation {i} ({})",
                state.op
            );
        }
    }
    for dir in [&last.clean, &last.torn, &mem.crash()] {
        assert_eq!(newest(dir), Some(info.name.clone()));
        assert_eq!(read_all(dir, &info.name).unwrap(), new_items);
        assert_eq!(read_all(dir, &snapshot_name(10)).unwrap(), old_items);
    }
}

#[test]
fn the_first_checkpoint_leaves_nothing_until_it_completes() {
    let mem = MemDirectory::new();
    let recording = Recording::new(&mem);
    write_snapshot(&recording, 1, &small_items(30), small_blocks()).unwrap();
    let states = recording.take_states();
    let (last, before) = states.split_last().unwrap();
    for state in before {
        assert_eq!(newest(&state.clean), None);
        assert_eq!(newest(&state.torn), None);
    }
    assert_eq!(newest(&last.clean), Some(snapshot_name(1)));
}

#[test]
fn removing_old_snapshots_never_loses_the_new_one() {
    let mem = MemDirectory::new();
    for lsn in [5, 10, 15] {
        write_snapshot(&mem, lsn, &small_items(10), small_blocks()).unwrap();
    }
    let recording = Recording::new(&mem);
    let removed = remove_older_than(&recording, &snapshot_name(15)).unwrap();
    assert_eq!(removed, [snapshot_name(5), snapshot_name(10)]);
    for state in recording.take_states() {
        assert_eq!(newest(&state.clean), Some(snapshot_name(15)));
    }
    assert_eq!(names(&mem.crash()), [snapshot_name(15)]);
}

#[test]
fn a_stray_temp_file_from_a_crash_is_ignored_then_removed() {
    let mem = MemDirectory::new();
    write_snapshot(&mem, 10, &small_items(10), small_blocks()).unwrap();
    let mut writer =
        SnapshotWriter::create_with(&mem, &snapshot_name(20), 20, small_blocks()).unwrap();
    for item in &small_items(30) {
        writer.add(&item.as_item()).unwrap();
    }
    // Something else makes the names durable mid-write: the temp name
    // survives the crash, with whatever of its bytes the disk kept.
    mem.sync_names().unwrap();
    for seed in 0..20 {
        let after = mem.crash_torn(seed);
        assert!(names(&after).contains(&format!("{}.tmp", snapshot_name(20))));
        assert_eq!(newest(&after), Some(snapshot_name(10)));
        assert_eq!(
            remove_older_than(&after, &snapshot_name(10)).unwrap(),
            [format!("{}.tmp", snapshot_name(20))]
        );
        assert_eq!(names(&after.crash()), [snapshot_name(10)]);
    }
    writer.abort().unwrap();
    assert_eq!(names(&mem), [snapshot_name(10)]);
}
