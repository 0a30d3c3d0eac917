//! The conformance suite (`common`) against every directory: the file
//! system in both sync modes, memory, and the fault wrapper with no faults.

use crate::common;

use std::io::ErrorKind;
use std::path::Path;
use std::sync::Arc;

use common::{conformance, content};
use strata_device::{Directory, FaultyDirectory, FsDirectory, MemDirectory, SyncMode};

#[test]
fn fs_fdatasync() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDirectory::open(tmp.path().join("new/nested"), SyncMode::Fdatasync).unwrap();
    assert_eq!(dir.mode(), SyncMode::Fdatasync);
    conformance(&dir);
}

/// Runs the suite with `O_DIRECT` under `parent`, or, where the filesystem
/// refuses direct I/O, checks that the refusal is a clear error.
fn direct_or_clear_refusal(parent: &Path) {
    let tmp = tempfile::tempdir_in(parent).unwrap();
    match FsDirectory::open(tmp.path(), SyncMode::DirectDsync) {
        Ok(dir) => {
            conformance(&dir);
            // The logical length is exact on disk too, after padded writes.
            let device = dir.create("exact").unwrap();
            device.write_all_at(b"abc", 4095).unwrap();
            let on_disk = std::fs::metadata(tmp.path().join("exact")).unwrap().len();
            assert_eq!(on_disk, 4098);
        }
        Err(e) => {
            eprintln!(
                "{}: O_DIRECT refused, checking the error: {e}",
                parent.display()
            );
            assert_eq!(e.kind(), ErrorKind::Unsupported);
            assert!(e.to_string().contains("O_DIRECT"), "{e}");
        }
    }
}

#[test]
fn fs_direct_in_default_temp_dir() {
    direct_or_clear_refusal(&std::env::temp_dir());
}

#[test]
fn fs_direct_on_dev_shm() {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        direct_or_clear_refusal(shm);
    }
}

/// On the file system a written file is mapped, not copied, and a device
/// opened for block reads refuses writes; in memory both are copies and
/// plain devices.
#[test]
fn fs_maps_written_files_and_opens_them_read_only() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDirectory::open(tmp.path(), SyncMode::Fdatasync).unwrap();
    dir.replace("f", b"write-once").unwrap();
    let mapped = dir.open("f").unwrap().map().unwrap();
    assert!(mapped.is_mapped());
    assert_eq!(&*mapped, b"write-once");
    let faulty = FaultyDirectory::new(Arc::new(dir.clone()));
    assert!(faulty.open("f").unwrap().map().unwrap().is_mapped());
    let blocks = dir.open_for_blocks("f").unwrap();
    let refused = blocks.write_all_at(b"x", 0).unwrap_err();
    assert_eq!(refused.kind(), ErrorKind::PermissionDenied);
    assert_eq!(
        blocks.set_len(0).unwrap_err().kind(),
        ErrorKind::PermissionDenied
    );
    dir.remove("f").unwrap();
    assert_eq!(&*mapped, b"write-once", "a removed file's mapping stays");
    let mem = MemDirectory::new();
    mem.replace("f", b"in memory").unwrap();
    let copied = mem.open_for_blocks("f").unwrap().map().unwrap();
    assert!(!copied.is_mapped());
    assert_eq!(&*copied, b"in memory");
}

#[test]
fn fs_list_skips_subdirectories() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = FsDirectory::open(tmp.path(), SyncMode::Fdatasync).unwrap();
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    dir.create("file").unwrap();
    assert_eq!(dir.list().unwrap(), ["file"]);
}

#[test]
fn fs_reopen_sees_synced_files() {
    let tmp = tempfile::tempdir().unwrap();
    {
        let dir = FsDirectory::open(tmp.path(), SyncMode::Fdatasync).unwrap();
        let device = dir.create("log").unwrap();
        device.write_all_at(b"record", 0).unwrap();
        device.sync().unwrap();
        dir.sync_names().unwrap();
    }
    let dir = FsDirectory::open(tmp.path(), SyncMode::Fdatasync).unwrap();
    assert_eq!(content(&*dir.open("log").unwrap()), b"record");
}

#[test]
fn mem() {
    conformance(&MemDirectory::new());
}

#[test]
fn faulty_mem_without_faults() {
    let faulty = FaultyDirectory::new(Arc::new(MemDirectory::new()));
    conformance(&faulty);
    let faults = faulty.faults();
    assert!(faults.writes() > 0);
    assert!(faults.syncs() > 0);
}

#[test]
fn faulty_fs_without_faults() {
    let tmp = tempfile::tempdir().unwrap();
    let fs = FsDirectory::open(tmp.path(), SyncMode::Fdatasync).unwrap();
    let dir: Arc<dyn Directory> = Arc::new(fs);
    conformance(&FaultyDirectory::new(dir));
}
