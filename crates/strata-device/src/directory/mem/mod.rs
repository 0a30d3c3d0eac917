//! [`MemDirectory`]: devices in memory that remember what was made durable,
//! so that a test can cut the power ([`MemDirectory::crash`]) and check what
//! a restart finds.
//!
//! Model: names map to files (inodes), each one core memory image
//! (`crate::core::MemImage`: current bytes, durable bytes, the changes in
//! between; `file` adapts it to [`Device`]); the directory keeps its
//! current names and its durable names (as of its last `sync_names`). A
//! crash keeps the durable names, each with its file's durable bytes. Never
//! used for real data.

mod file;

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::core::{MemImage, SplitMix, TornCut};
use crate::directory::name;
use crate::{Device, Directory};
use file::{MemDevice, SharedFile};

/// An in-memory [`Directory`] that simulates power cuts.
///
/// Clones share the same state. Thread-safe; locks are taken directory
/// first, then file.
#[derive(Clone, Default)]
pub struct MemDirectory {
    names: Arc<Mutex<Names>>,
}

#[derive(Default)]
struct Names {
    current: BTreeMap<String, SharedFile>,
    /// The names as of the last `sync_names`.
    durable: BTreeMap<String, SharedFile>,
}

impl MemDirectory {
    /// An empty directory.
    pub fn new() -> MemDirectory {
        MemDirectory::default()
    }

    /// What a power cut leaves, as a new independent directory: the names
    /// made durable by `sync_names`, each with the bytes (and length) made
    /// durable by `sync` on its device. Everything else is dropped. `self`
    /// is unchanged.
    pub fn crash(&self) -> MemDirectory {
        self.after_power_cut(MemImage::after_crash)
    }

    /// Like [`crash`](Self::crash), but each file also keeps a random prefix
    /// of its unsynced changes, in order, the last kept write possibly torn
    /// (only a random prefix of its bytes arrives): what a real disk may
    /// leave. Names are exactly as in `crash`. The same `seed` on the same
    /// history gives the same result.
    pub fn crash_torn(&self, seed: u64) -> MemDirectory {
        let mut rng = SplitMix::new(seed);
        self.after_power_cut(|file| file.after_torn_crash(&mut rng, TornCut::InOrderPrefix))
    }

    fn after_power_cut(&self, mut content: impl FnMut(&MemImage) -> Vec<u8>) -> MemDirectory {
        let names = self.names.lock();
        let files: BTreeMap<String, SharedFile> = names
            .durable
            .iter()
            .map(|(name, file)| {
                let survived = MemImage::all_durable(content(&file.lock()));
                (name.clone(), Arc::new(Mutex::new(survived)))
            })
            .collect();
        MemDirectory {
            names: Arc::new(Mutex::new(Names {
                current: files.clone(),
                durable: files,
            })),
        }
    }
}

fn not_found(name: &str) -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, format!("no device named {name:?}"))
}

fn device(file: &SharedFile) -> Box<dyn Device> {
    Box::new(MemDevice { file: file.clone() })
}

impl Directory for MemDirectory {
    /// An existing file keeps its identity and is truncated (an unsynced
    /// change, like `O_TRUNC`).
    fn create(&self, name: &str) -> io::Result<Box<dyn Device>> {
        name::check(name)?;
        let mut names = self.names.lock();
        if let Some(file) = names.current.get(name) {
            file.lock().set_len(0);
            return Ok(device(file));
        }
        let file = SharedFile::default();
        names.current.insert(name.to_owned(), file.clone());
        Ok(device(&file))
    }

    fn open(&self, name: &str) -> io::Result<Box<dyn Device>> {
        name::check(name)?;
        let names = self.names.lock();
        names
            .current
            .get(name)
            .map(device)
            .ok_or_else(|| not_found(name))
    }

    fn rename(&self, from: &str, to: &str) -> io::Result<()> {
        name::check(from)?;
        name::check(to)?;
        let mut names = self.names.lock();
        let file = names.current.remove(from).ok_or_else(|| not_found(from))?;
        names.current.insert(to.to_owned(), file);
        Ok(())
    }

    fn remove(&self, name: &str) -> io::Result<()> {
        name::check(name)?;
        let mut names = self.names.lock();
        names
            .current
            .remove(name)
            .map(drop)
            .ok_or_else(|| not_found(name))
    }

    fn list(&self) -> io::Result<Vec<String>> {
        Ok(self.names.lock().current.keys().cloned().collect())
    }

    fn sync_names(&self) -> io::Result<()> {
        let mut names = self.names.lock();
        names.durable = names.current.clone();
        Ok(())
    }
}
