//! A shard's stored sources: shaped by its [`SourceShapes`] when indexed,
//! read back through them, and the table saved before each commit; and
//! the store readers its documents are loaded through ([`StoreReaders`]).

use std::borrow::Cow;
use std::sync::Arc;

use tantivy::Searcher;

use super::Shard;
use crate::error::{Result, SearchError};
use crate::store::source_shapes::SourceShapes;
use crate::store::stored_doc::StoreReaders;

impl Shard {
    /// The shapes of the shard's stored sources.
    pub(crate) fn source_shapes(&self) -> &SourceShapes {
        &self.shapes
    }

    /// The `_source` of a document whose stored bytes are `stored`.
    pub(crate) fn source_of<'a>(&self, stored: &'a [u8]) -> Result<Cow<'a, [u8]>> {
        self.shapes
            .decode(stored)
            .map_err(|e| SearchError::io(format!("read a source of shard {}", self.number), e))
    }

    /// The store readers for documents of `searcher`: the shard's, shared
    /// by every fetch of its newest generation, or new ones for an older
    /// searcher (a point in time), kept by the caller for its fetch.
    pub(crate) fn store_readers(&self, searcher: &Searcher) -> Arc<StoreReaders> {
        let generation = searcher.generation().generation_id();
        let mut current = self.stores.lock();
        match current.as_ref() {
            Some(readers) if readers.generation == generation => Arc::clone(readers),
            Some(readers) if readers.generation > generation => {
                Arc::new(StoreReaders::new(searcher))
            }
            _ => {
                let readers = Arc::new(StoreReaders::new(searcher));
                *current = Some(Arc::clone(&readers));
                readers
            }
        }
    }

    /// Reloads the reader and drops the store readers of the generation
    /// before, which would otherwise hold its segments' files (the fresh
    /// copies a flush persisted, merged-away segments) until the next
    /// fetch.
    pub(super) fn reload_reader(&self) -> Result<()> {
        self.reader.reload()?;
        *self.stores.lock() = None;
        Ok(())
    }

    /// Saves the shapes added since the last save (before a commit, which
    /// may hold documents of them).
    pub(super) fn save_source_shapes(&self) -> Result<()> {
        self.shapes.save(&self.dir).map_err(|e| {
            SearchError::io(
                format!("save the source shapes of shard {}", self.number),
                e,
            )
        })
    }
}
