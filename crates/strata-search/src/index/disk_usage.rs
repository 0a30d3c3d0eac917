//! Where an index's bytes go, per field and per structure, for
//! Elasticsearch's analyze-disk-usage API (`POST /<index>/_disk_usage`).
//!
//! tantivy reports its files' sizes per schema field, but every mapped
//! field of a shard lives in one of two JSON fields (`store/schema.rs`),
//! so the mapped fields are told apart here:
//! - inverted index: the term dictionary of a JSON field is walked once;
//!   each term's key starts with the field's dotted path. A path's postings
//!   and positions are the byte ranges of its terms; its share of the
//!   dictionary is its share of the key bytes (plus a fixed cost per term).
//! - doc values: one columnar column per path and type (exact).
//! - norms: tantivy keeps one norm per document per JSON field, spread
//!   over the field's paths as their postings are.
//! - stored fields: the compressed store is spread over the stored fields
//!   as their uncompressed bytes are, measured on a sample of documents.
//!
//! Each component's bytes add up to tantivy's own total for it, so
//! `all_fields` is exact; the split between fields is the estimate
//! Elasticsearch's API also gives. Points and term vectors are always 0:
//! tantivy indexes numbers as terms and keeps no term vectors.

use std::collections::BTreeMap;

use tantivy::schema::{Field, FieldType};
use tantivy::space_usage::{PerFieldSpaceUsage, SegmentSpaceUsage};
use tantivy::{SegmentReader, TantivyDocument};

use super::handle::SearchIndex;
use crate::error::Result;
use crate::store::SchemaFields;

/// Documents read per segment to split its stored bytes between fields.
const STORED_SAMPLE: u32 = 64;
/// What a term costs in the dictionary beyond its key (its term info),
/// for splitting a dictionary between paths.
const TERM_OVERHEAD: u64 = 4;

/// The bytes of one field by structure.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FieldDiskUsage {
    /// Terms, postings and positions.
    pub inverted_index: u64,
    /// Its share of the compressed document store.
    pub stored_fields: u64,
    /// Columnar (fast) values.
    pub doc_values: u64,
    /// Length norms.
    pub norms: u64,
}

impl FieldDiskUsage {
    /// All structures together.
    pub fn total(&self) -> u64 {
        self.inverted_index + self.stored_fields + self.doc_values + self.norms
    }

    fn add(&mut self, other: &FieldDiskUsage) {
        self.inverted_index += other.inverted_index;
        self.stored_fields += other.stored_fields;
        self.doc_values += other.doc_values;
        self.norms += other.norms;
    }
}

/// One index's disk usage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiskUsage {
    /// Every byte of the index (as `_stats` `store`).
    pub store_size_bytes: u64,
    /// Shards analyzed.
    pub shards: usize,
    /// Per field, by dotted path (and the metadata fields by name).
    pub fields: BTreeMap<String, FieldDiskUsage>,
}

impl DiskUsage {
    /// The sum over all fields.
    pub fn all_fields(&self) -> FieldDiskUsage {
        let mut all = FieldDiskUsage::default();
        self.fields.values().for_each(|f| all.add(f));
        all
    }
}

impl SearchIndex {
    /// Analyzes every searchable segment of every shard (flush first to
    /// include what is not yet refreshed). Reads the whole term dictionary:
    /// an expensive call, as in Elasticsearch.
    pub fn disk_usage(&self) -> Result<DiskUsage> {
        let mut usage = DiskUsage {
            store_size_bytes: self.store_size_bytes(),
            shards: self.shards.len(),
            fields: BTreeMap::new(),
        };
        for shard in &self.shards {
            let searcher = shard.searcher();
            for segment in searcher.segment_readers() {
                add_segment(&mut usage.fields, segment, shard.fields())?;
            }
        }
        Ok(usage)
    }
}

/// A field's bytes in one segment.
fn entry<'a>(
    fields: &'a mut BTreeMap<String, FieldDiskUsage>,
    name: &str,
) -> &'a mut FieldDiskUsage {
    fields.entry(name.to_owned()).or_default()
}

fn add_segment(
    out: &mut BTreeMap<String, FieldDiskUsage>,
    segment: &SegmentReader,
    schema: &SchemaFields,
) -> Result<()> {
    let space = segment
        .space_usage()
        .map_err(|e| crate::error::SearchError::io("reading a segment's sizes", e))?;
    for (field, field_entry) in schema.schema.fields() {
        let name = field_entry.name();
        let dictionary = field_total(space.termdict(), name);
        let norms = field_total(space.fieldnorms(), name);
        let postings = field_total(space.postings(), name);
        let positions = field_total(space.positions(), name);
        if matches!(field_entry.field_type(), FieldType::JsonObject(_)) {
            // `f` keeps only columns (counted below) in new indices.
            if !field_entry.is_indexed() {
                continue;
            }
            let paths = json_paths(segment, field)?;
            spread_json(out, &paths, [dictionary, postings, positions], norms);
        } else if dictionary + postings + positions + norms > 0 {
            let usage = entry(out, name);
            usage.inverted_index += dictionary + postings + positions;
            usage.norms += norms;
        }
    }
    add_doc_values(out, space.fast_fields(), &schema.schema);
    add_stored(out, segment, &space)
}

