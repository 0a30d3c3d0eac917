//! `slice` (`{"id": i, "max": n, "field": f}`) of a scroll or
//! point-in-time search: the documents split into `max` disjoint parts,
//! the search seeing part `id` only, so that `max` readers can walk one
//! snapshot in parallel.
//!
//! As in Elasticsearch, without a `field` (or with `_id`) a document's
//! slice is `floorMod(murmur3_x86_32(_id, seed 7919), max)`
//! (`TermsSliceQuery`; Elasticsearch hashes its binary encoding of the
//! id, Strata the id's UTF-8 bytes, so the parts differ from a real
//! node's but split the same way). With a numeric, date or boolean
//! `field` it is `floorMod(mix(value), max)` (`DocValuesSliceQuery`,
//! hppc's `BitMixer.mix`); a document without a value is in slice 0. Where
//! Elasticsearch puts a multi-valued document in the slice of each of its
//! values, Strata uses its smallest value only, so every document is in
//! exactly one slice. Unlike Elasticsearch, slices are not first divided
//! between shards: every shard takes part in every slice.

use serde_json::Value;
use tantivy::columnar::ColumnType;
use tantivy::query::{
    BitSetDocSet, BooleanQuery, ConstScoreQuery, ConstScorer, EnableScoring, Explanation, Occur,
    Query, Scorer, Weight,
};
use tantivy::schema::Field;
use tantivy::{BitSet, DocId, Score, SegmentReader, TantivyError};

use super::murmur3::murmur3_x86_32;
use super::numbers::F64Column;
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::mapping::FieldType;
use crate::query::random_sample::docs_by_id;
use crate::store::KEYWORDS;

/// `TermsSliceQuery.SEED`.
const SEED: u32 = 7919;

/// A parsed `slice`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    /// The slice searched, `0..max`.
    pub(crate) id: u32,
    /// How many slices there are (at least 2).
    pub max: u32,
    /// The field hashed (`None`: `_id`).
    pub field: Option<String>,
}

impl Slice {
    /// Parses a `slice` object with Elasticsearch's errors
    /// (`x_content_parse_exception` "[slice] failed to parse field [max]"
    /// caused by "max must be greater than 1", ...).
    pub(crate) fn parse(value: &Value) -> Result<Slice> {
        let Value::Object(obj) = value else {
            return Err(SearchError::FieldParse {
                reason: format!("[slice] expected an object, got [{value}]"),
                cause: None,
            });
        };
        let (mut id, mut max, mut field) = (None::<i64>, None::<i64>, None);
        for (key, v) in obj {
            match key.as_str() {
                "field" => match v {
                    Value::String(s) => field = Some(s.clone()),
                    other => {
                        return Err(SearchError::field_parse(
                            "slice",
                            "field",
                            SearchError::illegal(format!(
                                "[field] must be a string, got [{other}]"
                            )),
                        ))
                    }
                },
                "id" | "max" => {
                    let n = int(v).ok_or_else(|| {
                        SearchError::field_parse(
                            "slice",
                            key,
                            SearchError::illegal(format!("[{key}] must be an integer, got [{v}]")),
                        )
                    })?;
                    // The checks run as each field is set, as in
                    // Elasticsearch; keys come in name order (`id` before
                    // `max`), where Elasticsearch reads them as written.
                    let refuse = |msg: &str| {
                        Err(SearchError::field_parse(
                            "slice",
                            key,
                            SearchError::illegal(msg),
                        ))
                    };
                    if key == "id" {
                        if n < 0 {
                            return refuse("id must be greater than or equal to 0");
                        }
                        if max.is_some_and(|m| n >= m) {
                            return refuse("max must be greater than id");
                        }
                        id = Some(n);
                    } else {
                        if n <= 1 {
                            return refuse("max must be greater than 1");
                        }
                        if id.is_some_and(|i| i >= n) {
                            return refuse("max must be greater than id");
                        }
                        max = Some(n);
                    }
                }
                other => {
                    return Err(SearchError::FieldParse {
                        reason: format!("[slice] unknown field [{other}]"),
                        cause: None,
                    })
                }
            }
        }
        let id = id.ok_or_else(|| SearchError::illegal("[slice] requires [id]"))?;
        let max = max.ok_or_else(|| SearchError::illegal("[slice] requires [max]"))?;
        Ok(Slice {
            id: id as u32,
            max: max as u32,
            field,
        })
    }

