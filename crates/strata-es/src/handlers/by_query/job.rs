//! One by-query job: the matching documents of a [`Snapshot`] read in
//! batches (`search_after` on `_shard_doc`, with `_seq_no` and
//! `_primary_term`), each passed through the job's [`DocumentStep`] and
//! written (indexed back, indexed into the destination, or deleted) with
//! the sequence number read as precondition, so a document changed since
//! the snapshot is a version conflict, as in Elasticsearch.
//!
//! Conflicts abort the job or are counted (`conflicts=proceed`); any other
//! failure stops it. Between batches the job honours cancellation and
//! `requests_per_second`, and publishes its counters to its task.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use strata_search::{Precondition, SearchError, SearchIndex, SearchRequest, Snapshot, WriteResult};

use super::step::{DocumentStep, Op, SourceDoc};
use crate::error::EsError;
use crate::tasks::Task;

/// What to do on a version conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conflicts {
    /// Stop the job (the default).
    Abort,
    /// Count it and go on.
    Proceed,
}

/// Where documents a step keeps are written.
pub enum Destination {
    /// Back where they were read (`_update_by_query`).
    InPlace,
    /// Into another index (`_reindex`), as `op_type` says.
    Index {
        /// The destination index.
        index: Arc<SearchIndex>,
        /// `create`: only documents missing there.
        create_only: bool,
        /// `version_type=external|external_gte`: keep the source's
        /// version (`Some(gte)`), writing only over older documents.
        external: Option<bool>,
    },
}

/// A job, ready to run.
pub struct Job {
    /// The pinned searchers of the source indices.
    pub snapshot: Arc<Snapshot>,
    /// The search of each batch (query, batch size, pinned searchers).
    pub request: SearchRequest,
    /// Stop after this many documents.
    pub max_docs: Option<u64>,
    /// Conflict handling.
    pub conflicts: Conflicts,
    /// Documents per second, `None`: unthrottled.
    pub requests_per_second: Option<f64>,
    /// Refresh the written indices at the end.
    pub refresh: bool,
    /// What happens to each document.
    pub step: Box<dyn DocumentStep>,
    /// Where kept documents go.
    pub destination: Destination,
}

/// The job's counters (Elasticsearch's `BulkByScrollTask.Status`).
#[derive(Debug, Default)]
struct Counters {
    total: u64,
    updated: u64,
    created: u64,
    deleted: u64,
    batches: u64,
    version_conflicts: u64,
    noops: u64,
    throttled: Duration,
    failures: Vec<Value>,
    canceled: bool,
}

impl Counters {
    fn done(&self) -> u64 {
        self.updated + self.created + self.deleted + self.noops
    }

    fn status(&self, rps: Option<f64>) -> Value {
        let mut s = json!({
            "total": self.total,
            "updated": self.updated,
            "created": self.created,
            "deleted": self.deleted,
            "batches": self.batches,
            "version_conflicts": self.version_conflicts,
            "noops": self.noops,
            "retries": {"bulk": 0, "search": 0},
            "throttled_millis": self.throttled.as_millis() as u64,
            "requests_per_second": rps.unwrap_or(-1.0),
            "throttled_until_millis": 0,
        });
        if self.canceled {
            s["canceled"] = json!("by user request");
        }
        s
    }
}

/// A hit of a batch: what the write needs.
#[derive(Deserialize)]
struct Hit<'a> {
    #[serde(rename = "_index")]
    index: String,
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "_version", default)]
    version: u64,
    #[serde(rename = "_seq_no")]
    seq_no: u64,
    #[serde(rename = "_primary_term")]
    primary_term: u64,
    #[serde(rename = "_source", borrow)]
    source: Option<&'a RawValue>,
    #[serde(default)]
    sort: Vec<Value>,
}

