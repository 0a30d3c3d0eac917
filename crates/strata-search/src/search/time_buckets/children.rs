//! How a time histogram's children read a segment: a metric's (or a
//! percentiles') column, a filter's scorer, or a filter that is an
//! integer range over a column.

use tantivy::query::{EnableScoring, Query, Scorer};
use tantivy::{DocId, DocSet, SegmentReader};

use super::plan::{ChildKind, TimeBuckets};
use super::range_filter::{IntRange, RangeColumns};
use crate::search::numbers::F64Column;

/// How one child reads a segment.
pub(super) enum ChildReader {
    /// A metric's column (`None`: no values in this segment); when it
    /// holds exactly one value per document (`dense`), the values of the
    /// block of documents being collected are read into `block` at once.
    /// `digest`: the values go to the bucket's digest (`percentiles`),
    /// not its accumulator.
    Metric {
        digest: bool,
        column: Option<F64Column>,
        dense: bool,
        raw: Vec<u64>,
        block: Vec<f64>,
    },
    /// A filter's matching documents, and the first one not yet passed.
    Filter(Box<dyn Scorer>, DocId),
    /// A filter that is an integer range, over the column in `slot` of
    /// the histogram's [`RangeColumns`].
    Range { slot: usize, range: IntRange },
}

/// The readers of `plan`'s children in `segment`, in order; `queries` are
/// its filter children's queries, in order, and the columns of range
/// filters are opened into `ranges`.
pub(super) fn open_children(
    segment: &SegmentReader,
    plan: &TimeBuckets,
    queries: &[Box<dyn Query>],
    ranges: &mut RangeColumns,
) -> tantivy::Result<Vec<ChildReader>> {
    let mut queries = queries.iter();
    let mut children = Vec::with_capacity(plan.children.len());
    for child in &plan.children {
        children.push(match &child.kind {
            ChildKind::Metric { column, .. } | ChildKind::Percentiles { column, .. } => {
                let digest = matches!(child.kind, ChildKind::Percentiles { .. });
                let column = F64Column::open(segment, column);
                ChildReader::Metric {
                    digest,
                    dense: column.as_ref().is_some_and(F64Column::is_dense),
                    column,
                    raw: Vec::new(),
                    block: Vec::new(),
                }
            }
            ChildKind::Filter { range, .. } => {
                let query = queries.next().ok_or_else(|| {
                    tantivy::TantivyError::InternalError("filter query missing".into())
                })?;
                let slot = match range {
                    Some(range) => ranges.slot(segment, &range.column)?,
                    None => None,
                };
                if let (Some(slot), Some(range)) = (slot, range) {
                    children.push(ChildReader::Range {
                        slot,
                        range: range.clone(),
                    });
                    continue;
                }
                let scoring = EnableScoring::disabled_from_schema(segment.schema());
                let scorer = query.weight(scoring)?.scorer(segment, 1.0)?;
                let next = scorer.doc();
                ChildReader::Filter(scorer, next)
            }
        });
    }
    Ok(children)
}
