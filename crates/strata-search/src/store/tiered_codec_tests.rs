//! The string columns' dictionaries follow the index's codec: compressed
//! for `best_compression` (in the segments indexing writes and in those
//! merges write), as written before for `default`, and readable both ways.

use std::sync::Arc;

use tantivy::index::SegmentComponent;
use tantivy::schema::{Schema, FAST, STRING};
use tantivy::{doc, Directory, Index, IndexWriter};

use super::tiered::TieredDirectory;
use super::{BlockCache, SearchStorage, StoreTier};
use crate::codec::Codec;

/// Bytes of the fast-field files of the one segment left after indexing
/// 2 x 10,000 distinct timestamps in two commits and merging them.
fn merged_column_bytes(codec: Codec) -> u64 {
    let tmp = tempfile::tempdir().unwrap();
    let node = SearchStorage {
        default_tier: StoreTier::Dram,
        cache: Arc::new(BlockCache::new(1 << 20)),
        ..Default::default()
    };
    let mut storage = node.for_shard(StoreTier::Dram, None, 0, &Arc::default());
    storage.codec = codec;
    let dir = TieredDirectory::open(tmp.path(), &storage).unwrap();
    let mut builder = Schema::builder();
    let field = builder.add_text_field("ts", STRING | FAST);
    let index = Index::create(dir.clone(), builder.build(), Default::default()).unwrap();
    let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
    for round in 0..2 {
        for i in 0..10_000 {
            let ts = format!(
                "2026-01-01T{:02}:{:02}:{:02}.{round}{:02}Z",
                i / 3600,
                i / 60 % 60,
                i % 60,
                i % 97
            );
            writer.add_document(doc!(field => ts)).unwrap();
        }
        writer.commit().unwrap();
    }
    let ids = index.searchable_segment_ids().unwrap();
    writer.merge(&ids).wait().unwrap();
    writer.wait_merging_threads().unwrap();
    let segments = index.searchable_segments().unwrap();
    assert_eq!(segments.len(), 1);
    let searcher = index.reader().unwrap().searcher();
    let column = searcher
        .segment_reader(0)
        .fast_fields()
        .str("ts")
        .unwrap()
        .unwrap();
    assert_eq!(column.num_terms(), 20_000);
    let ord = column
        .dictionary()
        .term_ord("2026-01-01T00:00:07.107Z")
        .unwrap();
    assert!(ord.is_some(), "{codec:?}: a term reads back");
    let path = segments[0]
        .meta()
        .relative_path(SegmentComponent::FastFields);
    dir.open_read(&path).unwrap().num_bytes().get_bytes()
}

#[test]
fn best_compression_compresses_the_dictionaries_default_does_not() {
    let default = merged_column_bytes(Codec::Default);
    let best = merged_column_bytes(Codec::BestCompression);
    assert!(
        (best as f64) < 0.7 * default as f64,
        "best_compression {best} bytes against default {default}"
    );
}