/// A schema field's bytes in one component (0 when it has none).
fn field_total(component: &PerFieldSpaceUsage, name: &str) -> u64 {
    component
        .fields()
        .filter(|f| f.field_name() == name)
        .map(|f| f.total().get_bytes())
        .sum()
}

/// What one path of a JSON field holds in the inverted index.
#[derive(Default)]
struct PathTerms {
    key_bytes: u64,
    postings: u64,
    positions: u64,
}

/// Walks a JSON field's term dictionary, grouping terms by path.
fn json_paths(segment: &SegmentReader, field: Field) -> Result<BTreeMap<String, PathTerms>> {
    let inverted = segment.inverted_index(field)?;
    let mut stream = inverted
        .terms()
        .stream()
        .map_err(|e| crate::error::SearchError::io("reading a term dictionary", e))?;
    let mut paths: BTreeMap<String, PathTerms> = BTreeMap::new();
    let mut last: Vec<u8> = Vec::new();
    let mut current = String::new();
    while stream.advance() {
        let key = stream.key();
        let path = key.split(|&b| b == 0).next().unwrap_or(key);
        // Terms arrive sorted, so a path's terms are contiguous: decode a
        // path only when it changes.
        if path != last.as_slice() {
            last.clear();
            last.extend_from_slice(path);
            current = dotted(path);
        }
        let info = stream.value();
        let slot = match paths.get_mut(&current) {
            Some(slot) => slot,
            None => paths.entry(current.clone()).or_default(),
        };
        slot.key_bytes += key.len() as u64 + TERM_OVERHEAD;
        slot.postings += info.postings_range.len() as u64;
        slot.positions += info.positions_range.len() as u64;
    }
    Ok(paths)
}

/// A JSON term path (segments separated by 1) as a dotted field name.
fn dotted(path: &[u8]) -> String {
    String::from_utf8_lossy(path).replace('\u{1}', ".")
}

/// Splits a JSON field's dictionary, postings, positions and norms
/// between its paths: each component in proportion to what the walk
/// measured of it (norms in proportion to postings).
fn spread_json(
    out: &mut BTreeMap<String, FieldDiskUsage>,
    paths: &BTreeMap<String, PathTerms>,
    [dictionary, postings, positions]: [u64; 3],
    norms: u64,
) {
    let sum = |f: fn(&PathTerms) -> u64| paths.values().map(f).sum::<u64>();
    let (keys, posts, poss) = (
        sum(|p| p.key_bytes),
        sum(|p| p.postings),
        sum(|p| p.positions),
    );
    for (path, terms) in paths {
        let usage = entry(out, path);
        usage.inverted_index += share(dictionary, terms.key_bytes, keys)
            + share(postings, terms.postings, posts)
            + share(positions, terms.positions, poss);
        usage.norms += share(norms, terms.postings, posts);
    }
}

/// `total * part / whole`, 0 for an empty whole.
fn share(total: u64, part: u64, whole: u64) -> u64 {
    if whole == 0 {
        return 0;
    }
    (u128::from(total) * u128::from(part) / u128::from(whole)) as u64
}

/// Columns: a JSON field's columns are named `<field>.<path>`; the path
/// is the field's name. Several columns of one path (types) add up.
fn add_doc_values(
    out: &mut BTreeMap<String, FieldDiskUsage>,
    fast: &PerFieldSpaceUsage,
    schema: &tantivy::schema::Schema,
) {
    for column in fast.fields() {
        let name = column.field_name();
        let path = match name.split_once('.') {
            Some((field, path))
                if schema.get_field(field).is_ok_and(|f| {
                    matches!(
                        schema.get_field_entry(f).field_type(),
                        FieldType::JsonObject(_)
                    )
                }) =>
            {
                path
            }
            _ => name,
        };
        entry(out, path).doc_values += column.total().get_bytes();
    }
}

/// Spreads the segment's document store over the stored fields by their
/// uncompressed sizes in a sample of its documents.
fn add_stored(
    out: &mut BTreeMap<String, FieldDiskUsage>,
    segment: &SegmentReader,
    space: &SegmentSpaceUsage,
) -> Result<()> {
    let total = space.store().total().get_bytes();
    let max_doc = segment.max_doc();
    if total == 0 || max_doc == 0 {
        return Ok(());
    }
    let store = segment
        .get_store_reader(1)
        .map_err(|e| crate::error::SearchError::io("opening a document store", e))?;
    let schema = segment.schema();
    let step = (max_doc / STORED_SAMPLE).max(1);
    let mut sampled: BTreeMap<&str, u64> = BTreeMap::new();
    for doc_id in (0..max_doc).step_by(step as usize) {
        let doc: TantivyDocument = store.get(doc_id)?;
        for (field, value) in doc.field_values() {
            use tantivy::schema::Value;
            let bytes = value
                .as_bytes()
                .map(<[u8]>::len)
                .or_else(|| value.as_str().map(str::len))
                .unwrap_or(8);
            *sampled.entry(schema.get_field_name(field)).or_default() += bytes as u64;
        }
    }
    let whole: u64 = sampled.values().sum();
    for (name, bytes) in sampled {
        entry(out, name).stored_fields += share(total, bytes, whole);
    }
    Ok(())
}
