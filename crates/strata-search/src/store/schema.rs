//! The fixed tantivy schema of every shard. Elasticsearch mappings grow at
//! run time while a tantivy schema cannot, so mapped values live in two JSON
//! fields addressed by the field's dotted path:
//! - `txt`: `text` fields, tokenized by the standard-like `default` analyzer,
//!   with positions for phrases.
//! - `f`: every other type, typed (i64, f64, bool, exact string; dates as
//!   epoch-millisecond i64), columnar (fast) for sorting, ranges,
//!   aggregations, `exists`, and exact numbers (`query::column_set`).
//! - `k`: the exact strings and booleans of `f` again, indexed as terms
//!   (`term`, `prefix`, `regexp`, address blocks). Numbers and dates have
//!   no terms: every query on them reads their columns, as Elasticsearch's
//!   points would answer it, and their terms were 5% of an eventdata index.
//!   Indices created before `k` existed index all of `f` and have no `k`
//!   ([`SchemaFields::terms`] is `f` there).
//!
//! Plus `_id` (exact, stored), `_source` (stored bytes), `_version`,
//! `_seq_no` (fast: read from their columns, [`version_of`]; indices
//! created before also store them) and `_field_names` (paths with a text
//! value, for `exists`); the exact fields keep no norms in new indices.
//!
//! Nested objects (`type: nested`) are hidden documents of their own,
//! indexed in one block just before their parent (`shard/document.rs`):
//! `_nested_path` holds a nested document's path (`comments`, `a.b`) and
//! `_nested_parent` its root document's `_id`; a root document has
//! neither. Indices created before these fields existed have no nested
//! documents and refuse nested mappings.

use tantivy::columnar::Column;
use tantivy::schema::{
    Field, IndexRecordOption, JsonObjectOptions, NumericOptions, Schema, TextFieldIndexing,
    TextOptions, FAST, STORED,
};
use tantivy::{DocId, SegmentReader, Term};

/// `_id` field name.
pub const ID: &str = "_id";
/// `_source` field name.
pub const SOURCE: &str = "_source";
/// `_field_names` field name.
pub const FIELD_NAMES: &str = "_field_names";
/// The JSON field of typed, non-text values (their columns).
pub const KEYWORDS: &str = "f";
/// The JSON field of exact strings and booleans, as terms.
pub const TERMS: &str = "k";
/// The JSON field of analyzed text.
pub const TEXT: &str = "txt";
/// A nested document's path.
pub const NESTED_PATH: &str = "_nested_path";
/// A nested document's root `_id`.
pub const NESTED_PARENT: &str = "_nested_parent";

/// Handles of the schema's fields.
#[derive(Debug, Clone)]
pub(crate) struct SchemaFields {
    /// The schema.
    pub(crate) schema: Schema,
    /// `_id`.
    pub(crate) id: Field,
    /// `_source`.
    pub(crate) source: Field,
    /// `_version`.
    pub(crate) version: Field,
    /// `_seq_no`.
    pub(crate) seq_no: Field,
    /// `_field_names`.
    pub(crate) field_names: Field,
    /// Typed values (`f`): their columns.
    pub(crate) values: Field,
    /// Where exact strings and booleans are terms: `k`, or `f` in indices
    /// created before `k` (which index numbers as terms too).
    pub(crate) terms: Field,
    /// Text values (`txt`).
    pub(crate) text: Field,
    /// `_nested_path` and `_nested_parent` (absent in older indices).
    pub(crate) nested: Option<NestedFields>,
}

/// The fields that mark nested documents.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NestedFields {
    /// `_nested_path`: the nested object's dotted path.
    pub(crate) path: Field,
    /// `_nested_parent`: the `_id` of the root document it belongs to.
    pub(crate) parent: Field,
}

