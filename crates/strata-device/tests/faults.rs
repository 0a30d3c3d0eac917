//! [`FaultyDirectory`] injects what it is told: failing writes, torn
//! writes, failing syncs, a full disk; and `heal` ends it all.

use crate::common;

use std::io;
use std::sync::Arc;

use common::content;
use strata_device::{Directory, FaultyDirectory, MemDirectory};

/// A faulty directory over memory, with the memory kept for crashes.
fn setup() -> (FaultyDirectory, MemDirectory) {
    let mem = MemDirectory::new();
    (FaultyDirectory::new(Arc::new(mem.clone())), mem)
}

fn os_error(result: io::Result<()>) -> Option<i32> {
    result.unwrap_err().raw_os_error()
}

#[test]
fn writes_fail_after_n() {
    let (dir, _) = setup();
    let faults = dir.faults();
    let device = dir.create("f").unwrap();
    device.write_all_at(b"before", 0).unwrap();
    faults.fail_writes_after(2);
    device.write_all_at(b"1", 6).unwrap();
    // A device opened later shares the switches.
    let other = dir.open("f").unwrap();
    other.write_all_at(b"2", 7).unwrap();
    assert_eq!(os_error(device.write_all_at(b"3", 8)), Some(libc::EIO));
    assert_eq!(os_error(other.write_all_at(b"4", 0)), Some(libc::EIO));
    assert_eq!(
        content(&*device),
        b"before12",
        "failed writes write nothing"
    );
    assert_eq!(faults.writes(), 5);

    faults.heal();
    device.write_all_at(b"3", 8).unwrap();
    assert_eq!(content(&*device), b"before123");
}

#[test]
fn torn_write_stores_a_prefix() {
    let (dir, _) = setup();
    let faults = dir.faults();
    let device = dir.create("f").unwrap();
    faults.tear_next_write(3);
    assert_eq!(os_error(device.write_all_at(b"abcdef", 0)), Some(libc::EIO));
    assert_eq!(content(&*device), b"abc");
    device.write_all_at(b"XYZ", 3).unwrap();
    assert_eq!(content(&*device), b"abcXYZ", "only the next write tears");

    faults.tear_next_write(100);
    assert!(device.write_all_at(b"!", 6).is_err());
    assert_eq!(content(&*device), b"abcXYZ!");
}

#[test]
fn syncs_fail_after_n_and_nothing_becomes_durable() {
    let (dir, mem) = setup();
    let faults = dir.faults();
    let device = dir.create("f").unwrap();
    faults.fail_syncs_after(1);
    dir.sync_names().unwrap();
    device.write_all_at(b"data", 0).unwrap();
    assert_eq!(os_error(device.sync()), Some(libc::EIO));
    assert_eq!(os_error(dir.sync_names()), Some(libc::EIO));
    assert_eq!(faults.syncs(), 3);
    assert_eq!(content(&*mem.crash().open("f").unwrap()), b"");

    faults.heal();
    device.sync().unwrap();
    assert_eq!(content(&*mem.crash().open("f").unwrap()), b"data");
}

#[test]
fn full_disk_returns_enospc() {
    let (dir, _) = setup();
    let faults = dir.faults();
    faults.set_capacity(100);
    let a = dir.create("a").unwrap();
    a.write_all_at(&[1; 60], 0).unwrap();
    let b = dir.create("b").unwrap();
    assert_eq!(os_error(b.write_all_at(&[2; 50], 0)), Some(libc::ENOSPC));
    assert_eq!(b.len().unwrap(), 0, "a refused write writes nothing");
    b.write_all_at(&[2; 40], 0).unwrap();
    // Overwrites need no space.
    a.write_all_at(&[3; 60], 0).unwrap();
    assert_eq!(os_error(a.write_all_at(&[3], 60)), Some(libc::ENOSPC));

    dir.remove("b").unwrap();
    a.write_all_at(&[3; 40], 60).unwrap();
    assert_eq!(a.len().unwrap(), 100);

    faults.heal();
    a.write_all_at(&[4; 1000], 100).unwrap();
    assert_eq!(a.len().unwrap(), 1100);
}
