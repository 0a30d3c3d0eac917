//! What fetching one searched index's hits needs, resolved once per
//! search against its mapping: `docvalue_fields`, `fields`, whether the
//! highlight can show anything, each shard's store readers and each
//! segment's version and `docvalue_fields` date columns.

use std::sync::Arc;

use tantivy::columnar::{Column, DynamicColumn, NumericalType};
use tantivy::{DocAddress, Searcher};

use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::search::docvalues::Resolved as DocvalueFields;
use crate::search::fetch_fields::ResolvedFields as FetchFields;
use crate::search::highlight::HighlightTerms;
use crate::search::request::SearchRequest;
use crate::search::sort::numeric_column;
use crate::store::stored_doc::StoreReaders;
use crate::store::{VersionColumns, KEYWORDS};

/// One segment's `docvalue_fields` date columns, with their field numbers.
type SegmentDates = Vec<(usize, Column<i64>)>;

/// What the fetch phase needs per searched index.
pub(crate) struct IndexFetch {
    /// `docvalue_fields` resolved against the index's mapping.
    pub docvalues: DocvalueFields,
    /// The `fields` option resolved against the index's mapping.
    pub fetch: FetchFields,
    /// The searchers the query phase used, one per shard.
    pub searchers: Vec<Searcher>,
    /// The index's mapping, for the doc values scripts read.
    pub mappings: Arc<crate::mapping::Mappings>,
    /// Why this index's hits cannot be fetched, found before any is.
    pub failure: Option<SearchError>,
    /// What the request's `highlight` tags in this index, when it can show
    /// anything (`Highlight::terms`; `None` without one).
    pub(super) highlights: Option<HighlightTerms>,
    /// Per shard: the store readers its hits are loaded through.
    pub(super) stores: Vec<Arc<StoreReaders>>,
    /// Per shard, per segment: `_version` and `_seq_no`, opened once per
    /// fetch that shows them ([`IndexFetch::open_versions`]), not per hit.
    versions: Vec<Vec<VersionColumns>>,
    /// Per shard, per segment: the date columns `docvalue_fields` reads,
    /// with their field numbers in [`DocvalueFields::fields`], opened once
    /// per fetch with hits of this index ([`IndexFetch::open_date_columns`]).
    dates: Vec<Vec<SegmentDates>>,
}

impl IndexFetch {
    /// What fetching `index`'s hits needs; a request error (400) of this
    /// index's mapping (`docvalue_fields`, `fields`, a highlighter type)
    /// is kept as its failure, met by the shards with hits to fetch.
    pub fn resolve(
        index: &Arc<SearchIndex>,
        req: &SearchRequest,
        mappings: &Arc<crate::mapping::Mappings>,
    ) -> Result<IndexFetch> {
        let resolved =
            crate::search::docvalues::resolve(&req.docvalue_fields, mappings).and_then(|d| {
                let f = crate::search::fetch_fields::resolve(&req.fetch_fields, mappings)?;
                if let Some(h) = &req.highlight {
                    h.check(mappings)?;
                }
                Ok((d, f))
            });
        let (docvalues, fetch, failure) = match resolved {
            Ok((d, f)) => (d, f, None),
            Err(e) if e.status() == 400 => {
                (DocvalueFields::default(), FetchFields::default(), Some(e))
            }
            Err(e) => return Err(e),
        };
        let tokenizers = index
            .shards()
            .first()
            .map(|s| s.tantivy_index().tokenizers());
        let highlights = match (&req.highlight, tokenizers) {
            (Some(h), Some(tokenizers)) => h.terms(&req.query, tokenizers),
            _ => None,
        };
        let searchers = crate::search::snapshot::searchers(req.snapshot.as_ref(), index);
        let stores = index
            .shards()
            .iter()
            .zip(&searchers)
            .map(|(shard, searcher)| shard.store_readers(searcher))
            .collect();
        Ok(IndexFetch {
            docvalues,
            fetch,
            searchers,
            stores,
            mappings: Arc::clone(mappings),
            failure,
            highlights,
            versions: Vec::new(),
            dates: Vec::new(),
        })
    }

    /// Opens every segment's version columns, for a page with hits of
    /// this index that shows `_version` or `_seq_no`.
    pub(super) fn open_versions(&mut self) -> Result<()> {
        self.versions = self
            .searchers
            .iter()
            .map(|s| {
                s.segment_readers()
                    .iter()
                    .map(VersionColumns::open)
                    .collect()
            })
            .collect::<tantivy::Result<_>>()?;
        Ok(())
    }

    /// Opens every segment's columns of the dates `docvalue_fields` reads,
    /// for a page with hits of this index.
    pub(super) fn open_date_columns(&mut self) {
        let names: Vec<(usize, String)> = self
            .docvalues
            .column_fields()
            .map(|(at, name)| (at, format!("{KEYWORDS}.{name}")))
            .collect();
        if names.is_empty() {
            return;
        }
        self.dates = self
            .searchers
            .iter()
            .map(|s| {
                s.segment_readers()
                    .iter()
                    .map(|segment| {
                        names
                            .iter()
                            .filter_map(|(at, name)| {
                                match numeric_column(segment, name, NumericalType::I64) {
                                    Some(DynamicColumn::I64(column)) => Some((*at, column)),
                                    _ => None,
                                }
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
    }

    /// The values of the `docvalue_fields` date numbered `at` of the hit at
    /// `addr` of `shard`, into `out` (none when its segment has no such
    /// column, or the columns were not opened).
    pub(super) fn date_values(
        &self,
        shard: usize,
        addr: DocAddress,
        at: usize,
        out: &mut Vec<i64>,
    ) {
        let columns = self
            .dates
            .get(shard)
            .and_then(|segments| segments.get(addr.segment_ord as usize));
        if let Some((_, column)) = columns.and_then(|c| c.iter().find(|(n, _)| *n == at)) {
            out.extend(column.values_for_doc(addr.doc_id));
        }
    }

    /// `(_version, _seq_no)` of the hit at `addr` of `shard`; zeros when the columns were not
    /// opened (the request shows neither).
    pub(super) fn version_of(&self, shard: usize, addr: DocAddress) -> (u64, u64) {
        self.versions
            .get(shard)
            .and_then(|segments| segments.get(addr.segment_ord as usize))
            .map_or((0, 0), |columns| columns.get(addr.doc_id))
    }
}
