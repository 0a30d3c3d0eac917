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
