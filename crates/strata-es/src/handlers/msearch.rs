//! `[/<indices>]/_msearch`: header and body line pairs, each answered on
//! its own (`status`, or `error`), in request order.
//!
//! As in Elasticsearch the searches run concurrently, at most
//! `max_concurrent_searches` at once and never more than the machine has
//! cores (Elasticsearch's search pool bounds it the same way; a request
//! cannot ask for a thread per search). Each search already spreads its
//! segments over the search pool; what running several at once overlaps
//! is each one's own parsing, query building and merging (on 2 cores the
//! eventdata dashboards gained nothing measurable: docs/benchmarks.md).
//!
//! Memory stays bounded however many searches the body holds: every line
//! is checked before any search runs (a malformed body fails as a whole,
//! with nothing sent), but a search's line pair is parsed only when it
//! runs; searches run in rounds of a few per worker; each answer is
//! serialized as soon as its search ends, its search's memory released,
//! and the reply is streamed to the client in request order while later
//! rounds run, through a bounded channel (a slow client pauses the
//! searches). Each search holds its own reservations on the request
//! breaker; an answer the breakers have no room for is that search's 429
//! error. With `pretty` or `filter_path` the reply is built whole (they
//! need it), within the request breaker.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use bytes::Bytes;
use serde_json::{json, Value};
use strata_search::{estimate_parsed_json, IndicesOptions, MemoryAccount};

use super::aliases;
use super::search_request::run_search;
use super::targets::{header_options, indices_options};
use crate::chunked::{self, Chunk};
use crate::error::{EsError, Result};
use crate::ndjson;
use crate::node::Node;
use crate::panics;
use crate::reply::{Payload, Reply};
use crate::request::EsRequest;
use crate::security::actions;

/// Searches per worker in one round: enough to keep the workers busy
/// across the stragglers at a round's end, few enough that a round's
/// answers are small.
const ROUND_PER_WORKER: usize = 4;

/// Answers waiting for the connection at most, beyond the round running.
const QUEUED_ANSWERS: usize = 64;

/// `[/<indices>]/_msearch`.
pub fn msearch(node: &Arc<Node>, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let plan = Plan {
        started: Instant::now(),
        node: Arc::clone(node),
        expression: expression.map(str::to_string),
        lines: checked_lines(req)?,
        defaults: indices_options(req)?,
        concurrency: max_concurrent_searches(req)?,
        req: req.clone(),
    };
    if req.flag("pretty", false)? || req.param("filter_path").is_some() {
        let mut out = Vec::new();
        plan.produce(|chunk| {
            req.memory.reserve(chunk.bytes.len() as u64, "<reply>")?;
            out.extend_from_slice(&chunk.bytes);
            Ok(true)
        })?;
        return Ok(Reply {
            status: 200,
            payload: Payload::Serialized(out),
            durable: Vec::new(),
        });
    }
    let (sender, body) = chunked::channel(QUEUED_ANSWERS);
    let produce = move || {
        if let Err(e) = plan.produce(|chunk| Ok(sender.send(chunk))) {
            tracing::warn!(error = %e, "msearch stopped");
        }
    };
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(produce)),
        Err(_) => drop(std::thread::spawn(produce)),
    }
    Ok(Reply {
        status: 200,
        payload: Payload::Chunked(body),
        durable: Vec::new(),
    })
}

/// Everything the searches need, owned, so they may run after the
/// handler returned (the reply streams meanwhile).
struct Plan {
    started: Instant,
    node: Arc<Node>,
    expression: Option<String>,
    /// Header and body lines, alternating; checked to be JSON.
    lines: Vec<Bytes>,
    defaults: IndicesOptions,
    concurrency: usize,
    /// The request (parameters, and its accounts: the body's bytes stay
    /// reserved while the searches read it).
    req: EsRequest,
}

impl Plan {
    /// Writes the reply through `emit` (which returns `false` once the
    /// client is gone): `{"responses":[` then each answer in request
    /// order, then `],"took":N}`.
    fn produce(&self, mut emit: impl FnMut(Chunk) -> Result<bool>) -> Result<()> {
        let searches = self.lines.len() / 2;
        let workers = self.concurrency.min(searches).max(1);
        let round = workers * ROUND_PER_WORKER;
        if !emit(self.piece(b"{\"responses\":[")?)? {
            return Ok(());
        }
        for start in (0..searches).step_by(round) {
            let answers = self.run_round(start..(start + round).min(searches), workers);
            for (at, mut answer) in (start..).zip(answers) {
                if at > 0 {
                    let mut with_comma = Vec::with_capacity(answer.bytes.len() + 1);
                    with_comma.push(b',');
                    with_comma.extend_from_slice(&answer.bytes);
                    answer.bytes = Bytes::from(with_comma);
                }
                if !emit(answer)? {
                    return Ok(());
                }
            }
        }
        let took = self.started.elapsed().as_millis();
        emit(self.piece(format!("],\"took\":{took}}}").as_bytes())?)?;
        Ok(())
    }

    /// A fixed piece of the reply, reserved as the answers are.
    fn piece(&self, bytes: &[u8]) -> Result<Chunk> {
        let memory = self.req.memory.part();
        memory.reserve(bytes.len() as u64, "<reply>")?;
        Ok(Chunk {
            bytes: Bytes::copy_from_slice(bytes),
            memory,
        })
    }

