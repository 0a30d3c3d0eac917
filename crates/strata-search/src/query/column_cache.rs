//! Opened single-valued `i64` columns (the date column of every time
//! window) by segment, so that a search does not open them again.
//!
//! Every search of a dashboard has a time window, and each of its segments
//! opens the date column for it, often twice (the window's range and the
//! time buckets). Opening a blockwise-linear column decodes the header of
//! each of its blocks (one per 512 rows) into a new vector, and a column
//! read through the block cache is copied out of it first: 7% of the
//! traffic dashboard's CPU on a quiet server. Opened once, a column is
//! kept in a [`SegmentCache`], read through its stored `u64`s
//! ([`StoredValues`]).
//!
//! An open column holds the bytes it reads. For a file kept whole in DRAM
//! (`dram` placement) those are the file's own; read through the block
//! cache (`ssd`, `pmem`), they are a copy outside `search_cache_size`,
//! which is why the cache is bounded by the columns' bytes
//! ([`CACHE_BYTES`]). A segment's entries are dropped when its files are
//! deleted or its fresh copies are replaced by the flushed ones
//! ([`forget_file`]), so a cached column never keeps a dropped file alive
//! beyond the searches still using it.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use tantivy::columnar::{Cardinality, ColumnType, ColumnValues};
use tantivy::index::SegmentId;
use tantivy::SegmentReader;

use super::segment_cache::SegmentCache;
use crate::store::stored_values::StoredValues;

/// Bytes of column data the cache holds at most.
const CACHE_BYTES: usize = 64 << 20;

/// What an entry weighs besides its column's bytes (the decoded headers,
/// the key): also the weight of a segment without such a column.
const ENTRY_BYTES: usize = 256;

/// A segment's column, or `None` where it has no single-valued `i64` one.
type Cached = Option<Arc<dyn ColumnValues<i64>>>;

static CACHE: LazyLock<SegmentCache<Cached>> = LazyLock::new(|| SegmentCache::new(CACHE_BYTES));

/// The values of the segment's column `name` when it holds exactly one
/// `i64` per document (row = document), opened once per segment.
pub fn dense_i64_column(
    reader: &SegmentReader,
    name: &str,
) -> tantivy::Result<Option<Arc<dyn ColumnValues<i64>>>> {
    let cached = CACHE.get_or_try_build(reader.segment_id(), name, || {
        open_dense_i64(reader, name).map(|(column, bytes)| (column, bytes + ENTRY_BYTES))
    })?;
    Ok(cached.as_ref().clone())
}

/// Opens the column as [`dense_i64_column`] describes, with its size.
fn open_dense_i64(reader: &SegmentReader, name: &str) -> tantivy::Result<(Cached, usize)> {
    let handles = reader.fast_fields().dynamic_column_handles(name)?;
    let [handle] = handles.as_slice() else {
        return Ok((None, 0));
    };
    if handle.column_type() != ColumnType::I64 {
        return Ok((None, 0));
    }
    // Read through the stored u64s: see `StoredValues`.
    let Some(column) = handle.open_u64_lenient()? else {
        return Ok((None, 0));
    };
    if column.get_cardinality() != Cardinality::Full {
        return Ok((None, 0));
    }
    let values: Arc<dyn ColumnValues<i64>> = Arc::new(StoredValues::<i64>::new(column.values));
    Ok((Some(values), handle.num_bytes().get_bytes() as usize))
}

/// The file `path` of a segment was deleted, or its fresh copy dropped:
/// forget the segment's columns. Names that are not segment files
/// (`meta.json`) are ignored.
pub fn forget_file(path: &Path) {
    if let Some(segment) = segment_of(path) {
        CACHE.forget(segment);
    }
}

/// Whether `column` of `segment` is cached (for tests of the forgetting).
#[cfg(test)]
pub(crate) fn is_cached(segment: SegmentId, column: &str) -> bool {
    CACHE.contains(segment, column)
}

/// The segment a file belongs to, from its name (`<uuid>.<extension>`).
fn segment_of(path: &Path) -> Option<SegmentId> {
    let stem = path.file_stem()?.to_str()?;
    SegmentId::from_uuid_string(stem).ok()
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{Schema, FAST, INDEXED};
    use tantivy::{doc, Index, IndexWriter};

    use super::*;

    #[test]
    fn a_column_is_opened_once_per_segment_until_its_files_go() {
        let mut builder = Schema::builder();
        let date = builder.add_i64_field("t", FAST | INDEXED);
        let sparse = builder.add_i64_field("s", FAST);
        let index = Index::create_in_ram(builder.build());
        let mut writer: IndexWriter = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for i in 0..1_000i64 {
            let mut d = doc!(date => i * 10);
            if i % 2 == 0 {
                d.add_i64(sparse, i);
            }
            writer.add_document(d).unwrap();
        }
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let segment = searcher.segment_reader(0);

        let first = dense_i64_column(segment, "t").unwrap().unwrap();
        assert_eq!(first.get_val(7), 70);
        let again = dense_i64_column(segment, "t").unwrap().unwrap();
        assert!(Arc::ptr_eq(&first, &again), "served from the cache");
        // Not one value per document, or no such column: none, also cached.
        assert!(dense_i64_column(segment, "s").unwrap().is_none());
        assert!(dense_i64_column(segment, "missing").unwrap().is_none());

        // Another file name of the same segment drops its entries.
        let id = segment.segment_id();
        forget_file(Path::new("meta.json"));
        assert!(CACHE.contains(id, "t"));
        forget_file(&Path::new("shard").join(format!("{}.fast", id.uuid_string())));
        assert!(!CACHE.contains(id, "t") && !CACHE.contains(id, "s"));
        let reopened = dense_i64_column(segment, "t").unwrap().unwrap();
        assert!(!Arc::ptr_eq(&first, &reopened));
        assert_eq!(reopened.get_val(999), 9_990);
    }
}
