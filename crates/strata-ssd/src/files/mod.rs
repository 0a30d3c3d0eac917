//! [`FileSet`]: a user's immutable files kept on the store, for an engine
//! whose data comes as whole files (search's segment files, later
//! checkpoints). A file is cut into chunks of a fixed size, each one
//! entry, appended as runs of the set's [`StoreUser`]; the [`Catalog`]
//! (which entries hold each file) lives in one small file of the user's
//! own [`Directory`], replaced whole at each commit.
//!
//! - `catalog`: the catalog and its encoding.
//! - `file`: [`SetFile`], a reader's handle on one file.
//!
//! A commit (`commit(add, remove)`) is ordered so that a crash at any
//! point leaves the old or the new set whole: the new files' runs, a
//! store flush (they are durable), the catalog replaced (the commit
//! point), and only then the removed or replaced files' entries released.
//! At restart the owner loads the catalog ([`Catalog::load`]) and marks
//! its entries live ([`Catalog::mark`]) before
//! [`Recovery::finish`](crate::Recovery::finish), which frees whatever a
//! crash left unnamed. A removed file's entries are released when the
//! last reader's [`SetFile`] handle on it is dropped (see `file`).

mod catalog;
mod file;

pub use catalog::Catalog;
pub use file::SetFile;

use std::collections::BTreeMap;
use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_device::Directory;

use crate::error::SsdError;
use crate::recovery::Recovery;
use crate::store::SsdStore;
use crate::user::StoreUser;
use catalog::{Chunk, FileChunks};
use file::Held;

/// The kind byte of a file's chunk entries.
const KIND_CHUNK: u8 = 1;

impl Catalog {
    /// Reads the catalog `name` of `dir`; an empty one for `device_id`
    /// when there is none yet. A catalog of another device is refused.
    pub fn load(dir: &dyn Directory, name: &str, device_id: u64) -> Result<Catalog, SsdError> {
        let io = |e| SsdError::io(format!("reading the file catalog {name}"), e);
        let device = match dir.open(name) {
            Ok(device) => device,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Catalog::empty(device_id))
            }
            Err(e) => return Err(io(e)),
        };
        let len = usize::try_from(device.len().map_err(io)?).unwrap_or(usize::MAX);
        let mut bytes = vec![0u8; len];
        device.read_exact_at(&mut bytes, 0).map_err(io)?;
        let catalog = Catalog::decode_named(&bytes, name)?;
        if catalog.device_id != device_id {
            return Err(SsdError::Catalog {
                name: name.to_owned(),
                reason: format!(
                    "it names entries of device {:#x}, not of this one ({device_id:#x})",
                    catalog.device_id
                ),
            });
        }
        Ok(catalog)
    }

    /// Marks every entry the catalog names live in `recovery` (after the
    /// primary's scan or adoption, before `finish`). An entry that is not
    /// on the device is an error: the catalog is only replaced after a
    /// flush made its entries durable.
    pub fn mark(&self, recovery: &Recovery) -> Result<(), SsdError> {
        recovery.set_live_many(self.entries())
    }

    /// Releases every entry the catalog names, for an owner whose catalog
    /// is durably gone and that never opened a set on it (so no reader
    /// holds its files).
    pub fn release(&self, store: &SsdStore) -> Result<(), SsdError> {
        self.entries()
            .try_for_each(|(loc, len)| store.release(loc, len))
    }
}

/// A user's files on the store (see the module documentation). Cheap to
/// share behind an `Arc`; commits are serialized, and readers never wait
/// for a commit's I/O.
pub struct FileSet {
    store: SsdStore,
    user: StoreUser,
    dir: Arc<dyn Directory>,
    /// The catalog's name in `dir`.
    name: Arc<str>,
    /// Bytes per chunk entry (the last chunk of a file may be shorter).
    chunk: usize,
    /// Held through a whole commit: one at a time.
    committing: Mutex<()>,
    /// The durable catalog and a handle on each file it names; replaced
    /// together once a commit's catalog is durable.
    state: Mutex<State>,
}

struct State {
    catalog: Catalog,
    files: BTreeMap<String, Arc<Held>>,
}

impl FileSet {
    /// The set whose catalog, `name` in `dir`, was loaded as `catalog` (and
    /// marked before the store's rebuild finished). `user` may not be the
    /// primary, and `chunk` must fit one entry.
    pub fn new(
        store: SsdStore,
        user: StoreUser,
        dir: Arc<dyn Directory>,
        name: &str,
        chunk: usize,
        catalog: Catalog,
    ) -> Result<FileSet, SsdError> {
        if user.is_primary() {
            return Err(SsdError::Misuse("the primary user keeps no file set"));
        }
        if chunk == 0 || chunk > store.max_payload() {
            return Err(SsdError::Config(format!(
                "file chunks of {chunk} bytes (1 to {} fit an entry)",
                store.max_payload()
            )));
        }
        if catalog.device_id != store.device_id() {
            return Err(SsdError::Misuse("a catalog of another device"));
        }
        let name: Arc<str> = name.into();
        let files = (catalog.files.iter())
            .map(|(file, chunks)| {
                let held = Held::new(store.clone(), name.clone(), chunk, chunks.clone());
                (file.clone(), Arc::new(held))
            })
            .collect();
        Ok(FileSet {
            store,
            user,
            dir,
            name,
            chunk,
            committing: Mutex::new(()),
            state: Mutex::new(State { catalog, files }),
        })
    }

