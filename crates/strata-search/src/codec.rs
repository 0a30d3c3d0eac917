//! `index.codec`: how an index compresses its stored fields (`_source`).
//!
//! Elasticsearch's `default` favours speed and `best_compression` size;
//! here they choose tantivy's document store compressor and block size:
//! `default` is LZ4 over 16 KiB blocks (tantivy's default), and
//! `best_compression` zstd (level 3) over 240 KiB blocks, as
//! Elasticsearch's own best-compression stored fields. The codec is
//! fixed when a shard's tantivy index is created (a static setting).

use tantivy::store::{Compressor, ZstdCompressor};

use crate::error::{Result, SearchError};

/// The stored-fields compression of an index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Codec {
    /// LZ4, small blocks: fast to write and to fetch.
    #[default]
    Default,
    /// zstd, large blocks: smaller on disk, slower to fetch a document.
    BestCompression,
}

/// zstd's level for `best_compression` (Elasticsearch uses 3 too).
const ZSTD_LEVEL: i32 = 3;
/// Block size of `best_compression` (Elasticsearch's 240 KiB).
const BEST_COMPRESSION_BLOCK: usize = 240 * 1024;

impl Codec {
    /// Parses a value of `index.codec`; Elasticsearch's legacy and Lucene
    /// names map to the same two choices.
    pub fn parse(text: &str) -> Result<Codec> {
        match text {
            "default" | "legacy_default" | "lucene_default" => Ok(Codec::Default),
            "best_compression" | "legacy_best_compression" => Ok(Codec::BestCompression),
            other => Err(SearchError::illegal(format!(
                "unknown value for [index.codec] must be one of [default, best_compression, legacy_default, legacy_best_compression, lucene_default] but was: {other}"
            ))),
        }
    }

    /// The name `GET _settings` shows.
    pub fn as_str(self) -> &'static str {
        match self {
            Codec::Default => "default",
            Codec::BestCompression => "best_compression",
        }
    }

    /// The tantivy settings a new shard index is created with.
    pub fn tantivy_settings(self) -> tantivy::IndexSettings {
        let mut settings = tantivy::IndexSettings::default();
        if self == Codec::BestCompression {
            settings.docstore_compression = Compressor::Zstd(ZstdCompressor {
                compression_level: Some(ZSTD_LEVEL),
            });
            settings.docstore_blocksize = BEST_COMPRESSION_BLOCK;
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
            Compressor::Zstd(_)
        ));
        assert!(matches!(
            Codec::Default.tantivy_settings().docstore_compression,
            Compressor::Lz4
        ));
    }
}
