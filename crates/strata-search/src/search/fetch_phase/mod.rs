//! The fetch phase: the hits of the requested page, each loaded from its
//! shard's document store and shaped as Elasticsearch shows it (`_id`,
//! `_score`, `_version`, `_seq_no`, `fields`, filtered `_source`, `sort`).
//!
//! A fetch that fails on a shard's documents for a request error (its
//! index's mapping refuses a `docvalue_fields` entry or the highlighter
//! `type`, a script field fails on its fields: a 400) fails that shard
//! alone, when it had hits on the page: its hits are left out and it is
//! reported in `_shards.failures`, as Elasticsearch's fetch phase does;
//! the request fails only when every shard searched does ("all shards
//! failed"), or on any other error.

mod index_fetch;

pub(crate) use index_fetch::IndexFetch;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use serde_json::value::{to_raw_value, RawValue};
use serde_json::{json, Map, Value};
use tantivy::{DocAddress, TantivyError};

use super::parallel;
use super::pruned_source;
use super::ranking::SortValues;
use super::request::{SearchRequest, StoredFields};
use super::source_filter::ReturnedSource;
use crate::breaker::estimate;
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::shard::PRIMARY_TERM;

/// A hit chosen by the query phase.
pub(crate) struct Candidate {
    /// Index of the index in the searched list.
    pub index: usize,
    /// Shard within the index.
    pub shard: usize,
    /// The document in the shard.
    pub addr: DocAddress,
    /// Score (NaN when sorting by fields without scores).
    pub score: f32,
    /// Sort values, when sorting by fields.
    pub values: Option<SortValues>,
}

/// The fetched page: its hits, in order, and the shards whose fetch
/// failed (their hits left out).
pub(crate) struct Fetched {
    /// The hits, serialized.
    pub hits: Vec<Box<RawValue>>,
    /// The failed shards, grouped by index and reason.
    pub failures: Vec<FetchFailure>,
}

/// Pages at least this long are fetched in parallel chunks.
const PARALLEL_FETCH: usize = 64;

/// The hits of `page`, in order, each serialized. A long page (Discover
/// asks for 500) is fetched in chunks at once on the search pool: loading
/// and shaping a stored document is most of a hit's cost.
///
/// A shard whose fetch fails with a request error (400) fails alone, as
/// in Elasticsearch's fetch phase: its hits are left out and it is
/// reported in `failures`; shards without hits on the page fetch nothing
/// and fail nothing. When every searched shard fails, the search does
/// ([`SearchError::ShardsFailed`], the first shard's failure its cause).
pub(crate) fn hits(
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    per_index: &mut [IndexFetch],
    page: &[Candidate],
) -> Result<Fetched> {
    // Failures known before any hit is fetched, per index.
    let known: Vec<Option<SearchError>> = per_index.iter_mut().map(|f| f.failure.take()).collect();
    let known_failed: Vec<bool> = known.iter().map(Option::is_some).collect();
    for (at, fetch) in per_index.iter_mut().enumerate() {
        if known_failed[at] || !page.iter().any(|c| c.index == at) {
            continue;
        }
        if req.version || req.seq_no_primary_term {
            fetch.open_versions()?;
        }
        fetch.open_date_columns();
    }
    let searched: usize = per_index.iter().map(|f| f.searchers.len()).sum();
    let per_index = &*per_index;
    let chunks = parallel::map_chunks(page, PARALLEL_FETCH, |chunk| {
        chunk_hits(indices, req, per_index, chunk, &known_failed)
    })?;
    let mut hits = Vec::with_capacity(page.len());
    // The first failure of each (index, shard) met on a hit.
    let mut met: BTreeMap<(usize, usize), SearchError> = BTreeMap::new();
    for chunk in chunks {
        for (at, hit) in chunk? {
            match hit {
                Ok(hit) => hits.push((at, hit)),
                Err(e) => {
                    met.entry(at).or_insert(e);
                }
            }
        }
    }
    // Grouped as Elasticsearch groups shard failures: by index and reason.
    let mut groups: Vec<(usize, FetchFailure)> = Vec::new();
    for (at, error) in known.into_iter().enumerate() {
        let Some(error) = error else { continue };
        let mut shards: Vec<usize> = page
            .iter()
            .filter(|c| c.index == at)
            .map(|c| c.shard)
            .collect();
        shards.sort_unstable();
        shards.dedup();
        // An index with no hit on the page fetches nothing, and fails nothing.
        if !shards.is_empty() {
            groups.push((at, failure(&indices[at], shards, error)));
        }
    }
    for ((at, shard), error) in met {
        let reason = error.to_string();
        let same = groups
            .iter_mut()
            .find(|(i, g)| *i == at && g.error.to_string() == reason);
        match same {
            Some((_, group)) => group.shards.push(shard),
            None => groups.push((at, failure(&indices[at], vec![shard], error))),
        }
    }
    groups.sort_by_key(|(at, g)| (*at, g.shards.first().copied()));
    let failed_shards: usize = groups.iter().map(|(_, g)| g.shards.len()).sum();
    if failed_shards > 0 && failed_shards >= searched {
        let (_, first) = groups.swap_remove(0);
        return Err(SearchError::ShardsFailed {
            phase: "fetch",
            cause: Box::new(first.error),
        });
    }
    let failed = |at: &(usize, usize)| {
        groups
            .iter()
            .any(|(i, g)| *i == at.0 && g.shards.contains(&at.1))
    };
    let hits = hits
        .into_iter()
        .filter(|(at, _)| !failed(at))
        .map(|(_, hit)| hit)
        .collect();
    let failures = groups.into_iter().map(|(_, g)| g).collect();
    Ok(Fetched { hits, failures })
}

