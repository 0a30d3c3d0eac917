//! `doc['field']` for scripts: the values of one document read from its
//! segment's columns (the fast fields under `f.<path>`), typed by the
//! mapping as Elasticsearch's doc values are: whole numbers for integer
//! types, doubles for floating types, dates as `ZonedDateTime`s, keywords
//! and IPs as strings, booleans. A `text` field or an unmapped name is the
//! error Elasticsearch gives. Columns are opened once per segment.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;

use strata_script::{DocLookup, DocValue, LookupError};
use tantivy::columnar::{Column, ColumnType, DynamicColumn, NumericalType, StrColumn};
use tantivy::{DocId, SegmentReader};

use crate::mapping::{FieldType, Mappings};
use crate::search::sort::{numeric_column, str_column};
use crate::store::KEYWORDS;

enum Reader {
    Ints(Column<i64>),
    Doubles(Column<f64>),
    Dates(Column<i64>),
    Bools(Column<bool>),
    Strings(StrColumn),
    /// Mapped, but this segment has no values.
    Nothing,
    Refused(LookupError),
}

/// The doc values of the current document of one segment.
pub struct SegmentDocValues {
    segment: SegmentReader,
    mappings: Arc<Mappings>,
    columns: RefCell<HashMap<String, Reader>>,
    doc: Cell<DocId>,
}

impl SegmentDocValues {
    /// Doc values over `segment`, typed by `mappings`.
    pub fn new(segment: &SegmentReader, mappings: Arc<Mappings>) -> SegmentDocValues {
        SegmentDocValues {
            segment: segment.clone(),
            mappings,
            columns: RefCell::new(HashMap::new()),
            doc: Cell::new(0),
        }
    }

    /// Moves to `doc`.
    pub fn set_doc(&self, doc: DocId) {
        self.doc.set(doc);
    }

    fn open(&self, name: &str) -> Reader {
        let Some(leaf) = self.mappings.leaf(name) else {
            return Reader::Refused(LookupError {
                kind: "illegal_argument_exception",
                reason: format!("No field found for [{name}] in mapping"),
            });
        };
        let column = format!("{KEYWORDS}.{name}");
        let numeric = |target| numeric_column(&self.segment, &column, target);
        match leaf.ty {
            FieldType::Text => Reader::Refused(LookupError {
                kind: "illegal_argument_exception",
                reason: format!(
                    "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{name}] in order to load field data by uninverting the inverted index. Note that this can use significant memory."
                ),
            }),
            FieldType::GeoPoint => Reader::Refused(LookupError {
                kind: "illegal_argument_exception",
                reason: format!("[{name}]: geo_point doc values are not supported by Strata's scripts"),
            }),
            FieldType::Long | FieldType::Integer | FieldType::Short | FieldType::Byte => match numeric(NumericalType::I64) {
                Some(DynamicColumn::I64(c)) => Reader::Ints(c),
                _ => Reader::Nothing,
            },
            FieldType::Double | FieldType::Float | FieldType::HalfFloat | FieldType::ScaledFloat => {
                match numeric(NumericalType::F64) {
                    Some(DynamicColumn::F64(c)) => Reader::Doubles(c),
                    _ => Reader::Nothing,
                }
            }
            FieldType::Date => match numeric(NumericalType::I64) {
                Some(DynamicColumn::I64(c)) => Reader::Dates(c),
                _ => Reader::Nothing,
            },
            FieldType::Boolean => {
                let handles = self.segment.fast_fields().dynamic_column_handles(&column).unwrap_or_default();
                let found = handles.into_iter().filter(|h| h.column_type() == ColumnType::Bool).find_map(|h| match h.open() {
                    Ok(DynamicColumn::Bool(c)) => Some(c),
                    _ => None,
                });
                found.map_or(Reader::Nothing, Reader::Bools)
            }
            FieldType::Keyword | FieldType::Ip => match str_column(&self.segment, &column) {
                Ok(Some(c)) => Reader::Strings(c),
                _ => Reader::Nothing,
            },
        }
    }
}

impl DocLookup for SegmentDocValues {
    fn field(&self, name: &str) -> Result<Vec<DocValue>, LookupError> {
        let mut columns = self.columns.borrow_mut();
        let reader = columns
            .entry(name.to_string())
            .or_insert_with(|| self.open(name));
        let doc = self.doc.get();
        let mut out = match reader {
            Reader::Refused(e) => return Err(e.clone()),
            Reader::Nothing => Vec::new(),
            Reader::Ints(c) => c.values_for_doc(doc).map(DocValue::Int).collect(),
            Reader::Doubles(c) => c.values_for_doc(doc).map(DocValue::Double).collect(),
            Reader::Dates(c) => c.values_for_doc(doc).map(DocValue::Date).collect(),
            Reader::Bools(c) => c.values_for_doc(doc).map(DocValue::Bool).collect(),
            Reader::Strings(c) => {
                let mut out = Vec::new();
                for ord in c.term_ords(doc) {
                    let mut text = String::new();
                    if c.ord_to_str(ord, &mut text).unwrap_or(false) {
                        out.push(DocValue::Str(text));
                    }
                }
                out
            }
        };
        // Doc values are sorted.
        out.sort_by(|a, b| match (a, b) {
            (DocValue::Int(x), DocValue::Int(y)) | (DocValue::Date(x), DocValue::Date(y)) => {
                x.cmp(y)
            }
            (DocValue::Double(x), DocValue::Double(y)) => x.total_cmp(y),
            (DocValue::Bool(x), DocValue::Bool(y)) => x.cmp(y),
            _ => std::cmp::Ordering::Equal,
        });
        Ok(out)
    }

    fn contains(&self, name: &str) -> bool {
        self.mappings.leaf(name).is_some()
    }
}
