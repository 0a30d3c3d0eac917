//! Sorting hits by fields: the `sort` parameter, per-document sort keys
//! read from fast fields, and their order (missing values last, as
//! Elasticsearch does by default). Numeric keys are read from whatever
//! numeric column type a segment holds, so segments compare by value.

use std::cmp::Ordering;
use std::sync::Arc;

use serde_json::{json, Value};
use tantivy::columnar::{DynamicColumn, NumericalType};
use tantivy::{DocId, Score, SegmentReader};

use crate::error::{Result, SearchError};
use crate::mapping::{FieldType, Mappings};
use crate::store::KEYWORDS;

/// One sort criterion.
#[derive(Debug, Clone, PartialEq)]
pub struct SortField {
    /// Field path, `_score` or `_doc`.
    pub field: String,
    /// Descending?
    pub descending: bool,
    /// Type assumed where the field is unmapped.
    pub unmapped_type: Option<String>,
}

impl SortField {
    /// Parses `"f"`, `{"f": "desc"}`, `{"f": {"order": "desc", "unmapped_type": "long"}}` or a list.
    pub fn parse_list(v: &Value) -> Result<Vec<SortField>> {
        let items = match v {
            Value::Array(a) => a.clone(),
            other => vec![other.clone()],
        };
        items.iter().map(SortField::parse_one).collect()
    }

    fn parse_one(v: &Value) -> Result<SortField> {
        let default_desc = |f: &str| f == "_score";
        match v {
            Value::String(f) => Ok(SortField {
                field: f.clone(),
                descending: default_desc(f),
                unmapped_type: None,
            }),
            Value::Object(o) if o.len() == 1 => {
                let (field, spec) = o
                    .iter()
                    .next()
                    .ok_or_else(|| SearchError::parsing("empty sort"))?;
                let mut s = SortField {
                    field: field.clone(),
                    descending: default_desc(field),
                    unmapped_type: None,
                };
                let order = match spec {
                    Value::String(order) => Some(order.as_str()),
                    Value::Object(params) => {
                        for k in params.keys() {
                            if !matches!(
                                k.as_str(),
                                "order" | "unmapped_type" | "missing" | "format" | "numeric_type"
                            ) {
                                return Err(SearchError::parsing(format!(
                                    "[field_sort] unknown field [{k}]"
                                )));
                            }
                        }
                        if let Some(m) = params.get("missing").and_then(Value::as_str) {
                            if m != "_last" {
                                return Err(SearchError::illegal(format!(
                                    "[sort] missing [{m}] is not supported"
                                )));
                            }
                        }
                        s.unmapped_type = params
                            .get("unmapped_type")
                            .and_then(Value::as_str)
                            .map(str::to_string);
                        params.get("order").and_then(Value::as_str)
                    }
                    other => {
                        return Err(SearchError::parsing(format!("[sort] malformed: {other}")))
                    }
                };
                match order {
                    None => {}
                    Some("asc") => s.descending = false,
                    Some("desc") => s.descending = true,
                    Some(o) => {
                        return Err(SearchError::parsing(format!("[sort] unknown order [{o}]")))
                    }
                }
                Ok(s)
            }
            other => Err(SearchError::parsing(format!("[sort] malformed: {other}"))),
        }
    }

    /// Checks the field is sortable in `mappings`.
    pub fn validate(&self, mappings: &Mappings) -> Result<()> {
        if self.field == "_score" || self.field == "_doc" {
            return Ok(());
        }
        match mappings.leaf(&self.field) {
            None if self.unmapped_type.is_some() => Ok(()),
            None => Err(SearchError::Parsing(format!("No mapping found for [{}] in order to sort on", self.field))),
            Some(leaf) if leaf.ty == FieldType::Text => Err(SearchError::illegal(format!(
                "Text fields are not optimised for operations that require per-document field data like aggregations and sorting, so these operations are disabled by default. Please use a keyword field instead. Alternatively, set fielddata=true on [{}] in order to load field data by uninverting the inverted index.",
                self.field
            ))),
            Some(_) => Ok(()),
        }
    }
}

/// One sort value of a document.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    /// No value.
    Missing,
    /// An integer (long, date, boolean as 0/1, `_doc`).
    Int(i64),
    /// A float (`_score`, float fields).
    Float(f64),
    /// A string.
    Str(String),
}

impl SortValue {
    fn cmp_present(&self, other: &SortValue) -> Ordering {
        match (self, other) {
            (SortValue::Int(a), SortValue::Int(b)) => a.cmp(b),
            (SortValue::Str(a), SortValue::Str(b)) => a.cmp(b),
            (a, b) => a
                .as_f64()
                .partial_cmp(&b.as_f64())
                .unwrap_or(Ordering::Equal),
        }
    }

    fn as_f64(&self) -> f64 {
        match self {
            SortValue::Int(i) => *i as f64,
            SortValue::Float(f) => *f,
            _ => 0.0,
        }
    }

    /// The JSON value in a hit's `sort` array.
    pub fn to_json(&self) -> Value {
        match self {
            SortValue::Missing => Value::Null,
            SortValue::Int(i) => json!(i),
            SortValue::Float(f) => json!(f),
            SortValue::Str(s) => json!(s),
        }
    }

    /// A `search_after` value as a sort value.
    pub fn from_json(v: &Value) -> SortValue {
        match v {
            Value::Number(n) if n.is_i64() => SortValue::Int(n.as_i64().unwrap_or(0)),
            Value::Number(n) => SortValue::Float(n.as_f64().unwrap_or(0.0)),
            Value::String(s) => SortValue::Str(s.clone()),
            _ => SortValue::Missing,
        }
    }
}