/// A failure of `shards` of `index`.
fn failure(index: &SearchIndex, shards: Vec<usize>, error: SearchError) -> FetchFailure {
    FetchFailure {
        index: index.name().to_string(),
        shards,
        error,
    }
}

/// The shards of one index whose fetch failed, and why.
pub(crate) struct FetchFailure {
    /// The index.
    pub index: String,
    /// Its failed shards (that had hits on the page), ascending.
    pub shards: Vec<usize>,
    /// The failure.
    pub error: SearchError,
}

/// One hit as Elasticsearch writes it, in its key order.
#[derive(Serialize)]
struct Hit<'a> {
    _index: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    _id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    _version: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    _seq_no: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    _primary_term: Option<u64>,
    /// `null` when sorting by fields without scores.
    _score: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    _source: Option<ReturnedSource<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fields: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    highlight: Option<Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sort: Option<Vec<Value>>,
}

/// The hits of `page`, each with its (index, shard): a hit that fails
/// with a request error (400) is that error (the other shards' hits are
/// still fetched), any other error fails the chunk.
#[allow(clippy::type_complexity)]
fn chunk_hits(
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    per_index: &[IndexFetch],
    page: &[Candidate],
    known_failed: &[bool],
) -> Result<Vec<((usize, usize), Result<Box<RawValue>>)>> {
    let mut hits = Vec::with_capacity(page.len());
    for c in page {
        if known_failed[c.index] {
            continue;
        }
        let at = (c.index, c.shard);
        match one_hit(&indices[c.index], req, &per_index[c.index], c) {
            Ok(hit) => hits.push((at, Ok(hit))),
            Err(e) if e.status() == 400 => hits.push((at, Err(e))),
            Err(e) => return Err(e),
        }
    }
    Ok(hits)
}

/// How far a hit's source is parsed.
#[derive(Clone, Copy)]
enum Parse {
    /// Not at all (returned as stored, or not returned).
    Not,
    /// Along the `docvalue_fields` paths read from it.
    Pruned,
    /// Whole.
    Full,
}