    /// The answers of searches `range`, in order, `workers` at a time.
    fn run_round(&self, range: std::ops::Range<usize>, workers: usize) -> Vec<Chunk> {
        if workers <= 1 {
            return range.map(|i| self.answer(i)).collect();
        }
        // Workers take the next unstarted search; each answer goes to its
        // slot, so the round keeps the request order.
        let next = AtomicUsize::new(range.start);
        let slots: Vec<Mutex<Option<Chunk>>> = range.clone().map(|_| Mutex::new(None)).collect();
        let work = || loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            if at >= range.end {
                break;
            }
            let answer = self.answer(at);
            *slots[at - range.start]
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = Some(answer);
        };
        std::thread::scope(|scope| {
            for _ in 1..workers.min(range.len()) {
                let spawned = std::thread::Builder::new()
                    .name("strata-msearch".into())
                    .stack_size(strata_service::THREAD_STACK_SIZE)
                    .spawn_scoped(scope, work);
                if let Err(err) = spawned {
                    tracing::warn!(%err, "msearch: no thread for another concurrent search");
                }
            }
            // This thread takes searches too (and alone if none could start).
            work();
        });
        slots
            .into_iter()
            .map(|slot| slot.into_inner().unwrap_or_else(|p| p.into_inner()))
            // Every slot is filled: the workers took every index of the range.
            .map(|answer| answer.unwrap_or_else(|| self.failed(&EsError::Internal("lost".into()))))
            .collect()
    }

    /// Search `at`'s answer, serialized; its search's memory is released
    /// once the answer is, the answer's own stays reserved until sent.
    fn answer(&self, at: usize) -> Chunk {
        // A panic in one search is that search's error, not the batch's.
        let outcome = panics::contain(&self.req, || -> Result<Vec<u8>> {
            let mut item_req = self.req.clone();
            item_req.memory = self.req.memory.part();
            let (header, body) = (&self.lines[2 * at], &self.lines[2 * at + 1]);
            item_req.memory.reserve(
                estimate_parsed_json(header) + estimate_parsed_json(body),
                "<msearch_item>",
            )?;
            let header = ndjson::parse_line(header, 2 * at)?;
            let mut body = ndjson::parse_line(body, 2 * at + 1)?;
            self.node.catalog.scripts().resolve(&mut body)?;
            let target = target_of(&header, self.expression.as_deref());
            let options = header_options(&header, self.defaults)?;
            // Security on: the search reaches only what the caller may read.
            let restricted = match &self.req.grant {
                Some(g) => g.restrict(actions::SEARCH, target.as_deref(), options)?,
                None => None,
            };
            let target = restricted.or(target);
            let (indices, filter) =
                aliases::resolve_filtered(&self.node, target.as_deref(), options)?;
            let mut response = run_search(&indices, filter.as_ref(), &body, &item_req, false)?;
            response.body["status"] = json!(200);
            serde_json::to_vec(&response).map_err(|e| EsError::Internal(e.to_string()))
        });
        let bytes = match outcome {
            Ok(bytes) => bytes,
            // Positions are the item body's own, as Elasticsearch parses
            // each body line alone.
            Err(e) => return self.failed(&e.located(&self.lines[2 * at + 1])),
        };
        let memory = self.req.memory.part();
        match memory.reserve(bytes.len() as u64, "<msearch_response>") {
            Ok(()) => Chunk {
                bytes: Bytes::from(bytes),
                memory,
            },
            Err(e) => self.failed(&e.into()),
        }
    }

    /// A failed search's answer: its error with `status`.
    fn failed(&self, e: &EsError) -> Chunk {
        let mut body = e.body();
        body["status"] = json!(e.status());
        Chunk {
            bytes: Bytes::from(serde_json::to_vec(&body).unwrap_or_default()),
            memory: MemoryAccount::unaccounted(),
        }
    }
}

/// The search's target: the header's `index` (a string or a list), else
/// the path's.
fn target_of(header: &Value, expression: Option<&str>) -> Option<String> {
    match header.get("index") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(a)) => Some(
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(","),
        ),
        _ => expression.map(str::to_string),
    }
}

/// The body's lines, header and body alternating, each checked to be
/// JSON (parsed and dropped one at a time) so a malformed body fails as a
/// whole before anything is sent.
fn checked_lines(req: &EsRequest) -> Result<Vec<Bytes>> {
    let lines = ndjson::lines(&req.body)?;
    if lines.is_empty() {
        return Err(EsError::ActionValidation("no requests added".into()));
    }
    req.memory.reserve(
        (lines.len() * std::mem::size_of::<Bytes>()) as u64,
        "<msearch_request>",
    )?;
    for (number, line) in lines.iter().enumerate() {
        let memory = req.memory.part();
        memory.reserve(estimate_parsed_json(line), "<msearch_request>")?;
        ndjson::parse_line(line, number)?;
    }
    if lines.len() % 2 == 1 {
        return Err(EsError::IllegalArgument(
            "msearch: a header line has no body line".into(),
        ));
    }
    Ok(lines.iter().map(|line| req.body.slice_ref(line)).collect())
}

/// How many searches run at once: `max_concurrent_searches` (a positive
/// integer), at most the machine's cores, which is also the default.
fn max_concurrent_searches(req: &EsRequest) -> Result<usize> {
    let cores = crate::host::processors();
    match req.u64_param("max_concurrent_searches")? {
        Some(0) => Err(EsError::ActionValidation(
            "maxConcurrentSearches must be positive".into(),
        )),
        Some(n) => Ok(usize::try_from(n).map_or(cores, |n| n.min(cores))),
        None => Ok(cores),
    }
}
