//! [`MemDirectory`]: devices in memory that remember what was made durable,
//! so that a test can cut the power ([`MemDirectory::crash`]) and check what
//! a restart finds.
//!
//! Model: names map to files (inodes), each one core memory image
//! (`crate::core::MemImage`: current bytes, durable bytes, the changes in
//! between; `file` adapts it to [`Device`]) and its permission bits; the
//! directory keeps its current names and its durable names (as of its last
//! `sync_names`). A crash keeps the durable names, each with its file's
//! durable bytes and its bits (durable once set, as the contract says).
//! Never used for real data.

mod file;

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicU32, Ordering};
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
    current: BTreeMap<String, Inode>,
    /// The names as of the last `sync_names`.
    durable: BTreeMap<String, Inode>,
}

/// The permission bits of a file created by plain `create`: what a file
/// gets on disk under the usual umask `022`.
const DEFAULT_MODE: u32 = 0o644;

/// One file: its bytes and its permission bits, shared by every name
/// entry (current and durable) that points to it.
#[derive(Clone)]
struct Inode {
    data: SharedFile,
    mode: Arc<AtomicU32>,
}

impl Inode {
    fn new(data: SharedFile, mode: u32) -> Inode {
        Inode {
            data,
            mode: Arc::new(AtomicU32::new(mode)),
        }
    }
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
        let files: BTreeMap<String, Inode> = names
            .durable
            .iter()
            .map(|(name, inode)| {
                let survived = MemImage::all_durable(content(&inode.data.lock()));
                let mode = inode.mode.load(Ordering::Acquire);
                (
                    name.clone(),
                    Inode::new(Arc::new(Mutex::new(survived)), mode),
                )
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

fn device(inode: &Inode) -> Box<dyn Device> {
    Box::new(MemDevice {
        file: inode.data.clone(),
    })
}

impl MemDirectory {
    /// `create`, giving a new file `mode`, and an existing one `mode` when
    /// asked to (`Some`).
    fn create_inode(&self, name: &str, new_mode: u32, set: Option<u32>) -> io::Result<Inode> {
        name::check(name)?;
        let mut names = self.names.lock();
        if let Some(inode) = names.current.get(name) {
            inode.data.lock().set_len(0);
            if let Some(mode) = set {
                inode.mode.store(mode, Ordering::Release);
            }
            return Ok(inode.clone());
        }
        let inode = Inode::new(SharedFile::default(), new_mode);
        names.current.insert(name.to_owned(), inode.clone());
        Ok(inode)
    }
}

impl Directory for MemDirectory {
    /// An existing file keeps its identity and is truncated (an unsynced
    /// change, like `O_TRUNC`).
    fn create(&self, name: &str) -> io::Result<Box<dyn Device>> {
        Ok(device(&self.create_inode(name, DEFAULT_MODE, None)?))
    }

    /// The bits are recorded on the file (inode) and survive any crash
    /// that keeps its name.
    fn create_with_permissions(&self, name: &str, mode: u32) -> io::Result<Box<dyn Device>> {
        let mode = mode & 0o7777;
        Ok(device(&self.create_inode(name, mode, Some(mode))?))
    }

    fn permissions(&self, name: &str) -> io::Result<u32> {
        name::check(name)?;
        let names = self.names.lock();
        let inode = names.current.get(name).ok_or_else(|| not_found(name))?;
        Ok(inode.mode.load(Ordering::Acquire))
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