    /// `query` narrowed to `slice`'s documents, or as it is without one.
    pub(super) fn narrow(
        slice: Option<&Slice>,
        query: Box<dyn Query>,
        index: &SearchIndex,
    ) -> Result<Box<dyn Query>> {
        match slice {
            Some(slice) => slice.filter(query, index),
            None => Ok(query),
        }
    }

    /// Refuses a `field` of `index` that is not a mapped numeric, date or
    /// boolean one (Elasticsearch's `illegal_argument_exception`s).
    pub fn check(&self, index: &SearchIndex) -> Result<()> {
        self.by(index).map(|_| ())
    }

    /// `query` narrowed to this slice's documents of `index` (scores
    /// unchanged); refuses what [`Slice::check`] refuses.
    pub(crate) fn filter(
        &self,
        query: Box<dyn Query>,
        index: &SearchIndex,
    ) -> Result<Box<dyn Query>> {
        let part = SlicePart {
            id: self.id,
            max: self.max,
            by: self.by(index)?,
        };
        Ok(Box::new(BooleanQuery::new(vec![
            (Occur::Must, query),
            (
                Occur::Must,
                Box::new(ConstScoreQuery::new(Box::new(part), 0.0)),
            ),
        ])))
    }

    fn by(&self, index: &SearchIndex) -> Result<SliceBy> {
        let Some(field) = self.field.as_deref().filter(|f| *f != "_id") else {
            return Ok(SliceBy::Id(index.shards()[0].fields().id));
        };
        let mappings = index.mappings();
        let Some(leaf) = mappings.leaf(field) else {
            return Err(SearchError::illegal(format!("field {field} not found")));
        };
        let kind = match leaf.ty {
            t if t.is_integer() => ValueKind::Long,
            t if t.is_float() => ValueKind::Double,
            FieldType::Date => ValueKind::Long,
            FieldType::Boolean => ValueKind::Bool,
            _ => {
                return Err(SearchError::illegal(format!(
                    "cannot load numeric doc values on {field}"
                )))
            }
        };
        Ok(SliceBy::Values {
            column: format!("{KEYWORDS}.{field}"),
            kind,
        })
    }
}

fn int(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().filter(|n| i32::try_from(*n).is_ok()),
        Value::String(s) => s.trim().parse::<i32>().ok().map(i64::from),
        _ => None,
    }
}

/// What a document's slice is computed from.
#[derive(Debug, Clone)]
enum SliceBy {
    /// The terms of the `_id` field.
    Id(Field),
    /// The values of a column.
    Values { column: String, kind: ValueKind },
}

#[derive(Debug, Clone, Copy)]
enum ValueKind {
    Long,
    Double,
    Bool,
}

/// The documents of one slice (a filter; scores 1).
#[derive(Debug, Clone)]
struct SlicePart {
    id: u32,
    max: u32,
    by: SliceBy,
}

impl SlicePart {
    fn contains(&self, hash: i64) -> bool {
        hash.rem_euclid(i64::from(self.max)) == i64::from(self.id)
    }

    fn docs(&self, reader: &SegmentReader) -> tantivy::Result<BitSet> {
        match &self.by {
            SliceBy::Id(field) => docs_by_id(reader, *field, |id| {
                self.contains(i64::from(murmur3_x86_32(id, SEED) as i32))
            }),
            SliceBy::Values { column, kind } => {
                let mut set = BitSet::with_max_value(reader.max_doc());
                let values = ColumnValues::open(reader, column, *kind)?;
                for doc in 0..reader.max_doc() {
                    let hash = values.smallest(doc).map_or(0, |v| i64::from(mix(v)));
                    if self.contains(hash) {
                        set.insert(doc);
                    }
                }
                Ok(set)
            }
        }
    }
}

