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
//! Every line is parsed before any search runs, so a malformed body fails
//! as a whole.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use serde::Serialize;
use serde_json::{json, Value};
use strata_search::search::SearchResponse;

use super::aliases;
use super::search::{header_options, indices_options, run_search};
use crate::error::{EsError, Result};
use crate::ndjson;
use crate::node::Node;
use crate::panics;
use crate::reply::Reply;
use crate::request::EsRequest;
use crate::security::actions;

/// One search of the body: its target expression and its body.
struct Item {
    header: Value,
    target: Option<String>,
    body: Value,
}

/// `[/<indices>]/_msearch`.
pub fn msearch(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let started = Instant::now();
    let items = parse(expression, &req.body)?;
    let defaults = indices_options(req)?;
    let concurrency = max_concurrent_searches(req)?.min(items.len());
    let run = |item: &Item| -> Answer {
        // A panic in one search is that search's error, not the batch's.
        let outcome = panics::contain(req, || {
            header_options(&item.header, defaults)
                .and_then(|options| {
                    // Security on: the search reaches only what the caller may read.
                    let restricted = match &req.grant {
                        Some(g) => g.restrict(actions::SEARCH, item.target.as_deref(), options)?,
                        None => None,
                    };
                    let target = restricted.as_deref().or(item.target.as_deref());
                    aliases::resolve_filtered(node, target, options)
                })
                .and_then(|(indices, filter)| {
                    run_search(&indices, filter.as_ref(), &item.body, req, false)
                })
        });
        match outcome {
            Ok(mut response) => {
                response.body["status"] = json!(200);
                Answer::Found(response)
            }
            Err(e) => {
                let mut body = e.body();
                body["status"] = json!(e.status());
                Answer::Failed(body)
            }
        }
    };
    let responses: Vec<Answer> = if concurrency <= 1 {
        items.iter().map(run).collect()
    } else {
        // Workers take the next unstarted search; each answer goes to its
        // request's slot, so the reply keeps the request order.
        let next = AtomicUsize::new(0);
        let slots: Vec<Mutex<Option<Answer>>> = items.iter().map(|_| Mutex::new(None)).collect();
        let work = || loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(at) else { break };
            let answer = run(item);
            *slots[at].lock().unwrap_or_else(|p| p.into_inner()) = Some(answer);
        };
        std::thread::scope(|scope| {
            for _ in 1..concurrency {
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
            // Every slot is filled: the workers took every index below `items.len()`.
            .map(|answer| answer.unwrap_or(Answer::Failed(Value::Null)))
            .collect()
    };
    let reply = MsearchReply {
        took: started.elapsed().as_millis() as u64,
        responses,
    };
    Reply::serialized(&reply).map_err(|e| EsError::Internal(e.to_string()))
}

/// The reply body; the searches' hits go out as serialized.
#[derive(Serialize)]
struct MsearchReply {
    took: u64,
    responses: Vec<Answer>,
}

/// One search's answer: its response, or its error with `status`.
#[derive(Serialize)]
#[serde(untagged)]
enum Answer {
    Found(SearchResponse),
    Failed(Value),
}

/// The header and body pairs of the request body.
fn parse(expression: Option<&str>, body: &[u8]) -> Result<Vec<Item>> {
    let lines = ndjson::lines(body)?;
    if lines.is_empty() {
        return Err(EsError::ActionValidation("no requests added".into()));
    }
    let mut items = Vec::with_capacity(lines.len().div_ceil(2));
    for (pair, chunk) in lines.chunks(2).enumerate() {
        let header = ndjson::parse_line(chunk[0], pair * 2)?;
        let body = match chunk.get(1) {
            Some(line) => ndjson::parse_line(line, pair * 2 + 1)?,
            None => {
                return Err(EsError::IllegalArgument(
                    "msearch: a header line has no body line".into(),
                ))
            }
        };
        let target = match header.get("index") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Array(a)) => Some(
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            _ => expression.map(str::to_string),
        };
        items.push(Item {
            header,
            target,
            body,
        });
    }
    Ok(items)
}

/// How many searches run at once: `max_concurrent_searches` (a positive
/// integer), at most the machine's cores, which is also the default.
fn max_concurrent_searches(req: &EsRequest) -> Result<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match req.u64_param("max_concurrent_searches")? {
        Some(0) => Err(EsError::ActionValidation(
            "maxConcurrentSearches must be positive".into(),
        )),
        Some(n) => Ok(usize::try_from(n).map_or(cores, |n| n.min(cores))),
        None => Ok(cores),
    }
}
