//! [`FileSet`]: a user's immutable files kept on the store, for an engine
//! whose data comes as whole files (search's segment files, later
//! checkpoints). A file is cut into chunks of a fixed size, each one
//! entry, appended as runs of the set's [`StoreUser`]; the [`Catalog`]
//! (which entries hold each file) lives in one small file of the user's
//! own [`Directory`], replaced whole at each commit.
//!
//! - `catalog`: the catalog and its encoding.
//!
//! A commit (`commit(add, remove)`) is ordered so that a crash at any
//! point leaves the old or the new set whole: the new files' runs, a
//! store flush (they are durable), the catalog replaced (the commit
//! point), and only then the removed or replaced files' entries released.
//! At restart the owner loads the catalog ([`Catalog::load`]) and marks
//! its entries live ([`Catalog::mark`]) before
//! [`Recovery::finish`](crate::Recovery::finish), which frees whatever a
//! crash left unnamed. A removed file's entries may be reused after the
//! next flush: readers must be done with a file before it is removed.

mod catalog;

pub use catalog::Catalog;

use std::sync::Arc;

use bytes::Bytes;
use parking_lot::Mutex;
use strata_device::Directory;

use crate::error::SsdError;
use crate::recovery::Recovery;
use crate::store::SsdStore;
use crate::user::StoreUser;
use catalog::{Chunk, FileChunks};

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
}

/// A user's files on the store (see the module documentation). Cheap to
/// share behind an `Arc`; commits are serialized, reads are not.
pub struct FileSet {
    store: SsdStore,
    user: StoreUser,
    dir: Arc<dyn Directory>,
    /// The catalog's name in `dir`.
    name: String,
    /// Bytes per chunk entry (the last chunk of a file may be shorter).
    chunk: usize,
    /// The durable catalog; held through a whole commit.
    catalog: Mutex<Catalog>,
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
        Ok(FileSet {
            store,
            user,
            dir,
            name: name.to_owned(),
            chunk,
            catalog: Mutex::new(catalog),
        })
    }

    /// Adds the files `add` (a name already present is replaced) and
    /// removes the names in `remove` (absent ones are ignored), as one
    /// commit: durable when it returns `Ok`. On an error the set is as it
    /// was (entries appended for the new files are released).
    pub fn commit(&self, add: &[(&str, &[u8])], remove: &[&str]) -> Result<(), SsdError> {
        let mut catalog = self.catalog.lock();
        let chunks: Vec<&[u8]> = add
            .iter()
            .flat_map(|(_, bytes)| bytes.chunks(self.chunk))
            .collect();
        let locs = self.store.append_run(self.user, KIND_CHUNK, &chunks)?;
        let mut next = catalog.clone();
        let mut gone: Vec<FileChunks> = Vec::new();
        for name in remove {
            gone.extend(next.files.remove(*name));
        }
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
            gone.extend(next.files.insert((*name).to_owned(), file));
        }
        let written = self.store.flush().and_then(|()| {
            (self.dir.replace(&self.name, &next.encode()))
                .map_err(|e| SsdError::io(format!("replacing the file catalog {}", self.name), e))
        });
        if let Err(e) = written {
            let added = add.iter().filter_map(|(name, _)| next.files.get(*name));
            for chunk in added.flat_map(|f| &f.chunks) {
                let _ = self.store.release(chunk.loc, chunk.len as usize);
            }
            return Err(e);
        }
        *catalog = next;
        // The catalog no longer names them: their space may go. The
        // commit stands whatever happens here.
        for chunk in gone.iter().flat_map(|f| &f.chunks) {
            if let Err(error) = self.store.release(chunk.loc, chunk.len as usize) {
                tracing::warn!(%error, set = %self.name, "releasing a removed file's chunk");
            }
        }
        Ok(())
    }

    /// The length of `name`, if the set has it.
    pub fn len(&self, name: &str) -> Option<u64> {
        self.catalog.lock().files.get(name).map(|f| f.len)
    }

    /// The files' names, in order.
    pub fn names(&self) -> Vec<String> {
        self.catalog.lock().files.keys().cloned().collect()
    }

    /// Bytes per chunk: reads aligned to it read one entry each.
    pub fn chunk_size(&self) -> usize {
        self.chunk
    }

    /// The chunk `index` of `name` (each `chunk_size` bytes but the last),
    /// read through the store (CRC-checked; not kept in the record cache).
    pub fn read_chunk(&self, name: &str, index: usize) -> Result<Bytes, SsdError> {
        let chunk = self.chunk_at(name, index)?;
        self.store
            .read_hinted(chunk.loc, Some(chunk.len as usize), 0)
    }

    /// [`read_chunk`](Self::read_chunk) through the store's reader pool
    /// (never blocks an async runtime).
    pub async fn read_chunk_async(&self, name: &str, index: usize) -> Result<Bytes, SsdError> {
        let chunk = self.chunk_at(name, index)?;
        (self.store)
            .fetch_async(chunk.loc, Some(chunk.len as usize), 0)
            .await
    }

    /// `len` bytes of `name` from `offset`, across chunks; an error past
    /// the file's end.
    pub fn read(&self, name: &str, offset: u64, len: usize) -> Result<Vec<u8>, SsdError> {
        let size = self.len(name).ok_or(SsdError::Misuse("no such file"))?;
        if offset.checked_add(len as u64).is_none_or(|end| end > size) {
            return Err(SsdError::Misuse("a read past the end of the file"));
        }
        let mut out = Vec::with_capacity(len);
        let mut at = offset;
        while out.len() < len {
            let index = (at / self.chunk as u64) as usize;
            let bytes = self.read_chunk(name, index)?;
            let start = (at % self.chunk as u64) as usize;
            let take = (len - out.len()).min(bytes.len().saturating_sub(start));
            if take == 0 {
                return Err(SsdError::Misuse("a chunk shorter than the catalog says"));
            }
            out.extend_from_slice(&bytes[start..start + take]);
            at += take as u64;
        }
        Ok(out)
    }

    fn chunk_at(&self, name: &str, index: usize) -> Result<Chunk, SsdError> {
        let catalog = self.catalog.lock();
        let file = catalog
            .files
            .get(name)
            .ok_or(SsdError::Misuse("no such file"))?;
        file.chunks
            .get(index)
            .copied()
            .ok_or(SsdError::Misuse("a chunk past the end of the file"))
    }
}
