//! What the scanned aggregations read: each matching document's values of
//! a few fields from their columns (`Key`s), through one generic tantivy
//! collector ([`ScanCollector`]) that hands them to an aggregation's
//! [`Scan`] implementation, per segment, and merges the parts.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde_json::{json, Value};
use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::{Column, ColumnType, DynamicColumn, StrColumn};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use crate::error::{Result, SearchError};
use crate::mapping::date::{format_millis, DateFormat};
use crate::mapping::{FieldType, Mappings};
use crate::search::numbers::F64Column;
use crate::search::sort::str_column;
use crate::store::KEYWORDS;

/// A number with a total order and hash (`-0.0` is `0.0`).
#[derive(Debug, Clone, Copy)]
pub struct Num(pub f64);

impl Num {
    fn bits(self) -> u64 {
        if self.0 == 0.0 {
            0
        } else {
            self.0.to_bits()
        }
    }
}

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        self.bits() == other.bits()
    }
}
impl Eq for Num {}
impl Hash for Num {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bits().hash(state);
    }
}
impl PartialOrd for Num {
    fn partial_cmp(&self, other: &Num) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Num {
    fn cmp(&self, other: &Num) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// One value of a field: numbers (dates as epoch milliseconds, booleans
/// as 0/1) sort before strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Key {
    /// A number, date or boolean.
    Num(Num),
    /// A keyword or ip (shared: a segment's reader hands out the same
    /// text for every document with that term, without copying it).
    Str(Arc<str>),
}

impl Key {
    /// The number, if one.
    pub fn num(&self) -> Option<f64> {
        match self {
            Key::Num(n) => Some(n.0),
            Key::Str(_) => None,
        }
    }

    /// The bytes a distinct count hashes.
    pub fn bytes(&self) -> Vec<u8> {
        match self {
            Key::Num(n) => n.bits().to_le_bytes().to_vec(),
            Key::Str(s) => s.as_bytes().to_vec(),
        }
    }
}

/// How a field's values are read and written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// Keyword or ip: strings.
    Str,
    /// Whole numbers.
    Long,
    /// Other numbers.
    Double,
    /// Epoch milliseconds, written with `key_as_string`.
    Date,
    /// 0/1, written with `key_as_string` `false`/`true`.
    Bool,
}

impl ValueKind {
    /// The kind of a mapped field an aggregation `name` reads; text and
    /// geo fields are refused as Elasticsearch refuses them.
    pub fn of(mappings: &Mappings, field: &str, name: &str) -> Result<Option<ValueKind>> {
        let Some(leaf) = mappings.leaf(field) else {
            return Ok(None);
        };
        Ok(Some(match leaf.ty {
            FieldType::Keyword | FieldType::Ip => ValueKind::Str,
            FieldType::Date => ValueKind::Date,
            FieldType::Boolean => ValueKind::Bool,
            t if t.is_integer() => ValueKind::Long,
            t if t.is_float() => ValueKind::Double,
            FieldType::Text => {
                return Err(SearchError::illegal(format!(
                    "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{field}] in order to load field data by uninverting the inverted index."
                )))
            }
            other => {
                return Err(SearchError::illegal(format!(
                    "Field [{field}] of type [{}] is not supported for aggregation [{name}]",
                    other.name()
                )))
            }
        }))
    }

    /// A request value (`missing`, `after`) as a key of this kind.
    pub fn key_of(self, value: &Value) -> Option<Key> {
        match (self, value) {
            (ValueKind::Str, Value::String(s)) => Some(Key::Str(s.as_str().into())),
            (ValueKind::Str, Value::Number(n)) => Some(Key::Str(n.to_string().into())),
            (ValueKind::Bool, Value::Bool(b)) => Some(Key::Num(Num(f64::from(u8::from(*b))))),
            (ValueKind::Bool, Value::String(s)) => match s.as_str() {
                "true" => Some(Key::Num(Num(1.0))),
                "false" => Some(Key::Num(Num(0.0))),
                _ => None,
            },
            (ValueKind::Date, Value::String(s)) => {
                let format = DateFormat::parse("strict_date_optional_time||epoch_millis").ok()?;
                format.parse_str(s).ok().map(|ms| Key::Num(Num(ms as f64)))
            }
            (_, Value::Number(n)) => n.as_f64().map(|f| Key::Num(Num(f))),
            (_, Value::String(s)) => s.trim().parse().ok().map(|f| Key::Num(Num(f))),
            _ => None,
        }
    }

    /// `key` (and `key_as_string` where Elasticsearch writes one).
    pub fn write(self, key: &Key) -> (Value, Option<String>) {
        match (self, key) {
            (_, Key::Str(s)) => (json!(&**s), None),
            (ValueKind::Long, Key::Num(n)) | (ValueKind::Date, Key::Num(n))
                if n.0.fract() == 0.0 && n.0.abs() < 9.0e15 =>
            {
                let whole = n.0 as i64;
                let text = (self == ValueKind::Date).then(|| format_millis(whole));
                (json!(whole), text)
            }
            (ValueKind::Bool, Key::Num(n)) => (
                json!(n.0 as i64),
                Some(if n.0 != 0.0 { "true" } else { "false" }.to_string()),
            ),
            (_, Key::Num(n)) => (json!(n.0), None),
        }
    }

