//! A shard's stored sources: shaped by its [`SourceShapes`] when indexed,
//! read back through them, and the table saved before each commit.

use std::borrow::Cow;

use super::Shard;
use crate::error::{Result, SearchError};
use crate::store::source_shapes::SourceShapes;

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