impl SchemaFields {
    /// Builds the schema of new indices. `_id` is indexed (lookups by id)
    /// and stored (hits), without a fast column: nothing reads one, and a
    /// column of unique strings is costly to build at every refresh and
    /// to merge. (Indices created before keep theirs; the schema is read
    /// from each index.)
    ///
    /// The exact-string fields (`_id`, `_field_names`, `_nested_*`) keep
    /// no norms: one term each, or queried with constant scores, as
    /// Elasticsearch's keyword and metadata fields; norms cost a byte per
    /// document per field, even in indices without nested documents.
    pub(crate) fn build() -> SchemaFields {
        let mut b = Schema::builder();
        let id = b.add_text_field(ID, exact() | STORED);
        let source = b.add_bytes_field(SOURCE, STORED);
        // Columns only: stored too, they took 3 bytes a document of the
        // compressed store (8-byte values), and every reader has the segment.
        let version = b.add_u64_field("_version", NumericOptions::default() | FAST);
        let seq_no = b.add_u64_field("_seq_no", NumericOptions::default() | FAST);
        let field_names = b.add_text_field(FIELD_NAMES, exact());
        let values = b.add_json_field(
            KEYWORDS,
            JsonObjectOptions::default()
                .set_fast("raw")
                .set_expand_dots_enabled(),
        );
        // No norms, as Elasticsearch's keyword fields.
        let raw = TextFieldIndexing::default()
            .set_tokenizer("raw")
            .set_index_option(IndexRecordOption::Basic)
            .set_fieldnorms(false);
        let terms = b.add_json_field(
            TERMS,
            JsonObjectOptions::default()
                .set_indexing_options(raw)
                .set_expand_dots_enabled(),
        );
        let analyzed = TextFieldIndexing::default()
            .set_tokenizer("default")
            .set_index_option(IndexRecordOption::WithFreqsAndPositions);
        let text = b.add_json_field(
            TEXT,
            JsonObjectOptions::default()
                .set_indexing_options(analyzed)
                .set_expand_dots_enabled(),
        );
        let nested = NestedFields {
            path: b.add_text_field(NESTED_PATH, exact()),
            parent: b.add_text_field(NESTED_PARENT, exact()),
        };
        SchemaFields {
            schema: b.build(),
            id,
            source,
            version,
            seq_no,
            field_names,
            values,
            terms,
            text,
            nested: Some(nested),
        }
    }

    /// Recovers the handles from an opened index's schema.
    pub(crate) fn from_schema(schema: Schema) -> tantivy::Result<SchemaFields> {
        let get = |name: &str| schema.get_field(name);
        Ok(SchemaFields {
            id: get(ID)?,
            source: get(SOURCE)?,
            version: get("_version")?,
            seq_no: get("_seq_no")?,
            field_names: get(FIELD_NAMES)?,
            values: get(KEYWORDS)?,
            terms: get(TERMS).or_else(|_| get(KEYWORDS))?,
            text: get(TEXT)?,
            nested: match (get(NESTED_PATH), get(NESTED_PARENT)) {
                (Ok(path), Ok(parent)) => Some(NestedFields { path, parent }),
                _ => None,
            },
            schema,
        })
    }
}

impl SchemaFields {
    /// Whether numbers and dates are terms too (indices created before
    /// `k`); every query on them reads their columns either way.
    pub(crate) fn numbers_are_terms(&self) -> bool {
        self.terms == self.values
    }
}

/// `(_version, _seq_no)` of document `doc` of `segment`, from their
/// columns (which every index has; 0 for a document without them).
pub(crate) fn version_of(segment: &SegmentReader, doc: DocId) -> tantivy::Result<(u64, u64)> {
    Ok(VersionColumns::open(segment)?.get(doc))
}

/// The `_version` and `_seq_no` columns of one segment, opened once for
/// the many documents a fetch reads from it (an open looks the column up
/// by name in the segment's column dictionary).
pub(crate) struct VersionColumns {
    version: Column<u64>,
    seq_no: Column<u64>,
}

impl VersionColumns {
    /// The columns of `segment`.
    pub(crate) fn open(segment: &SegmentReader) -> tantivy::Result<VersionColumns> {
        let ff = segment.fast_fields();
        Ok(VersionColumns {
            version: ff.u64("_version")?,
            seq_no: ff.u64("_seq_no")?,
        })
    }

    /// `(_version, _seq_no)` of `doc` (0 for a document without them).
    pub(crate) fn get(&self, doc: DocId) -> (u64, u64) {
        let version = self.version.first(doc).unwrap_or(0);
        let seq_no = self.seq_no.first(doc).unwrap_or(0);
        (version, seq_no)
    }
}

/// An untokenized, indexed string field without norms.
fn exact() -> TextOptions {
    TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer("raw")
            .set_index_option(IndexRecordOption::Basic)
            .set_fieldnorms(false),
    )
}

/// A term at `path` of a JSON field, without its typed value yet.
pub fn json_term(field: Field, path: &str) -> Term {
    Term::from_field_json_path(field, path, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_columns_only_in_new_indices() {
        let fields = SchemaFields::build();
        for field in [fields.version, fields.seq_no] {
            let entry = fields.schema.get_field_entry(field);
            assert!(entry.is_fast() && !entry.is_stored(), "{}", entry.name());
        }
        // An index created before stores them too; its schema still opens.
        let mut b = Schema::builder();
        b.add_text_field(ID, exact() | STORED);
        b.add_bytes_field(SOURCE, STORED);
        b.add_u64_field("_version", NumericOptions::default() | STORED | FAST);
        b.add_u64_field("_seq_no", NumericOptions::default() | STORED | FAST);
        b.add_text_field(FIELD_NAMES, exact());
        b.add_json_field(KEYWORDS, JsonObjectOptions::default().set_fast("raw"));
        b.add_json_field(TEXT, JsonObjectOptions::default());
        let old = SchemaFields::from_schema(b.build()).unwrap();
        assert!(old.schema.get_field_entry(old.version).is_stored());
        assert!(old.numbers_are_terms() && old.nested.is_none());
    }
}
