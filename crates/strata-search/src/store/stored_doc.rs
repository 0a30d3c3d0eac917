//! A stored document's `_id` and `_source` read where they lie in the
//! bytes tantivy's doc store keeps for it, without building a document.
//!
//! tantivy's own path (`Searcher::doc`) copies a bytes value one byte at a
//! time (its `Vec<T>` deserializer reads each `u8` through `Read`): for the
//! 500 hits of a Discover page that copy was a fifth of the search. The
//! stored form is tantivy's binary document (`schema::document::se`, the
//! same in doc store versions 1 and 2 for the values read here): a `VInt`
//! count of field values, then per value its field (`u32`, little end
//! first), a type code and the value. Strata stores `_id` (text), `_source`
//! (bytes) and, in indices of older schemas, `_version` and `_seq_no`
//! (`u64`). [`StoredFields::parse`] skips any other fixed-size or
//! length-prefixed value and gives up (`None`) on one it cannot skip
//! (arrays, objects, pre-tokenized text): the caller then reads the
//! document through tantivy.
//!
//! A store reader caches the blocks it decompressed, so consecutive hits
//! and repeated searches share them; tantivy's searcher keeps one per
//! segment for its life, and so do these: [`StoreReaders`] belong to one
//! searcher generation of a shard's reader (the shard keeps the newest
//! generation's, `shard::sources`).

use std::ops::Range;
use std::sync::OnceLock;

use tantivy::directory::OwnedBytes;
use tantivy::schema::{Field, Value};
use tantivy::store::StoreReader;
use tantivy::{DocAddress, Searcher, TantivyDocument};

use crate::codec::store_cache_blocks;
use crate::error::{Result, SearchError};
use crate::store::SchemaFields;

// tantivy's type codes (`schema::document::type_codes`).
const TEXT: u8 = 0;
const U64: u8 = 1;
const I64: u8 = 2;
const FACET: u8 = 3;
const BYTES: u8 = 4;
const DATE: u8 = 5;
const F64: u8 = 6;
const BOOL: u8 = 9;
const IP: u8 = 10;
const NULL: u8 = 11;

/// Where the first `_id` and `_source` values lie in a stored document's
/// bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct StoredFields {
    /// The `_id` text's bytes, UTF-8 checked.
    pub id: Option<Range<usize>>,
    /// The `_source` bytes.
    pub source: Option<Range<usize>>,
}

impl StoredFields {
    /// The positions of the `id` and `source` fields' first values in
    /// `doc`; `None` when the bytes hold a value this reader cannot step
    /// over or are cut short (read them through tantivy).
    pub fn parse(doc: &[u8], id: Field, source: Field) -> Option<StoredFields> {
        let mut at = 0;
        let count = vint(doc, &mut at)?;
        let mut found = StoredFields::default();
        for _ in 0..count {
            let field =
                Field::from_field_id(u32::from_le_bytes(take(doc, &mut at, 4)?.try_into().ok()?));
            let code = *take(doc, &mut at, 1)?.first()?;
            let value = match code {
                TEXT | FACET | BYTES => {
                    let len = usize::try_from(vint(doc, &mut at)?).ok()?;
                    let start = at;
                    take(doc, &mut at, len)?;
                    start..at
                }
                U64 | I64 | DATE | F64 => skip(doc, &mut at, 8)?,
                BOOL => skip(doc, &mut at, 1)?,
                IP => skip(doc, &mut at, 16)?,
                NULL => at..at,
                _ => return None,
            };
            if field == id && code == TEXT && found.id.is_none() {
                std::str::from_utf8(&doc[value.clone()]).ok()?;
                found.id = Some(value);
            } else if field == source && code == BYTES && found.source.is_none() {
                found.source = Some(value);
            }
        }
        Some(found)
    }
}

/// One stored document's bytes (a slice of its cached block, or a copy
/// when read through tantivy) and where `_id` and `_source` lie in them.
pub(crate) struct LoadedDoc {
    bytes: OwnedBytes,
    id: Option<Range<usize>>,
    source: Option<Range<usize>>,
}