/// One hit, loaded and shaped.
fn one_hit(
    index: &SearchIndex,
    req: &SearchRequest,
    fetch: &IndexFetch,
    c: &Candidate,
) -> Result<Box<RawValue>> {
    let (keep_id, keep_source) = match &req.stored_fields {
        None => (true, true),
        Some(StoredFields::Nothing) => (false, false),
        Some(StoredFields::Names { source_requested }) => (true, *source_requested),
    };
    {
        let shard = &index.shards()[c.shard];
        let doc = fetch.stores[c.shard].load(shard.fields(), &fetch.searchers[c.shard], c.addr)?;
        let source = shard.source_of(doc.stored_source())?;
        let stored: &[u8] = &source;
        let verbatim = (keep_source && req.source.is_whole())
            .then(|| serde_json::from_slice::<&RawValue>(stored).ok())
            .flatten();
        // The source is parsed only as far as it is needed: not at all
        // for a whole source (or none) without fields read from it, for
        // `docvalue_fields` alone only along their paths.
        let wants_fields = !fetch.docvalues.is_empty() || !fetch.fetch.is_empty();
        let fields_read_source = fetch.docvalues.reads_source() || !fetch.fetch.is_empty();
        let parse = if (verbatim.is_none() && keep_source) || fetch.highlights.is_some() {
            Parse::Full
        } else if !fields_read_source {
            Parse::Not
        } else if fetch.fetch.is_empty() {
            Parse::Pruned
        } else {
            Parse::Full
        };
        // The loaded document and its parsed form (if it is parsed) while
        // the hit is shaped; then the hit's bytes until the reply is sent.
        let parsed_bytes = match parse {
            Parse::Not => 0,
            Parse::Pruned | Parse::Full => estimate::parsed_json(stored),
        };
        let shaping = req.memory.part();
        shaping.reserve(stored.len() as u64 + parsed_bytes, "<fetch_phase>")?;
        let parsed = match parse {
            Parse::Not => None,
            Parse::Pruned => Some(pruned_source::parse(stored, &fetch.docvalues.paths())),
            Parse::Full => Some(serde_json::from_slice(stored).unwrap_or(Value::Null)),
        };
        let mut values = Map::new();
        if wants_fields {
            let mut dates = |at, out: &mut Vec<i64>| fetch.date_values(c.shard, c.addr, at, out);
            values = fetch.docvalues.fields(parsed.as_ref(), &mut dates);
            if let Some(source) = &parsed {
                fetch.fetch.add_to(source, &mut values);
            }
        }
        if !req.scripted.is_empty() {
            let segment = fetch.searchers[c.shard].segment_reader(c.addr.segment_ord);
            let wanted = |name: &str| {
                req.fetch_fields
                    .iter()
                    .any(|f| super::docvalues::matches(&f.field, name))
            };
            req.scripted.add_to(
                segment,
                c.addr.doc_id,
                &fetch.mappings,
                &wanted,
                &mut values,
            )?;
        }
        let highlight = match (&req.highlight, &fetch.highlights, &parsed) {
            (Some(h), Some(terms), Some(source)) => h.hit(
                terms,
                source,
                &fetch.mappings,
                index.shards()[c.shard].tantivy_index().tokenizers(),
            ),
            _ => None,
        };
        let source = match (verbatim, parsed) {
            (Some(raw), _) => Some(ReturnedSource::Verbatim(raw)),
            (None, Some(parsed)) if keep_source => {
                req.source.apply(parsed).map(ReturnedSource::Filtered)
            }
            (None, _) => None,
        };
        let (version, seq_no) = fetch.version_of(c.shard, c.addr);
        let hit = Hit {
            _index: index.name(),
            _id: keep_id.then(|| doc.id()),
            _version: req.version.then(|| json!(version)),
            _seq_no: req.seq_no_primary_term.then(|| json!(seq_no)),
            _primary_term: req.seq_no_primary_term.then_some(PRIMARY_TERM),
            _score: (c.values.is_none() || req.track_scores).then_some(c.score),
            _source: source,
            fields: (!values.is_empty()).then_some(values),
            highlight,
            sort: c.values.as_ref().map(|values| {
                values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| req.sort.get(i).map_or_else(|| v.to_json(), |f| f.shown(v)))
                    .collect()
            }),
        };
        // Serializing owned JSON values cannot fail; if it did, it is ours.
        let serialized = to_raw_value(&hit)
            .map_err(|e| SearchError::Engine(TantivyError::InternalError(e.to_string())))?;
        req.memory
            .reserve(serialized.get().len() as u64, "<fetch_phase>")?;
        Ok(serialized)
    }
}