/// Runs `job`, publishing progress to `task`; the response body and its
/// HTTP status.
pub fn run(job: &Job, task: &Task) -> (Value, u16) {
    let started = Instant::now();
    let mut c = Counters::default();
    let mut after: Option<Vec<Value>> = None;
    let mut written: BTreeMap<String, (Arc<SearchIndex>, u64)> = BTreeMap::new();
    let by_name: BTreeMap<&str, &Arc<SearchIndex>> = job
        .snapshot
        .indices()
        .iter()
        .map(|i| (i.name(), i))
        .collect();
    let mut status = 200;
    'batches: loop {
        if task.is_cancelled() {
            c.canceled = true;
            break;
        }
        let batch_started = Instant::now();
        let mut request = job.request.clone();
        if let Some(max) = job.max_docs {
            let left = max.saturating_sub(c.done());
            if left == 0 {
                break;
            }
            request.size = request.size.min(left as usize);
        }
        request.search_after = after.clone();
        let response = match strata_search::search_response(job.snapshot.indices(), &request) {
            Ok(r) => r,
            Err(e) => {
                status = fail(&mut c, None, None, EsError::from(e));
                break;
            }
        };
        if c.batches == 0 {
            let matched = response.body["hits"]["total"]["value"]
                .as_u64()
                .unwrap_or(0);
            c.total = job.max_docs.map_or(matched, |m| matched.min(m));
        }
        if response.hits.is_empty() {
            break;
        }
        c.batches += 1;
        let in_batch = response.hits.len();
        for raw in &response.hits {
            if task.is_cancelled() {
                c.canceled = true;
                break 'batches;
            }
            let hit: Hit = match serde_json::from_str(raw.get()) {
                Ok(h) => h,
                Err(e) => {
                    status = fail(&mut c, None, None, EsError::Internal(e.to_string()));
                    break 'batches;
                }
            };
            after = Some(hit.sort.clone());
            let Some(source_index) = by_name.get(hit.index.as_str()) else {
                continue;
            };
            match apply(job, source_index, &hit, &mut c, &mut written) {
                Ok(()) => {}
                Err(e) => {
                    let conflict = matches!(
                        &e,
                        EsError::Search {
                            source: SearchError::VersionConflict { .. },
                            ..
                        }
                    );
                    if conflict {
                        c.version_conflicts += 1;
                        if job.conflicts == Conflicts::Proceed {
                            continue;
                        }
                    }
                    status = fail(&mut c, Some(&hit.index), Some(&hit.id), e);
                    break 'batches;
                }
            }
            if job.max_docs.is_some_and(|m| c.done() >= m) {
                break 'batches;
            }
        }
        task.set_status(c.status(job.requests_per_second));
        if let Some(rps) = job.requests_per_second {
            let target = Duration::from_secs_f64(in_batch as f64 / rps);
            let spent = batch_started.elapsed();
            if target > spent {
                let wait = target - spent;
                let until = Instant::now() + wait;
                while Instant::now() < until && !task.is_cancelled() {
                    std::thread::sleep((until - Instant::now()).min(Duration::from_millis(50)));
                }
                c.throttled += wait;
            }
        }
    }
    for (index, lsn) in written.values() {
        if let Err(e) = index.wait_durable(*lsn) {
            status = fail(&mut c, Some(index.name()), None, EsError::from(e));
        }
        if job.refresh {
            if let Err(e) = index.refresh() {
                status = fail(&mut c, Some(index.name()), None, EsError::from(e));
            }
        }
    }
    let mut body = c.status(job.requests_per_second);
    let mut out = serde_json::Map::new();
    out.insert("took".into(), json!(started.elapsed().as_millis() as u64));
    out.insert("timed_out".into(), json!(false));
    if let Value::Object(fields) = body.take() {
        out.extend(fields);
    }
    out.insert(
        "failures".into(),
        Value::Array(std::mem::take(&mut c.failures)),
    );
    task.set_status(c.status(job.requests_per_second));
    (Value::Object(out), status)
}

/// One document: the step, then its write.
fn apply(
    job: &Job,
    source_index: &Arc<SearchIndex>,
    hit: &Hit,
    c: &mut Counters,
    written: &mut BTreeMap<String, (Arc<SearchIndex>, u64)>,
) -> Result<(), EsError> {
    let mut doc = SourceDoc {
        index: hit.index.clone(),
        id: hit.id.clone(),
        version: hit.version,
        source: hit
            .source
            .map_or_else(|| "{}".to_string(), |s| s.get().to_string()),
    };
    let op = job.step.apply(&mut doc)?;
    let read_at = Precondition::SeqNo {
        seq_no: hit.seq_no,
        primary_term: hit.primary_term,
    };
    let (target, precondition) = match (&job.destination, op) {
        (_, Op::Noop) => {
            c.noops += 1;
            return Ok(());
        }
        (Destination::InPlace, Op::Delete) => {
            let r = source_index.delete_document(&doc.id, read_at)?;
            note(written, source_index, r.lsn);
            if r.result == WriteResult::Deleted {
                c.deleted += 1;
            }
            return Ok(());
        }
        (Destination::Index { index, .. }, Op::Delete) => {
            let r = index.delete_document(&doc.id, Precondition::None)?;
            note(written, index, r.lsn);
            if r.result == WriteResult::Deleted {
                c.deleted += 1;
            } else {
                c.noops += 1;
            }
            return Ok(());
        }
        (Destination::InPlace, Op::Index) => (source_index, read_at),
        (
            Destination::Index {
                index,
                create_only,
                external,
            },
            Op::Index,
        ) => (
            index,
            match (create_only, external) {
                (true, _) => Precondition::Absent,
                (false, Some(gte)) => Precondition::External {
                    version: doc.version,
                    gte: *gte,
                },
                (false, None) => Precondition::None,
            },
        ),
    };
    let r = target
        .index_document(Some(&doc.id), doc.source.as_bytes(), precondition)
        .map_err(|e| EsError::from(e).in_index(target.name()))?;
    note(written, target, r.lsn);
    match r.result {
        WriteResult::Created => c.created += 1,
        _ => c.updated += 1,
    }
    Ok(())
}

fn note(
    written: &mut BTreeMap<String, (Arc<SearchIndex>, u64)>,
    index: &Arc<SearchIndex>,
    lsn: u64,
) {
    let entry = written
        .entry(index.name().to_string())
        .or_insert_with(|| (Arc::clone(index), 0));
    entry.1 = entry.1.max(lsn);
}

/// Records a failure (Elasticsearch's bulk failure shape); its status.
fn fail(c: &mut Counters, index: Option<&str>, id: Option<&str>, e: EsError) -> u16 {
    let status = e.status();
    let mut failure = json!({"cause": e.cause(), "status": status});
    if let Some(index) = index {
        failure["index"] = json!(index);
        failure["cause"]["index"] = json!(index);
    }
    if let Some(id) = id {
        failure["id"] = json!(id);
    }
    c.failures.push(failure);
    status
}
