//! A shard's tantivy index opened on its directory as its storage says:
//! created with the fixed schema and the index's codec when missing, and
//! given the index's text analyzer (`analysis`) before any writer or
//! reader exists, so every segment and every query of the index splits
//! text the same way.

use tantivy::Index;

use super::schema::SchemaFields;
use super::storage::ShardStorage;
use super::tiered::TieredDirectory;
use crate::error::Result;

/// The tantivy index in `dir`, opened or created.
pub(crate) fn open_index(dir: &TieredDirectory, storage: &ShardStorage) -> Result<Index> {
    let index = if Index::exists(dir).map_err(tantivy::TantivyError::from)? {
        Index::open(dir.clone())?
    } else {
        Index::create(
            dir.clone(),
            SchemaFields::build().schema,
            storage.codec.tantivy_settings(),
        )?
    };
    storage.text_tokens.register(index.tokenizers());
    Ok(index)
}
