//! Helpers shared by the integration tests.

use std::path::Path;

use tempfile::TempDir;

/// A fresh directory on tmpfs (`/dev/shm`), removed when dropped; the
/// system temporary directory if there is no `/dev/shm`.
pub fn scratch_dir() -> TempDir {
    let shm = Path::new("/dev/shm");
    let mut builder = tempfile::Builder::new();
    builder.prefix("strata-pmem-");
    if shm.is_dir() {
        builder
            .tempdir_in(shm)
            .expect("temporary directory in /dev/shm")
    } else {
        builder.tempdir().expect("temporary directory")
    }
}
