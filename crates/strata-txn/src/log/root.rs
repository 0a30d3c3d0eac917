//! [`LogRoot`]: a namespace of directories, one per log stream plus one
//! for checkpoints and the catalog.

use std::collections::BTreeMap;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use parking_lot::Mutex;
use strata_device::{Directory, Faults, FaultyDirectory, FsDirectory, MemDirectory, SyncMode};

use crate::log::PmemDirectory;

/// Where a database's durable files live: named directories.
pub trait LogRoot: Send + Sync {
    /// The directory `name` (created if missing).
    fn open(&self, name: &str) -> io::Result<Arc<dyn Directory>>;
    /// Names of the directories present.
    fn list(&self) -> io::Result<Vec<String>>;
    /// What and where, for reports.
    fn describe(&self) -> String;
}

/// Directories on a filesystem (`file`, `ramdisk`).
pub struct FsRoot {
    path: PathBuf,
    sync: SyncMode,
}

impl FsRoot {
    /// The root at `path` (created if missing).
    pub fn new(path: PathBuf, sync: SyncMode) -> io::Result<FsRoot> {
        std::fs::create_dir_all(&path)?;
        Ok(FsRoot { path, sync })
    }
}

impl LogRoot for FsRoot {
    fn open(&self, name: &str) -> io::Result<Arc<dyn Directory>> {
        Ok(Arc::new(FsDirectory::open(
            self.path.join(name),
            self.sync,
        )?))
    }

    fn list(&self) -> io::Result<Vec<String>> {
        list_dirs(&self.path)
    }

    fn describe(&self) -> String {
        format!("{} ({})", self.path.display(), self.sync)
    }
}

fn list_dirs(path: &std::path::Path) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(path)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
    }
    names.sort();
    Ok(names)
}

/// Persistent-memory directories (`pmem`).
pub struct PmemRoot {
    path: PathBuf,
    dirs: Mutex<BTreeMap<String, Arc<PmemDirectory>>>,
}

impl PmemRoot {
    /// The root at `path` (created if missing).
    pub fn new(path: PathBuf) -> io::Result<PmemRoot> {
        std::fs::create_dir_all(&path)?;
        Ok(PmemRoot {
            path,
            dirs: Mutex::new(BTreeMap::new()),
        })
    }
}

impl LogRoot for PmemRoot {
    /// Log streams go to persistent memory; checkpoints and the catalog,
    /// which are files read whole, to ordinary files beside them.
    fn open(&self, name: &str) -> io::Result<Arc<dyn Directory>> {
        if !name.starts_with("stream-") {
            return Ok(Arc::new(FsDirectory::open(
                self.path.join(name),
                SyncMode::Fdatasync,
            )?));
        }
        let mut dirs = self.dirs.lock();
        if let Some(dir) = dirs.get(name) {
            return Ok(Arc::clone(dir) as Arc<dyn Directory>);
        }
        let dir = Arc::new(PmemDirectory::open(self.path.join(name))?);
        dirs.insert(name.to_owned(), Arc::clone(&dir));
        Ok(dir)
    }

    fn list(&self) -> io::Result<Vec<String>> {
        list_dirs(&self.path)
    }

    fn describe(&self) -> String {
        format!("{} (pmem)", self.path.display())
    }
}

/// In-memory directories for tests: power cuts ([`MemRoot::crash`]) and
/// injected faults ([`MemRoot::faults`]) on every directory at once.
#[derive(Clone)]
pub struct MemRoot {
    dirs: Arc<Mutex<BTreeMap<String, MemDirectory>>>,
    faults: Arc<Faults>,
}

impl Default for MemRoot {
    fn default() -> MemRoot {
        MemRoot::new()
    }
}

impl MemRoot {
    /// An empty root.
    pub fn new() -> MemRoot {
        MemRoot {
            dirs: Arc::default(),
            faults: Arc::new(Faults::new()),
        }
    }

    /// The switches every directory's devices obey (see
    /// `strata_device::Faults`).
    pub fn faults(&self) -> Arc<Faults> {
        Arc::clone(&self.faults)
    }

    /// What a power cut leaves: only synced bytes and names.
    pub fn crash(&self) -> MemRoot {
        self.after(|d| d.crash())
    }

    /// A power cut that also keeps a random prefix of unsynced writes,
    /// the last one possibly torn.
    pub fn crash_torn(&self, seed: u64) -> MemRoot {
        let mut n = 0;
        self.after(|d| {
            n += 1;
            d.crash_torn(seed.wrapping_add(n))
        })
    }

    fn after(&self, mut f: impl FnMut(&MemDirectory) -> MemDirectory) -> MemRoot {
        let dirs = self
            .dirs
            .lock()
            .iter()
            .map(|(name, dir)| (name.clone(), f(dir)))
            .collect();
        MemRoot {
            dirs: Arc::new(Mutex::new(dirs)),
            faults: Arc::new(Faults::new()),
        }
    }
}

impl LogRoot for MemRoot {
    fn open(&self, name: &str) -> io::Result<Arc<dyn Directory>> {
        let mut dirs = self.dirs.lock();
        let dir = dirs.entry(name.to_owned()).or_default().clone();
        // Share the root's fault switches.
        let faulty = FaultyDirectory::with_faults(Arc::new(dir), Arc::clone(&self.faults));
        Ok(Arc::new(faulty))
    }

    fn list(&self) -> io::Result<Vec<String>> {
        Ok(self.dirs.lock().keys().cloned().collect())
    }

    fn describe(&self) -> String {
        "memory (test)".into()
    }
}
