//! The permission bits of `Directory::create_with_permissions`,
//! `permissions` and `replace_with_permissions`, for every directory that
//! records them; and across power cuts and faults, a replaced device holds
//! its old content and bits or its new ones, whole.

use std::sync::Arc;

use strata_device::{
    Directory, Faults, FaultyDirectory, FsDirectory, MemDirectory, SyncMode, REPLACING,
};

const OLD: &[u8] = b"user default on nopass ~* &* +@all\n";
const NEW: &[u8] = b"user default on #5e88 ~* &* +@all\nuser alice on ~a:* +get\n";

/// The contract every implementation keeps.
fn contract(dir: &dyn Directory) {
    // The umask does not apply: 0o666 stays 0o666.
    dir.create_with_permissions("wide", 0o666).unwrap();
    assert_eq!(dir.permissions("wide").unwrap(), 0o666);
    let device = dir.create_with_permissions("secret", 0o600).unwrap();
    device.write_all_at(b"hash", 0).unwrap();
    device.sync().unwrap();
    assert_eq!(dir.permissions("secret").unwrap(), 0o600);
    // An existing device is truncated and takes the new bits.
    let device = dir.create_with_permissions("secret", 0o640).unwrap();
    assert_eq!(device.len().unwrap(), 0);
    assert_eq!(dir.permissions("secret").unwrap(), 0o640);
    // Bits above 0o7777 are not permissions.
    dir.create_with_permissions("masked", 0o100_600).unwrap();
    assert_eq!(dir.permissions("masked").unwrap(), 0o600);

    dir.replace_with_permissions("users.acl", OLD, 0o600)
        .unwrap();
    dir.replace_with_permissions("users.acl", NEW, 0o640)
        .unwrap();
    assert_eq!(dir.read_all("users.acl").unwrap(), NEW);
    assert_eq!(dir.permissions("users.acl").unwrap(), 0o640);
    let temporary = format!("users.acl{REPLACING}");
    assert!(!dir.list().unwrap().contains(&temporary));

    let missing = dir.permissions("missing").unwrap_err();
    assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
    assert!(dir.create_with_permissions("a/b", 0o600).is_err());
}

#[test]
fn fs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDirectory::open(tmp.path(), SyncMode::Fdatasync).unwrap();
    contract(&dir);
    // Plain `create` keeps the process's umask, as before.
    dir.create("plain").unwrap();
    let bits = dir.permissions("plain").unwrap();
    assert_eq!(bits & 0o111, 0, "no execute bits: {bits:o}");
}

#[test]
fn mem() {
    contract(&MemDirectory::new());
}

#[test]
fn faulty_over_mem_and_fs() {
    contract(&FaultyDirectory::new(Arc::new(MemDirectory::new())));
    let tmp = tempfile::tempdir().unwrap();
    let fs = FsDirectory::open(tmp.path(), SyncMode::Fdatasync).unwrap();
    contract(&FaultyDirectory::new(Arc::new(fs)));
}

#[test]
fn bits_survive_a_power_cut() {
    let mem = MemDirectory::new();
    mem.replace_with_permissions("users", OLD, 0o600).unwrap();
    for after in [mem.crash(), mem.crash_torn(7)] {
        assert_eq!(after.read_all("users").unwrap(), OLD);
        assert_eq!(after.permissions("users").unwrap(), 0o600);
    }
}

/// Old content with old bits, or new content with new bits; never a mix.
fn assert_old_or_new(dir: &MemDirectory, ok: bool) {
    let got = dir.read_all("users.acl").unwrap();
    let bits = dir.permissions("users.acl").unwrap();
    let old = got == OLD && bits == 0o644;
    let new = got == NEW && bits == 0o600;
    assert!(old || new, "torn: {got:?} with {bits:o}");
    if ok {
        assert!(new, "a successful replace was lost");
    }
}

#[test]
fn replace_with_permissions_survives_a_cut_at_every_sync_and_failing_write() {
    for (which, inject) in [
        (|f: &Faults, k| f.fail_syncs_after(k)) as fn(&Faults, u64),
        |f, k| f.fail_writes_after(k),
        |f, k| {
            f.fail_writes_after(k + 1);
            f.tear_next_write(5);
        },
    ]
    .into_iter()
    .enumerate()
    {
        for k in 0..4 {
            let mem = MemDirectory::new();
            mem.replace_with_permissions("users.acl", OLD, 0o644)
                .unwrap();
            let faulty = FaultyDirectory::new(Arc::new(mem.clone()));
            inject(&faulty.faults(), k);
            let ok = faulty
                .replace_with_permissions("users.acl", NEW, 0o600)
                .is_ok();
            // A failed write, or a failed sync before the rename (the
            // third sync is the names' after it), leaves the old file.
            if !ok && (which > 0 || k < 2) {
                assert_eq!(mem.read_all("users.acl").unwrap(), OLD);
            }
            assert_old_or_new(&mem.crash(), ok);
            for seed in 0..8 {
                assert_old_or_new(&mem.crash_torn(seed), ok);
            }
        }
    }
}