impl LoadedDoc {
    /// The stored `_id` (empty when the document has none).
    pub fn id(&self) -> &str {
        let bytes = self.id.clone().map_or(&[][..], |r| &self.bytes[r]);
        // Checked as UTF-8 when found (`StoredFields::parse`) or copied
        // from a `str`; an empty id otherwise.
        std::str::from_utf8(bytes).unwrap_or_default()
    }

    /// The stored `_source` bytes, shaped (`Shard::source_of` reads them).
    pub fn stored_source(&self) -> &[u8] {
        self.source.clone().map_or(&[][..], |r| &self.bytes[r])
    }
}

/// The store readers of one searcher generation, opened per segment when
/// a hit first needs one.
pub(crate) struct StoreReaders {
    /// The generation of the searcher they were made for.
    pub generation: u64,
    segments: Vec<OnceLock<StoreReader>>,
}

impl StoreReaders {
    /// Readers for the segments of `searcher`, none opened yet.
    pub fn new(searcher: &Searcher) -> StoreReaders {
        StoreReaders {
            generation: searcher.generation().generation_id(),
            segments: searcher
                .segment_readers()
                .iter()
                .map(|_| OnceLock::new())
                .collect(),
        }
    }

    /// The stored `_id` and `_source` of the document at `addr` of
    /// `searcher` (the searcher these readers were made for), whose schema's
    /// handles are `fields`.
    pub fn load(
        &self,
        fields: &SchemaFields,
        searcher: &Searcher,
        addr: DocAddress,
    ) -> Result<LoadedDoc> {
        let Some(cell) = self.segments.get(addr.segment_ord as usize) else {
            return through_tantivy(fields, searcher, addr);
        };
        if cell.get().is_none() {
            let blocks = store_cache_blocks(searcher.index().settings().docstore_blocksize);
            let opened = searcher
                .segment_reader(addr.segment_ord)
                .get_store_reader(blocks)
                .map_err(|e| SearchError::io("open a segment's document store", e))?;
            // Two hits may open it at once: the first one set is kept.
            let _ = cell.set(opened);
        }
        let Some(reader) = cell.get() else {
            return through_tantivy(fields, searcher, addr);
        };
        let bytes = reader.get_document_bytes(addr.doc_id)?;
        match StoredFields::parse(&bytes, fields.id, fields.source) {
            Some(found) => Ok(LoadedDoc {
                bytes,
                id: found.id,
                source: found.source,
            }),
            None => through_tantivy(fields, searcher, addr),
        }
    }
}

/// The document read through tantivy's deserializer, for stored values
/// [`StoredFields::parse`] does not step over.
fn through_tantivy(
    fields: &SchemaFields,
    searcher: &Searcher,
    addr: DocAddress,
) -> Result<LoadedDoc> {
    let doc: TantivyDocument = searcher.doc(addr)?;
    let id = doc.get_first(fields.id).and_then(|v| v.as_str());
    let source = doc.get_first(fields.source).and_then(|v| v.as_bytes());
    let mut bytes = Vec::new();
    let id = id.map(|text| {
        bytes.extend_from_slice(text.as_bytes());
        0..bytes.len()
    });
    let source = source.map(|stored| {
        let start = bytes.len();
        bytes.extend_from_slice(stored);
        start..bytes.len()
    });
    Ok(LoadedDoc {
        bytes: OwnedBytes::new(bytes),
        id,
        source,
    })
}

/// The next `len` bytes of `doc` from `at`, moving `at` past them.
fn take<'a>(doc: &'a [u8], at: &mut usize, len: usize) -> Option<&'a [u8]> {
    let end = at.checked_add(len)?;
    let bytes = doc.get(*at..end)?;
    *at = end;
    Some(bytes)
}

fn skip(doc: &[u8], at: &mut usize, len: usize) -> Option<Range<usize>> {
    let start = *at;
    take(doc, at, len)?;
    Some(start..*at)
}