    /// Adds the files `add` (a name already present is replaced) and
    /// removes the names in `remove` (absent ones are ignored), as one
    /// commit: durable when it returns `Ok`. On an error the set is as it
    /// was (entries appended for the new files are released). A removed
    /// or replaced file's entries go when no reader holds it any more.
    pub fn commit(&self, add: &[(&str, &[u8])], remove: &[&str]) -> Result<(), SsdError> {
        let _one_at_a_time = self.committing.lock();
        let chunks: Vec<&[u8]> = add
            .iter()
            .flat_map(|(_, bytes)| bytes.chunks(self.chunk))
            .collect();
        let locs = self.store.append_run(self.user, KIND_CHUNK, &chunks)?;
        let mut next = self.state.lock().catalog.clone();
        for name in remove {
            next.files.remove(*name);
        }
        let mut fresh: BTreeMap<String, Arc<Held>> = BTreeMap::new();
        let mut placed = locs.into_iter().zip(&chunks);
        for (name, bytes) in add {
            let file = FileChunks {
                len: bytes.len() as u64,
                chunks: (placed.by_ref())
                    .take(bytes.len().div_ceil(self.chunk))
                    .map(|(loc, piece)| Chunk {
                        loc,
                        len: piece.len() as u32,
                    })
                    .collect(),
            };
            next.files.insert((*name).to_owned(), file.clone());
            let held = Held::new(self.store.clone(), self.name.clone(), self.chunk, file);
            // A name added twice in one commit: only the last is named.
            if let Some(twice) = fresh.insert((*name).to_owned(), Arc::new(held)) {
                twice.retire();
            }
        }
        let written = self.store.flush().and_then(|()| {
            (self.dir.replace(&self.name, &next.encode()))
                .map_err(|e| SsdError::io(format!("replacing the file catalog {}", self.name), e))
        });
        if let Err(e) = written {
            // Dropping them releases their entries: no catalog names them.
            fresh.values().for_each(|held| held.retire());
            return Err(e);
        }
        let mut state = self.state.lock();
        // The catalog no longer names them: their entries go with their
        // last reader. The commit stands whatever happens then.
        for name in remove {
            state.files.remove(*name).inspect(|old| old.retire());
        }
        for (name, held) in fresh {
            state.files.insert(name, held).inspect(|old| old.retire());
        }
        state.catalog = next;
        Ok(())
    }

    /// Lets go of every file without writing a catalog, for an owner
    /// whose catalog is durably gone (its directory removed): each file's
    /// entries are released when its last reader drops it. Releasing while
    /// a durable catalog still names them would let a restart mark reused
    /// space.
    pub fn discard(&self) {
        let _one_at_a_time = self.committing.lock();
        let mut state = self.state.lock();
        for held in std::mem::take(&mut state.files).into_values() {
            held.retire();
        }
        state.catalog.files.clear();
    }

    /// A handle on `name`, if the set has it: readable until dropped, even
    /// after a commit removed the file.
    pub fn open(&self, name: &str) -> Option<SetFile> {
        let held = self.state.lock().files.get(name).cloned()?;
        Some(SetFile { held })
    }

    /// The length of `name`, if the set has it.
    pub fn len(&self, name: &str) -> Option<u64> {
        self.state.lock().catalog.files.get(name).map(|f| f.len)
    }

    /// The files' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.state.lock().files.keys().cloned().collect()
    }

    /// Bytes per chunk: reads aligned to it read one entry each.
    pub fn chunk_size(&self) -> usize {
        self.chunk
    }

    /// The chunk `index` of `name` (see [`SetFile::read_chunk`]).
    pub fn read_chunk(&self, name: &str, index: usize) -> Result<Bytes, SsdError> {
        self.opened(name)?.read_chunk(index)
    }

    /// [`read_chunk`](Self::read_chunk) through the store's reader pool
    /// (never blocks an async runtime).
    pub async fn read_chunk_async(&self, name: &str, index: usize) -> Result<Bytes, SsdError> {
        self.opened(name)?.read_chunk_async(index).await
    }

    /// `len` bytes of `name` from `offset` (see [`SetFile::read`]).
    pub fn read(&self, name: &str, offset: u64, len: usize) -> Result<Vec<u8>, SsdError> {
        self.opened(name)?.read(offset, len)
    }

    fn opened(&self, name: &str) -> Result<SetFile, SsdError> {
        self.open(name).ok_or(SsdError::Misuse("no such file"))
    }
}