impl Query for SlicePart {
    fn weight(&self, _scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(self.clone()))
    }
}

impl Weight for SlicePart {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        let docs = BitSetDocSet::from(self.docs(reader)?);
        Ok(Box::new(ConstScorer::new(docs, boost)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        if self.docs(reader)?.contains(doc) {
            Ok(Explanation::new("in the slice", 1.0))
        } else {
            Err(TantivyError::InvalidArgument(format!(
                "document {doc} is not in the slice"
            )))
        }
    }
}

/// A segment's values of the sliced field, as Lucene's sorted-numeric
/// longs (doubles as their sortable bits).
enum ColumnValues {
    Num(F64Column, ValueKind),
    Bool(tantivy::columnar::Column<bool>),
    Absent,
}

impl ColumnValues {
    fn open(reader: &SegmentReader, column: &str, kind: ValueKind) -> tantivy::Result<Self> {
        if let ValueKind::Bool = kind {
            for handle in reader.fast_fields().dynamic_column_handles(column)? {
                if handle.column_type() == ColumnType::Bool {
                    if let tantivy::columnar::DynamicColumn::Bool(c) = handle.open()? {
                        return Ok(ColumnValues::Bool(c));
                    }
                }
            }
            return Ok(ColumnValues::Absent);
        }
        Ok(F64Column::open(reader, column)
            .map_or(ColumnValues::Absent, |c| ColumnValues::Num(c, kind)))
    }

    fn smallest(&self, doc: DocId) -> Option<i64> {
        match self {
            ColumnValues::Num(column, kind) => column
                .values_for_doc(doc)
                .map(|v| match kind {
                    ValueKind::Double => sortable_bits(v),
                    _ => v as i64,
                })
                .min(),
            ColumnValues::Bool(column) => column.values_for_doc(doc).map(i64::from).min(),
            ColumnValues::Absent => None,
        }
    }
}

/// Lucene's `NumericUtils.doubleToSortableLong`.
fn sortable_bits(v: f64) -> i64 {
    let bits = v.to_bits() as i64;
    bits ^ ((bits >> 63) & 0x7fff_ffff_ffff_ffff)
}

/// hppc's `BitMixer.mix(long)`: `mix64` cut to an int.
fn mix(v: i64) -> i32 {
    let mut z = v as u64;
    z = (z ^ (z >> 32)).wrapping_mul(0x4cd6_944c_5cc2_0b6d);
    z = (z ^ (z >> 29)).wrapping_mul(0xfc12_c5b1_9d32_59e9);
    (z ^ (z >> 32)) as i32
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parse_refuses_as_elasticsearch_does() {
        let reason = |v: Value| {
            let e = Slice::parse(&v).unwrap_err();
            let cause = e.cause().map(ToString::to_string).unwrap_or_default();
            format!("{e} / {cause}")
        };
        assert_eq!(
            reason(json!({"id": 2, "max": 2})),
            "[slice] failed to parse field [max] / max must be greater than id"
        );
        assert_eq!(
            reason(json!({"max": 2, "id": 3})),
            "[slice] failed to parse field [max] / max must be greater than id"
        );
        assert_eq!(
            reason(json!({"id": 0, "max": 1})),
            "[slice] failed to parse field [max] / max must be greater than 1"
        );
        assert_eq!(
            reason(json!({"id": -1, "max": 4})),
            "[slice] failed to parse field [id] / id must be greater than or equal to 0"
        );
        assert!(reason(json!({"id": 0, "max": 2, "x": 1})).contains("unknown field [x]"));
        let ok = Slice::parse(&json!({"field": "n", "id": 1, "max": "3"})).unwrap();
        assert_eq!((ok.id, ok.max, ok.field.as_deref()), (1, 3, Some("n")));
    }
}
