//! [`SetFile`]: one file of a [`FileSet`](super::FileSet) as a reader
//! holds it. Its chunks stay on the store while anyone holds it: the set
//! retires a file when a commit removes or replaces it, and its entries
//! are released when the last holder (the set's table or a reader's
//! handle) lets go of a retired file. A reader that opened a file before
//! a commit removed it reads the same bytes until it drops the handle,
//! never entries the store reused.
//!
//! A file the set drops without retiring it (the set itself dropped at
//! shutdown) keeps its entries: the durable catalog still names them.

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;

use bytes::Bytes;

use super::catalog::{Chunk, FileChunks};
use crate::error::SsdError;
use crate::store::SsdStore;

/// A file's chunks and the store they are on; releases them on drop once
/// retired.
pub(super) struct Held {
    store: SsdStore,
    /// The set's catalog name, for messages.
    set: Arc<str>,
    /// Bytes per chunk (the last may be shorter).
    chunk: usize,
    file: FileChunks,
    /// No durable catalog will name it again.
    retired: AtomicBool,
}

impl Held {
    pub(super) fn new(store: SsdStore, set: Arc<str>, chunk: usize, file: FileChunks) -> Held {
        Held {
            store,
            set,
            chunk,
            file,
            retired: AtomicBool::new(false),
        }
    }

    /// From now on the file's entries go when the last holder drops it.
    pub(super) fn retire(&self) {
        self.retired.store(true, SeqCst);
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if !self.retired.load(SeqCst) {
            return;
        }
        for chunk in &self.file.chunks {
            if let Err(error) = self.store.release(chunk.loc, chunk.len as usize) {
                tracing::warn!(%error, set = %self.set, "releasing a removed file's chunk");
            }
        }
    }
}

/// A handle on one file of a set (see the module documentation). Cheap
/// to clone; reads go straight to the store, without the set's lock.
#[derive(Clone)]
pub struct SetFile {
    pub(super) held: Arc<Held>,
}

impl SetFile {
    /// The file's length in bytes.
    pub fn len(&self) -> u64 {
        self.held.file.len
    }

    /// Whether the file is empty.
    pub fn is_empty(&self) -> bool {
        self.held.file.len == 0
    }

    /// Bytes per chunk: reads aligned to it read one entry each.
    pub fn chunk_size(&self) -> usize {
        self.held.chunk
    }

    /// The number of chunks.
    pub fn chunks(&self) -> usize {
        self.held.file.chunks.len()
    }

    /// The chunk `index` (each `chunk_size` bytes but the last), read
    /// through the store (CRC-checked; not kept in the record cache).
    pub fn read_chunk(&self, index: usize) -> Result<Bytes, SsdError> {
        let chunk = self.chunk_at(index)?;
        (self.held.store).read_hinted(chunk.loc, Some(chunk.len as usize), 0)
    }

    /// [`read_chunk`](Self::read_chunk) through the store's reader pool
    /// (never blocks an async runtime).
    pub async fn read_chunk_async(&self, index: usize) -> Result<Bytes, SsdError> {
        let chunk = self.chunk_at(index)?;
        (self.held.store)
            .fetch_async(chunk.loc, Some(chunk.len as usize), 0)
            .await
    }

    /// `len` bytes from `offset`, across chunks; an error past the end.
    pub fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, SsdError> {
        if offset
            .checked_add(len as u64)
            .is_none_or(|end| end > self.len())
        {
            return Err(SsdError::Misuse("a read past the end of the file"));
        }
        let chunk = self.held.chunk as u64;
        let mut out = Vec::with_capacity(len);
        let mut at = offset;
        while out.len() < len {
            let bytes = self.read_chunk((at / chunk) as usize)?;
            let start = (at % chunk) as usize;
            let take = (len - out.len()).min(bytes.len().saturating_sub(start));
            if take == 0 {
                return Err(SsdError::Misuse("a chunk shorter than the catalog says"));
            }
            out.extend_from_slice(&bytes[start..start + take]);
            at += take as u64;
        }
        Ok(out)
    }

    fn chunk_at(&self, index: usize) -> Result<Chunk, SsdError> {
        (self.held.file.chunks.get(index).copied())
            .ok_or(SsdError::Misuse("a chunk past the end of the file"))
    }
}
