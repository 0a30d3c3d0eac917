//! The terms of a string column's ordinals: looked up in the segment's
//! dictionary, or read from a table of all its terms built in one pass and
//! cached per segment and column.
//!
//! A lookup of sorted ordinals decodes each dictionary block it touches
//! from the block's start. The `segment_size` terms `terms` keeps of each
//! segment (200 for the top 20), spread over a dictionary of client
//! addresses, touch nearly every block, so each search decoded nearly the
//! whole dictionary again (a third of `content_issues`' top-clients
//! search). Where a search names at least one in [`TABLE_SHARE`] of a
//! large dictionary's terms it builds the table, for that one pass's cost,
//! and later searches of the segment copy their terms out of it
//! (Elasticsearch keeps its global ordinals' terms the same way).
//! Tables live within [`CACHE_BYTES`]; a dictionary whose terms exceed
//! [`MAX_TABLE_BYTES`] is only ever looked up.

use std::io;
use std::sync::LazyLock;

use tantivy::columnar::StrColumn;
use tantivy::index::SegmentId;

use crate::query::segment_cache::SegmentCache;

/// Tables within 64 MiB in all.
const CACHE_BYTES: usize = 64 << 20;
/// No table for a dictionary of more bytes than this (an eighth of the
/// cache): its term bytes and ends.
const MAX_TABLE_BYTES: usize = CACHE_BYTES / 8;
/// Dictionaries of fewer terms are only looked up (a few blocks).
const MIN_TABLE_TERMS: u64 = 4096;
/// A search naming at least one in this many of a dictionary's terms
/// builds its table. A 4 KiB block holds about 500 addresses, and a
/// lookup decodes its block from the start to the term: at one lookup in
/// 1,024 terms the lookups decode about a quarter of the dictionary per
/// search, the table all of it once.
const TABLE_SHARE: u64 = 1024;

/// Every term of one segment's column, by ordinal; `None` for a
/// dictionary too large to keep (so the pass is not tried again).
type Cached = Option<TermTable>;

static TABLES: LazyLock<SegmentCache<Cached>> = LazyLock::new(|| SegmentCache::new(CACHE_BYTES));

/// The terms of a dictionary in ordinal order, end to end.
struct TermTable {
    bytes: Vec<u8>,
    /// `ends[ord]`: where term `ord` ends in `bytes`.
    ends: Vec<u32>,
}

impl TermTable {
    /// The table of `column`'s dictionary, or `None` past
    /// [`MAX_TABLE_BYTES`]; with its size in bytes.
    fn build(column: &StrColumn) -> io::Result<(Cached, usize)> {
        const TOO_LARGE: (Cached, usize) = (None, 64);
        let dictionary = column.dictionary();
        let terms = dictionary.num_terms();
        if terms.saturating_mul(4) > MAX_TABLE_BYTES {
            return Ok(TOO_LARGE);
        }
        let mut ends = Vec::with_capacity(terms);
        let mut bytes = Vec::new();
        let mut stream = dictionary.stream()?;
        while stream.advance() {
            bytes.extend_from_slice(stream.key());
            if bytes.len() + 4 * terms > MAX_TABLE_BYTES {
                return Ok(TOO_LARGE);
            }
            ends.push(bytes.len() as u32);
        }
        bytes.shrink_to_fit();
        let size = bytes.len() + 4 * ends.len();
        Ok((Some(TermTable { bytes, ends }), size))
    }

    fn term(&self, ord: u64) -> Option<&[u8]> {
        let ord = usize::try_from(ord).ok()?;
        let end = *self.ends.get(ord)? as usize;
        let start = match ord {
            0 => 0,
            _ => self.ends[ord - 1] as usize,
        };
        self.bytes.get(start..end)
    }
}

/// The terms of `ords` (increasing, each below the dictionary's size) of
/// `column` (named `name`) in `segment`, in that order.
pub fn names(
    segment: SegmentId,
    name: &str,
    column: &StrColumn,
    ords: &[u64],
) -> io::Result<Vec<String>> {
    let terms = column.dictionary().num_terms() as u64;
    let wants_table =
        terms >= MIN_TABLE_TERMS && (ords.len() as u64).saturating_mul(TABLE_SHARE) >= terms;
    let table = match TABLES.get(segment, name) {
        Some(table) => Some(table),
        None if wants_table => {
            Some(TABLES.get_or_try_build(segment, name, || TermTable::build(column))?)
        }
        None => None,
    };
    let mut out = Vec::with_capacity(ords.len());
    if let Some(Some(table)) = table.as_deref() {
        for &ord in ords {
            let term = table.term(ord).ok_or_else(|| {
                io::Error::new(io::ErrorKind::InvalidData, format!("no term {ord}"))
            })?;
            out.push(String::from_utf8_lossy(term).into_owned());
        }
        return Ok(out);
    }
    column.dictionary().sorted_ords_to_term_cb(ords, |bytes| {
        out.push(String::from_utf8_lossy(bytes).into_owned());
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{Schema, FAST, STRING};
    use tantivy::{doc, Index};

    use super::*;

    /// A table's terms are the dictionary's, ordinal for ordinal, with
    /// the table built or not.
    #[test]
    fn table_and_lookups_name_the_same_terms() {
        let mut b = Schema::builder();
        let ip = b.add_text_field("ip", STRING | FAST);
        let index = Index::create_in_ram(b.build());
        let mut writer = index.writer_with_num_threads(1, 30_000_000).unwrap();
        for i in 0..20_000u32 {
            let addr = format!("10.{}.{}.{}", i / 65536, (i / 256) % 256, i % 256);
            writer.add_document(doc!(ip => addr)).unwrap();
        }
        writer.add_document(doc!(ip => "")).unwrap();
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let reader = &searcher.segment_readers()[0];
        let column = reader.fast_fields().str("ip").unwrap().unwrap();
        let all = column.dictionary().num_terms() as u64;
        assert_eq!(all, 20_001);
        let segment = reader.segment_id();

        // 10 of 20,001: looked up, no table.
        let few: Vec<u64> = (0..10).map(|i| i * 1999).collect();
        assert!(10 * TABLE_SHARE < all);
        let looked_up = names(segment, "ip", &column, &few).unwrap();
        assert!(TABLES.get(segment, "ip").is_none());
        assert_eq!(looked_up[0], "", "the empty term sorts first");
        // 20 of 20,001 (over 1 in 1,024): the table is built and used.
        let many: Vec<u64> = (0..20).map(|i| i * 1000).collect();
        let from_table = names(segment, "ip", &column, &many).unwrap();
        assert!(matches!(
            TABLES.get(segment, "ip").as_deref(),
            Some(Some(_))
        ));
        let mut expected: Vec<String> = Vec::new();
        column
            .dictionary()
            .sorted_ords_to_term_cb(&many, |t| expected.push(String::from_utf8_lossy(t).into()))
            .unwrap();
        assert_eq!(from_table, expected);
        // Later lookups of few terms read the table too.
        assert_eq!(names(segment, "ip", &column, &few).unwrap(), looked_up);
        let last = names(segment, "ip", &column, &[all - 1]).unwrap();
        assert_eq!(last, ["10.0.9.99"], "the largest in byte order");
        assert!(names(segment, "ip", &column, &[all]).is_err());
    }
}
