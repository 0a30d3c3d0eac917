//! Filter children that are one range over an integer field (Kibana's
//! response classes: `response_code:[200 TO 300]` four times), counted
//! from the field's column instead of through a scorer each.
//!
//! Four range scorers scan the same column four times and step through
//! their matches one call at a time; here the column is read once per
//! block of documents for all the filters on it, and each counts the
//! values of the block within its bounds. Where a segment's column does
//! not hold exactly one `i64` per document, the child falls back to its
//! query's scorer, so the counts are the query's either way.

use std::sync::Arc;

use serde_json::Value;
use tantivy::columnar::ColumnValues;
use tantivy::{DocId, SegmentReader};

use crate::mapping::Mappings;
use crate::query::column_cache::dense_i64_column;
use crate::query::query_string::lone_range;
use crate::search::aggs::only_entry;
use crate::store::KEYWORDS;

/// Documents whose value of an integer field lies in `low..=high`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntRange {
    /// The field's column, as tantivy's requests name it.
    pub column: String,
    pub low: i64,
    pub high: i64,
}

impl IntRange {
    /// Whether `value` lies in the range.
    #[inline]
    pub fn contains(&self, value: i64) -> bool {
        self.low <= value && value <= self.high
    }
}

/// The integer range `query` (an Elasticsearch query) is, when it is only
/// that: `{"range": {field: {gte|gt|lte|lt: n}}}` or a `query_string`
/// whose text is one range on one field, over a field mapped as an
/// integer type, with integer bounds.
pub fn recognize(query: &Value, mappings: &Mappings) -> Option<IntRange> {
    let (kind, body) = only_entry(query)?;
    match kind.as_str() {
        "range" => {
            let (field, bounds) = only_entry(body)?;
            let bounds = bounds.as_object()?;
            let known = ["gte", "gt", "lte", "lt"];
            if bounds.keys().any(|k| !known.contains(&k.as_str())) {
                return None;
            }
            let low = match (bounds.get("gte"), bounds.get("gt")) {
                (None, None) => i64::MIN,
                (Some(v), None) => integer(v)?,
                (None, Some(v)) => integer(v)?.checked_add(1)?,
                (Some(_), Some(_)) => return None,
            };
            let high = match (bounds.get("lte"), bounds.get("lt")) {
                (None, None) => i64::MAX,
                (Some(v), None) => integer(v)?,
                (None, Some(v)) => integer(v)?.checked_sub(1)?,
                (Some(_), Some(_)) => return None,
            };
            int_range(field, low, high, mappings)
        }
        "query_string" => {
            let params = body.as_object()?;
            // Keys that do not change what a fielded range matches.
            let known = ["query", "analyze_wildcard", "default_field"];
            if params.keys().any(|k| !known.contains(&k.as_str())) {
                return None;
            }
            let range = lone_range(params.get("query")?.as_str()?)?;
            let bound = |text: &Option<String>, inclusive: bool, step: i64, open: i64| match text {
                None => Some(open),
                Some(t) => {
                    let n = t.parse::<i64>().ok()?;
                    if inclusive {
                        Some(n)
                    } else {
                        n.checked_add(step)
                    }
                }
            };
            let low = bound(&range.low, range.low_inclusive, 1, i64::MIN)?;
            let high = bound(&range.high, range.high_inclusive, -1, i64::MAX)?;
            int_range(&range.field, low, high, mappings)
        }
        _ => None,
    }
}

/// The integer columns of one segment that range children read, each
/// once per block of documents however many children read it.
#[derive(Default)]
pub(super) struct RangeColumns {
    names: Vec<String>,
    values: Vec<Arc<dyn ColumnValues<i64>>>,
    blocks: Vec<Vec<i64>>,
}

impl RangeColumns {
    /// The slot of `column` in `segment`, opened on first use; `None` when
    /// the segment's column is not exactly one `i64` per document.
    pub fn slot(
        &mut self,
        segment: &SegmentReader,
        column: &str,
    ) -> tantivy::Result<Option<usize>> {
        if let Some(slot) = self.names.iter().position(|n| n == column) {
            return Ok(Some(slot));
        }
        let Some(values) = dense_i64_column(segment, column)? else {
            return Ok(None);
        };
        self.names.push(column.to_string());
        self.values.push(values);
        self.blocks.push(Vec::new());
        Ok(Some(self.values.len() - 1))
    }

    /// Reads every column's values of `docs`.
    pub fn read_block(&mut self, docs: &[DocId]) {
        for (values, block) in self.values.iter().zip(&mut self.blocks) {
            block.resize(docs.len(), 0);
            values.get_vals(docs, block);
        }
    }

    /// The values of the block last read, in column `slot`.
    pub fn block(&self, slot: usize) -> &[i64] {
        &self.blocks[slot]
    }

    /// The value of `doc` in column `slot`.
    pub fn value(&self, slot: usize, doc: DocId) -> i64 {
        self.values[slot].get_val(doc)
    }
}

fn int_range(field: &str, low: i64, high: i64, mappings: &Mappings) -> Option<IntRange> {
    mappings.leaf(field).filter(|l| l.ty.is_integer())?;
    Some(IntRange {
        column: format!("{KEYWORDS}.{field}"),
        low,
        high,
    })
}

/// A bound written as a JSON integer or a string of one.
fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn integer_ranges_are_recognized_and_the_rest_is_not() {
        let mappings = Mappings::parse(&json!({"properties": {
            "code": {"type": "long"}, "ratio": {"type": "double"}, "name": {"type": "keyword"}
        }}))
        .unwrap();
        let range = |low, high| {
            Some(IntRange {
                column: format!("{KEYWORDS}.code"),
                low,
                high,
            })
        };
        let qs = |text: &str| json!({"query_string": {"query": text, "analyze_wildcard": true}});
        for (query, want) in [
            (qs("code:[200 TO 300]"), range(200, 300)),
            (qs("code: {200 TO 300}"), range(201, 299)),
            (qs("code:[400 TO *]"), range(400, i64::MAX)),
            (qs("code:>=500"), range(500, i64::MAX)),
            (
                json!({"range": {"code": {"gte": 400, "lt": "500"}}}),
                range(400, 499),
            ),
            (json!({"range": {"code": {"gt": -1}}}), range(0, i64::MAX)),
            (qs("code:[200 TO 300] OR code:404"), None),
            (qs("ratio:[1 TO 2]"), None),
            (qs("name:[a TO b]"), None),
            (qs("code:[1.5 TO 2]"), None),
            (qs("missing:[1 TO 2]"), None),
            (
                json!({"query_string": {"query": "code:[1 TO 2]", "lenient": true}}),
                None,
            ),
            (json!({"range": {"code": {"gte": 1, "format": "x"}}}), None),
            (json!({"range": {"code": {"gte": 1, "gt": 2}}}), None),
            (json!({"range": {"code": {"lt": i64::MIN}}}), None),
            (json!({"term": {"code": 1}}), None),
        ] {
            assert_eq!(recognize(&query, &mappings), want, "{query}");
        }
    }
}