/// A document's sort key; greater is better (what the top-K keeps).
#[derive(Debug, Clone)]
pub struct SortKey {
    /// The values, in criterion order.
    pub values: Vec<SortValue>,
    descending: Arc<Vec<bool>>,
    /// False when `search_after` excludes the document.
    pub eligible: bool,
}

impl SortKey {
    /// A key for `values` under the criteria's directions.
    pub fn new(values: Vec<SortValue>, descending: Arc<Vec<bool>>) -> SortKey {
        SortKey {
            values,
            descending,
            eligible: true,
        }
    }

    /// Ordering by criteria: `Less` means `self` ranks before `other`.
    pub fn rank_cmp(&self, other: &SortKey) -> Ordering {
        for (i, (a, b)) in self.values.iter().zip(&other.values).enumerate() {
            let desc = self.descending.get(i).copied().unwrap_or(false);
            let ord = match (a, b) {
                (SortValue::Missing, SortValue::Missing) => Ordering::Equal,
                (SortValue::Missing, _) => Ordering::Greater,
                (_, SortValue::Missing) => Ordering::Less,
                (a, b) if desc => b.cmp_present(a),
                (a, b) => a.cmp_present(b),
            };
            if ord != Ordering::Equal {
                return ord;
            }
        }
        Ordering::Equal
    }
}

impl PartialEq for SortKey {
    fn eq(&self, other: &Self) -> bool {
        self.partial_cmp(other) == Some(Ordering::Equal)
    }
}

impl PartialOrd for SortKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(match (self.eligible, other.eligible) {
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => other.rank_cmp(self),
        })
    }
}

/// Reads one criterion's values in one segment.
pub enum ValueReader {
    /// The document's score.
    Score,
    /// The segment-local doc id.
    Doc,
    /// An i64 column (long, date).
    Int(Option<tantivy::columnar::Column<i64>>),
    /// An f64 column.
    Float(Option<tantivy::columnar::Column<f64>>),
    /// A bool column.
    Bool(Option<tantivy::columnar::Column<bool>>),
    /// A string column.
    Str(Option<tantivy::columnar::StrColumn>),
}

impl ValueReader {
    /// Opens the reader of `field` in `segment`.
    pub fn open(field: &SortField, mappings: &Mappings, segment: &SegmentReader) -> ValueReader {
        if field.field == "_score" {
            return ValueReader::Score;
        }
        if field.field == "_doc" {
            return ValueReader::Doc;
        }
        let ty = mappings.leaf(&field.field).map(|l| l.ty).or_else(|| {
            field
                .unmapped_type
                .as_deref()
                .and_then(FieldType::from_name)
        });
        let name = format!("{KEYWORDS}.{}", field.field);
        let ff = segment.fast_fields();
        match ty {
            Some(t) if t.is_integer() || t == FieldType::Date => {
                match numeric_column(segment, &name, NumericalType::I64) {
                    Some(DynamicColumn::I64(c)) => ValueReader::Int(Some(c)),
                    // A column tantivy had to keep as f64 still sorts by value.
                    _ => match numeric_column(segment, &name, NumericalType::F64) {
                        Some(DynamicColumn::F64(c)) => ValueReader::Float(Some(c)),
                        _ => ValueReader::Int(None),
                    },
                }
            }
            Some(t) if t.is_float() => match numeric_column(segment, &name, NumericalType::F64) {
                Some(DynamicColumn::F64(c)) => ValueReader::Float(Some(c)),
                _ => ValueReader::Float(None),
            },
            Some(FieldType::Boolean) => {
                ValueReader::Bool(ff.column_opt::<bool>(&name).ok().flatten())
            }
            _ => ValueReader::Str(ff.str(&name).ok().flatten()),
        }
    }

    /// The value of `doc` (the first, for multi-valued fields).
    pub fn value(&self, doc: DocId, score: Score) -> SortValue {
        match self {
            ValueReader::Score => SortValue::Float(f64::from(score)),
            ValueReader::Doc => SortValue::Int(i64::from(doc)),
            ValueReader::Int(c) => c
                .as_ref()
                .and_then(|c| c.first(doc))
                .map_or(SortValue::Missing, SortValue::Int),
            ValueReader::Float(c) => c
                .as_ref()
                .and_then(|c| c.first(doc))
                .map_or(SortValue::Missing, SortValue::Float),
            ValueReader::Bool(c) => c
                .as_ref()
                .and_then(|c| c.first(doc))
                .map_or(SortValue::Missing, |b| SortValue::Int(i64::from(b))),
            ValueReader::Str(c) => {
                let Some(col) = c else {
                    return SortValue::Missing;
                };
                let Some(ord) = col.term_ords(doc).next() else {
                    return SortValue::Missing;
                };
                let mut s = String::new();
                match col.ord_to_str(ord, &mut s) {
                    Ok(true) => SortValue::Str(s),
                    _ => SortValue::Missing,
                }
            }
        }
    }
}

/// The segment's numeric column at `name`, whatever numeric type tantivy
/// stored it as (a float field whose values in a segment are all whole
/// numbers may be an i64 column there), coerced to `target`; `None` when
/// the segment has no numeric column there or it cannot be coerced.
pub fn numeric_column(
    segment: &SegmentReader,
    name: &str,
    target: NumericalType,
) -> Option<DynamicColumn> {
    let handles = segment.fast_fields().dynamic_column_handles(name).ok()?;
    handles
        .into_iter()
        .filter_map(|h| h.open().ok())
        .filter(DynamicColumn::is_numerical)
        .find_map(|c| c.coerce_numerical(target))
}