/// tantivy's `VInt`: seven bits a byte, low first, the last byte's high
/// bit set.
fn vint(doc: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *doc.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 != 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{Schema, STORED};
    use tantivy::{doc, Index, TantivyDocument};

    use super::*;

    /// Stores `doc` in a one-document index and returns its stored bytes.
    fn stored_bytes(schema: Schema, doc: TantivyDocument) -> Vec<u8> {
        let index = Index::create_in_ram(schema);
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        writer.add_document(doc).unwrap();
        writer.commit().unwrap();
        let searcher = index.reader().unwrap().searcher();
        let store = searcher.segment_reader(0).get_store_reader(1).unwrap();
        store.get_document_bytes(0).unwrap().as_slice().to_vec()
    }

    #[test]
    fn finds_id_and_source_among_other_values() {
        let mut b = Schema::builder();
        let version = b.add_u64_field("_version", STORED);
        let id = b.add_text_field("_id", STORED);
        let flag = b.add_bool_field("flag", STORED);
        let source = b.add_bytes_field("_source", STORED);
        let ip = b.add_ip_addr_field("ip", STORED);
        let source_bytes: Vec<u8> = (0..=255u8).cycle().take(300).collect();
        let doc = doc!(
            version => 7u64,
            flag => true,
            id => "doc-é1",
            ip => std::net::Ipv6Addr::LOCALHOST,
            source => source_bytes.clone(),
            id => "second",
        );
        let bytes = stored_bytes(b.build(), doc);
        let found = StoredFields::parse(&bytes, id, source).unwrap();
        assert_eq!(&bytes[found.id.unwrap()], "doc-é1".as_bytes());
        assert_eq!(&bytes[found.source.unwrap()], source_bytes.as_slice());
    }

    #[test]
    fn strata_documents_take_the_direct_path() {
        // New indices store `_id` and `_source` only; the JSON fields are
        // not stored. A document as the shard builds it must be read here,
        // not sent back through tantivy.
        let fields = crate::store::SchemaFields::build();
        let mut doc = TantivyDocument::new();
        doc.add_text(fields.id, "abc");
        doc.add_bytes(fields.source, br#"{"a":1}"#.as_slice());
        doc.add_u64(fields.version, 3);
        doc.add_u64(fields.seq_no, 9);
        let mut object = std::collections::BTreeMap::new();
        object.insert("a".to_string(), tantivy::schema::OwnedValue::I64(1));
        doc.add_object(fields.values, object);
        let bytes = stored_bytes(fields.schema.clone(), doc);
        let found = StoredFields::parse(&bytes, fields.id, fields.source).unwrap();
        assert_eq!(&bytes[found.id.unwrap()], b"abc");
        assert_eq!(&bytes[found.source.unwrap()], br#"{"a":1}"#);
    }

    #[test]
    fn absent_fields_and_bad_bytes() {
        let mut b = Schema::builder();
        let id = b.add_text_field("_id", STORED);
        let source = b.add_bytes_field("_source", STORED);
        let bytes = stored_bytes(b.build(), doc!(id => "x"));
        let found = StoredFields::parse(&bytes, id, source).unwrap();
        assert!(found.source.is_none());
        assert_eq!(&bytes[found.id.unwrap()], b"x");
        // Cut short anywhere: no panic, no answer.
        for end in 0..bytes.len() {
            assert_eq!(
                StoredFields::parse(&bytes[..end], id, source),
                None,
                "{end}"
            );
        }
        // An array value (code 12) is not stepped over.
        let array = [0x81, 0, 0, 0, 0, 12, 0x80];
        assert_eq!(StoredFields::parse(&array, id, source), None);
        // A length past the end and an endless VInt.
        assert_eq!(
            StoredFields::parse(&[0x81, 1, 0, 0, 0, 4, 0xff], id, source),
            None
        );
        assert_eq!(StoredFields::parse(&[0x7f; 20], id, source), None);
    }
}
