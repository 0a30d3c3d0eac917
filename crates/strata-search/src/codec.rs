//! `index.codec`: how an index compresses its stored fields (`_source`).
//!
//! Elasticsearch's `default` favours speed and `best_compression` size;
//! here they choose tantivy's document store compressor and block size:
//! `default` is zstd level 3 over 128 KiB blocks, and `best_compression`
//! zstd level 6 over 480 KiB blocks, Lucene's best-compression block. An
//! eventdata `_source` is about 1.2 KiB of JSON, much of it repeated from
//! document to document, and the block decides how much repetition the
//! compressor sees: LZ4 took 249 bytes a document over tantivy's default
//! 16 KiB blocks and 149 over 128 KiB; zstd level 3 takes 100 over 128
//! KiB, compressing as fast as zstd level 1 on these blocks (about 1 GB/s,
//! under a microsecond more a document than LZ4) and decompressing a block
//! in about 50 us. For `best_compression` (`zstd -b -B` over 20,000
//! eventdata sources): level 4 over 240 KiB took 72.5 bytes a document at
//! 239 MB/s; over 480 KiB level 5 takes 66.7 (233 MB/s), level 6 62.3 (195
//! MB/s), level 9 57.9 (155 MB/s). Level 9 was tried: in the server it
//! cost a tenth more indexing CPU and 30-70 MiB more peak RSS. tantivy
//! makes a zstd context per block, and level 9's for a 480 KiB input is
//! about 5.5 MiB (level 6's 3.0, level 4's over 240 KiB 1.1), allocated
//! and cleared for every block through glibc's malloc, whose per-thread
//! arenas kept them resident (the executable keeps glibc to two arenas
//! since). Fetching a document decompresses its whole block (480 KiB in
//! about 0.15 ms), so the readers keep a few decompressed blocks per
//! segment ([`store_cache_blocks`]).
//!
//! `best_compression` also has the string columns' dictionaries written
//! with zstd-compressed blocks (`store::tiered`, the vendored
//! `tantivy-sstable`'s per-thread switch): smaller, slower to decode for
//! `terms` and `cardinality`; `default` keeps them uncompressed.
//!
//! The codec is fixed when a shard's tantivy index is created (a static
//! setting); tantivy keeps the index's settings in its `meta.json` and
//! each store file names its compressor, so indices created with other
//! compressors (LZ4 `default` indices before zstd), block sizes or levels
//! open and read as they were written.

use tantivy::store::{Compressor, ZstdCompressor};

use crate::error::{Result, SearchError};

/// The stored-fields compression of an index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Codec {
    /// zstd at a fast level, 128 KiB blocks: fast to write and to fetch.
    #[default]
    Default,
    /// zstd, large blocks: smaller on disk, slower to fetch a document.
    BestCompression,
}

/// zstd's level for `default` (on 128 KiB blocks of eventdata sources,
/// 4% smaller than level 1 at the same speed).
const DEFAULT_ZSTD_LEVEL: i32 = 3;
/// zstd's level for `best_compression` (on 480 KiB blocks a seventh
/// smaller than level 4's over 240 KiB, at four fifths of its speed).
const BEST_COMPRESSION_ZSTD_LEVEL: i32 = 6;
/// Block size of `best_compression` (Lucene's `BEST_COMPRESSION` block):
/// past 256 KiB zstd's levels tune for large inputs, and a reader's cache
/// of 4 decompressed blocks stays within [`STORE_CACHE_BYTES`].
const BEST_COMPRESSION_BLOCK: usize = 480 * 1024;
/// Block size of `default`: a block is what a fetch decompresses, so
/// smaller than `best_compression`'s.
const DEFAULT_BLOCK: usize = 128 * 1024;
/// Decompressed store bytes a segment reader keeps cached, in blocks.
const STORE_CACHE_BYTES: usize = 2 * 1024 * 1024;

/// Decompressed blocks a segment's store reader caches for an index of
/// `block_size`: about [`STORE_CACHE_BYTES`], at least 4 (consecutive
/// hits share blocks) and at most tantivy's default of 100 (which 16 KiB
/// blocks of older indices keep).
pub fn store_cache_blocks(block_size: usize) -> usize {
    (STORE_CACHE_BYTES / block_size.max(1)).clamp(4, 100)
}

/// A shard's reader: reloaded by hand (at refreshes), caching
/// [`store_cache_blocks`] of the index's store blocks per segment.
pub fn open_reader(index: &tantivy::Index) -> tantivy::Result<tantivy::IndexReader> {
    index
        .reader_builder()
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .doc_store_cache_num_blocks(store_cache_blocks(index.settings().docstore_blocksize))
        .try_into()
}

impl Codec {
    /// Parses a value of `index.codec`; Elasticsearch's legacy and Lucene
    /// names map to the same two choices.
    pub(crate) fn parse(text: &str) -> Result<Codec> {
        match text {
            "default" | "legacy_default" | "lucene_default" => Ok(Codec::Default),
            "best_compression" | "legacy_best_compression" => Ok(Codec::BestCompression),
            other => Err(SearchError::illegal(format!(
                "unknown value for [index.codec] must be one of [default, best_compression, legacy_default, legacy_best_compression, lucene_default] but was: {other}"
            ))),
        }
    }

    /// The name `GET _settings` shows.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Codec::Default => "default",
            Codec::BestCompression => "best_compression",
        }
    }

    /// The tantivy settings a new shard index is created with.
    pub(crate) fn tantivy_settings(self) -> tantivy::IndexSettings {
        let mut settings = tantivy::IndexSettings::default();
        match self {
            Codec::Default => {
                settings.docstore_compression = Compressor::Zstd(ZstdCompressor {
                    compression_level: Some(DEFAULT_ZSTD_LEVEL),
                });
                settings.docstore_blocksize = DEFAULT_BLOCK;
            }
            Codec::BestCompression => {
                settings.docstore_compression = Compressor::Zstd(ZstdCompressor {
                    compression_level: Some(BEST_COMPRESSION_ZSTD_LEVEL),
                });
                settings.docstore_blocksize = BEST_COMPRESSION_BLOCK;
            }
        }
        settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_compressors() {
        assert_eq!(Codec::parse("default").unwrap(), Codec::Default);
        assert_eq!(
            Codec::parse("best_compression").unwrap().as_str(),
            "best_compression"
        );
        let err = Codec::parse("zip").unwrap_err().to_string();
        assert!(err.contains("but was: zip"), "{err}");
        assert!(matches!(
            Codec::BestCompression
                .tantivy_settings()
                .docstore_compression,
            Compressor::Zstd(ZstdCompressor {
                compression_level: Some(6)
            })
        ));
        assert!(matches!(
            Codec::Default.tantivy_settings().docstore_compression,
            Compressor::Zstd(ZstdCompressor {
                compression_level: Some(3)
            })
        ));
        assert_eq!(
            Codec::Default.tantivy_settings().docstore_blocksize,
            128 * 1024
        );
        assert_eq!(
            Codec::BestCompression.tantivy_settings().docstore_blocksize,
            480 * 1024
        );
    }
}

#[cfg(test)]
#[path = "codec_store_tests.rs"]
mod store_tests;
