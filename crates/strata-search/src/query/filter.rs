//! What the filter queries (`DateRangeQuery`, `IpRangeQuery`, the geo
//! queries) share in their tantivy `Weight`s: the scorer that matches a
//! whole segment and the explanation of a match that scores 1.0.
//!
//! A leaf of the query module: it names only tantivy, so the filter
//! queries use it without depending on the dispatcher in `query/mod.rs`.

use tantivy::query::{AllScorer, ConstScorer, Explanation, Scorer, Weight};
use tantivy::{DocId, DocSet, Score, SegmentReader, TantivyError};

/// The scorer of a filter that matches every document of `reader`. At
/// boost 1.0 (always, when scores are not needed) it is tantivy's bare
/// `AllScorer`, which a boolean query drops from its intersections instead
/// of stepping through it document by document; any other boost needs a
/// wrapper, which tantivy does not recognise.
pub(crate) fn all_docs(reader: &SegmentReader, boost: Score) -> Box<dyn Scorer> {
    let all = AllScorer::new(reader.max_doc());
    if boost == 1.0 {
        Box::new(all)
    } else {
        Box::new(ConstScorer::new(all, boost))
    }
}

/// `Weight::explain` of a filter that scores every match 1.0: the
/// explanation `name` when `doc` matches, an error otherwise.
pub(crate) fn explain_filter(
    weight: &dyn Weight,
    reader: &SegmentReader,
    doc: DocId,
    name: &'static str,
) -> tantivy::Result<Explanation> {
    let mut scorer = weight.scorer(reader, 1.0)?;
    // A scorer already past `doc` (or terminated) must not seek back.
    let at = scorer.doc();
    if at == doc || (at < doc && scorer.seek(doc) == doc) {
        Ok(Explanation::new(name, 1.0))
    } else {
        Err(TantivyError::InvalidArgument(format!(
            "document {doc} does not match [{name}]"
        )))
    }
}
