//! Failing devices (`FaultyDirectory`): a full disk, a failed or torn write
//! and a failed sync each fail the checkpoint, never report it complete,
//! and leave the previous snapshot the newest complete one.

use crate::common;

use std::error::Error as _;
use std::io;
use std::sync::Arc;

use common::*;
use strata_device::{Faults, FaultyDirectory, MemDirectory};
use strata_snapshot::{newest_complete, snapshot_name, Fallback, SnapshotError, SnapshotWriter};

/// A directory holding a complete snapshot at LSN 10, and a faulty view of
/// it.
fn setup() -> (MemDirectory, FaultyDirectory, Arc<Faults>) {
    let mem = MemDirectory::new();
    write_snapshot(&mem, 10, &small_items(20), small_blocks()).unwrap();
    let faulty = FaultyDirectory::new(Arc::new(mem.clone()));
    let faults = faulty.faults();
    (mem, faulty, faults)
}

/// The old snapshot is the only file, now and after a power cut.
fn assert_only_the_old_snapshot(mem: &MemDirectory) {
    for dir in [mem, &mem.crash()] {
        assert_eq!(names(dir), [snapshot_name(10)]);
        let (name, _) = newest_complete(dir, Fallback::Strict).unwrap().unwrap();
        assert_eq!(name, snapshot_name(10));
        read_all(dir, &name).unwrap();
    }
}

fn io_source(error: &SnapshotError) -> &io::Error {
    error
        .source()
        .and_then(|s| s.downcast_ref::<io::Error>())
        .unwrap_or_else(|| panic!("not an I/O error: {error:?}"))
}

#[test]
fn a_full_disk_fails_the_checkpoint() {
    let (mem, faulty, faults) = setup();
    let used = file_bytes(&mem, &snapshot_name(10)).len() as u64;
    faults.set_capacity(used + 2000);
    let error = write_snapshot(&faulty, 20, &small_items(200), small_blocks()).unwrap_err();
    assert_eq!(io_source(&error).raw_os_error(), Some(libc::ENOSPC));
    assert_only_the_old_snapshot(&mem);
    // With space again, the next checkpoint works.
    faults.heal();
    write_snapshot(&faulty, 20, &small_items(200), small_blocks()).unwrap();
    let (name, _) = newest_complete(&mem.crash(), Fallback::Strict)
        .unwrap()
        .unwrap();
    assert_eq!(name, snapshot_name(20));
}

#[test]
fn a_failed_write_anywhere_fails_the_checkpoint() {
    let items = small_items(30);
    let writes = {
        let (_, faulty, faults) = setup();
        let before = faults.writes();
        write_snapshot(&faulty, 20, &items, small_blocks()).unwrap();
        faults.writes() - before
    };
    assert!(writes > 5);
    for n in 0..writes {
        let (mem, faulty, faults) = setup();
        faults.fail_writes_after(n);
        assert!(
            write_snapshot(&faulty, 20, &items, small_blocks()).is_err(),
            "write {n} failed"
        );
        assert_only_the_old_snapshot(&mem);
    }
}

#[test]
fn a_failed_sync_fails_the_checkpoint() {
    // Sync 0 is the file's, sync 1 the directory's after the rename.
    for n in 0..2 {
        let (mem, faulty, faults) = setup();
        faults.fail_syncs_after(n);
        let error = write_snapshot(&faulty, 20, &small_items(30), small_blocks()).unwrap_err();
        assert!(error.to_string().contains("sync"), "{error}");
        io_source(&error);
        assert_only_the_old_snapshot(&mem);
    }
}

#[test]
fn after_a_torn_write_the_writer_refuses_to_go_on() {
    let (mem, faulty, faults) = setup();
    let mut writer =
        SnapshotWriter::create_with(&faulty, &snapshot_name(20), 20, small_blocks()).unwrap();
    let items = small_items(100);
    let mut items = items.iter();
    for item in items.by_ref().take(10) {
        writer.add(&item.as_item()).unwrap();
    }
    faults.tear_next_write(50);
    let failed = items
        .by_ref()
        .map(|item| writer.add(&item.as_item()))
        .find(Result::is_err)
        .expect("a write failed");
    assert!(matches!(failed, Err(SnapshotError::Io { .. })));
    faults.heal();
    // No pretending: later adds and finish fail too.
    let next = items.next().unwrap();
    assert!(matches!(
        writer.add(&next.as_item()),
        Err(SnapshotError::WriterFailed { .. })
    ));
    assert!(matches!(
        writer.finish(),
        Err(SnapshotError::WriterFailed { .. })
    ));
    assert_only_the_old_snapshot(&mem);
}

#[test]
fn an_aborted_writer_leaves_no_trace() {
    let (mem, faulty, _) = setup();
    let mut writer = SnapshotWriter::create(&faulty, &snapshot_name(20), 20, None).unwrap();
    writer.add(&small_items(1)[0].as_item()).unwrap();
    writer.abort().unwrap();
    assert_only_the_old_snapshot(&mem);
}

#[test]
fn a_failed_directory_sync_keeps_a_replaced_snapshot_of_the_same_name() {
    let (mem, faulty, faults) = setup();
    let items = small_items(5);
    faults.fail_syncs_after(1);
    assert!(write_snapshot(&faulty, 10, &items, small_blocks()).is_err());
    // Taking the name back would leave no snapshot at all.
    assert_eq!(names(&mem), [snapshot_name(10)]);
    assert_eq!(read_all(&mem, &snapshot_name(10)).unwrap(), items);
}