    /// A query for the documents holding `key`.
    pub fn filter(self, field: &str, key: &Key) -> Value {
        match (self, key) {
            (ValueKind::Date, Key::Num(n)) => json!({"range": {field: {
                "gte": n.0 as i64, "lte": n.0 as i64, "format": "epoch_millis"}}}),
            (ValueKind::Bool, Key::Num(n)) => json!({"term": {field: n.0 != 0.0}}),
            (_, k) => json!({"term": {field: self.write(k).0}}),
        }
    }
}

/// One field's column in one segment.
pub(crate) enum Reader {
    Str(StrColumn, HashMap<u64, Arc<str>>),
    Num(F64Column),
    Bool(Column<bool>),
    Absent,
}

impl Reader {
    pub(crate) fn open(
        segment: &SegmentReader,
        field: &str,
        kind: ValueKind,
    ) -> tantivy::Result<Reader> {
        let column = format!("{KEYWORDS}.{field}");
        Ok(match kind {
            ValueKind::Str => match str_column(segment, &column)? {
                Some(c) => Reader::Str(c, HashMap::new()),
                None => Reader::Absent,
            },
            ValueKind::Bool => {
                let mut found = Reader::Absent;
                for handle in segment.fast_fields().dynamic_column_handles(&column)? {
                    if handle.column_type() == ColumnType::Bool {
                        if let DynamicColumn::Bool(c) = handle.open()? {
                            found = Reader::Bool(c);
                        }
                    }
                }
                found
            }
            _ => F64Column::open(segment, &column).map_or(Reader::Absent, Reader::Num),
        })
    }

    pub(crate) fn read(&mut self, doc: DocId, out: &mut Vec<Key>) {
        out.clear();
        match self {
            Reader::Str(column, names) => {
                for ord in column.term_ords(doc) {
                    let text = names.entry(ord).or_insert_with(|| {
                        let mut s = String::new();
                        // An ordinal of the column is always in its dictionary.
                        let _ = column.ord_to_str(ord, &mut s);
                        Arc::from(s)
                    });
                    out.push(Key::Str(Arc::clone(text)));
                }
            }
            Reader::Num(column) => out.extend(column.values_for_doc(doc).map(|v| Key::Num(Num(v)))),
            Reader::Bool(column) => out.extend(
                column
                    .values_for_doc(doc)
                    .map(|b| Key::Num(Num(f64::from(u8::from(b))))),
            ),
            Reader::Absent => {}
        }
    }
}

/// An aggregation computed from the values of the matching documents.
pub trait Scan: Send + Sync + 'static {
    /// What one segment (then the merge) accumulates.
    type Acc: Send + Default + 'static;
    /// An empty accumulator, for each segment and for the merge (the
    /// default one unless the scan's accumulators carry a setting).
    fn start(&self) -> Self::Acc {
        Self::Acc::default()
    }
    /// The fields read, with their kinds; `doc` gets their values in this order.
    fn fields(&self) -> Vec<(String, ValueKind)>;
    /// Adds one document (`values[i]`: the values of field `i`).
    fn doc(&self, values: &[Vec<Key>], acc: &mut Self::Acc);
    /// Adds another part.
    fn merge(&self, into: &mut Self::Acc, part: Self::Acc);
}

/// The tantivy collector of a [`Scan`].
pub struct ScanCollector<S: Scan>(pub Arc<S>);

/// Its per-segment part.
pub struct ScanSegment<S: Scan> {
    scan: Arc<S>,
    readers: Vec<Reader>,
    values: Vec<Vec<Key>>,
    acc: S::Acc,
}

impl<S: Scan> Collector for ScanCollector<S> {
    type Fruit = S::Acc;
    type Child = ScanSegment<S>;

    fn for_segment(
        &self,
        _: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<Self::Child> {
        let fields = self.0.fields();
        let readers = fields
            .iter()
            .map(|(f, kind)| Reader::open(segment, f, *kind))
            .collect::<tantivy::Result<Vec<_>>>()?;
        Ok(ScanSegment {
            scan: Arc::clone(&self.0),
            values: vec![Vec::new(); readers.len()],
            readers,
            acc: self.0.start(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<S::Acc>) -> tantivy::Result<S::Acc> {
        let mut out = self.0.start();
        for f in fruits {
            self.0.merge(&mut out, f);
        }
        Ok(out)
    }
}

impl<S: Scan> SegmentCollector for ScanSegment<S> {
    type Fruit = S::Acc;

    fn collect(&mut self, doc: DocId, _score: Score) {
        for (reader, out) in self.readers.iter_mut().zip(self.values.iter_mut()) {
            reader.read(doc, out);
        }
        self.scan.doc(&self.values, &mut self.acc);
    }

    fn harvest(self) -> S::Acc {
        self.acc
    }
}
