//! A small real filesystem for full-disk tests: a tmpfs of a chosen size
//! mounted on a temporary directory (root only), unmounted when dropped,
//! and a filler file that takes the space left.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A mounted tmpfs; unmounted (and its directory removed) on drop.
pub struct SmallFs {
    dir: Option<tempfile::TempDir>,
}

impl SmallFs {
    /// Mounts a tmpfs of `bytes` bytes, or says why it cannot (not root,
    /// no `mount`): the caller skips its test then.
    pub fn mount(bytes: u64) -> Result<SmallFs, String> {
        if !rustix::process::geteuid().is_root() {
            return Err("not root: cannot mount a small tmpfs".into());
        }
        let dir = tempfile::Builder::new()
            .prefix("strata-small-fs-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={bytes}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !status.success() {
            return Err(format!("mount -t tmpfs failed: {status}"));
        }
        Ok(SmallFs { dir: Some(dir) })
    }

    /// Where it is mounted.
    pub fn path(&self) -> &Path {
        self.dir.as_ref().expect("mounted until drop").path()
    }

    /// Fills the space left with a file (written until the filesystem
    /// refuses more); returns its path.
    pub fn fill(&self) -> PathBuf {
        let path = self.path().join("filler");
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .expect("create the filler");
        let chunk = vec![0x5au8; 64 << 10];
        loop {
            match file.write(&chunk) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::StorageFull => break,
                Err(e) => panic!("filling {}: {e}", path.display()),
            }
        }
        // Small writes take what a chunk could not.
        while let Ok(n) = file.write(&chunk[..4096]) {
            if n == 0 {
                break;
            }
        }
        let _ = File::sync_all(&file);
        path
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let Some(dir) = self.dir.take() else { return };
        let unmounted = Command::new("umount").arg(dir.path()).status();
        if !unmounted.is_ok_and(|s| s.success()) {
            // Still busy (a child not reaped yet): detach it now, it goes
            // when the last user does.
            let _ = Command::new("umount").arg("-l").arg(dir.path()).status();
        }
        drop(dir);
    }
}
