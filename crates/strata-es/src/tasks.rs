//! [`Tasks`]: the long-running requests of a node (`_reindex`,
//! `_delete_by_query`, `_update_by_query`) as Elasticsearch's task
//! management API shows them: an id `<node_id>:<n>`, the action, a status
//! the job updates after every batch, cancellation, and the result of a
//! task run with `wait_for_completion=false`, kept for `GET _tasks/<id>`.
//!
//! Bounded: at most [`MAX_RUNNING`] tasks run at once (more are refused
//! with 429) and the results of the last [`KEPT_RESULTS`] finished ones are
//! kept (Elasticsearch keeps them in its `.tasks` index).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use parking_lot::Mutex;
use serde_json::{json, Value};

use crate::error::{EsError, Result};

/// Tasks that may run at once.
pub const MAX_RUNNING: usize = 64;
/// Finished tasks whose results are kept.
pub const KEPT_RESULTS: usize = 1000;

/// One task.
#[derive(Debug)]
pub struct Task {
    /// Its number on this node.
    pub number: u64,
    /// Elasticsearch's action name (`indices:data/write/reindex`, ...).
    pub action: &'static str,
    /// What it does (`reindex from [a] to [b]`).
    pub description: String,
    start_ms: u64,
    started: Instant,
    cancelled: AtomicBool,
    status: Mutex<Value>,
    /// `Some` once finished: the response, or the error body.
    outcome: Mutex<Option<std::result::Result<Value, Value>>>,
    /// Whether the caller waits for it (its result is then not kept).
    detached: bool,
}

impl Task {
    /// Whether cancellation was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Replaces the status (the job's counters).
    pub fn set_status(&self, status: Value) {
        *self.status.lock() = status;
    }

    fn finished(&self) -> bool {
        self.outcome.lock().is_some()
    }

    /// The task's description object (`GET _tasks`).
    pub fn info(&self, node_id: &str, detailed: bool) -> Value {
        let mut info = json!({
            "node": node_id,
            "id": self.number,
            "type": "transport",
            "action": self.action,
            "start_time_in_millis": self.start_ms,
            "running_time_in_nanos": self.started.elapsed().as_nanos() as u64,
            "cancellable": true,
            "cancelled": self.is_cancelled(),
            "headers": {},
        });
        if detailed {
            info["status"] = self.status.lock().clone();
            info["description"] = json!(self.description);
        }
        info
    }
}

/// The node's tasks.
#[derive(Debug, Default)]
pub struct Tasks {
    all: Mutex<BTreeMap<u64, Arc<Task>>>,
    next: Mutex<u64>,
}

impl Tasks {
    /// Registers a task; `detached`: run with `wait_for_completion=false`
    /// (its result is kept once it ends).
    pub fn start(
        &self,
        action: &'static str,
        description: String,
        detached: bool,
    ) -> Result<Arc<Task>> {
        let mut all = self.all.lock();
        if all.values().filter(|t| !t.finished()).count() >= MAX_RUNNING {
            return Err(EsError::Rejected(format!(
                "rejected execution of [{action}]: too many tasks running (at most {MAX_RUNNING})"
            )));
        }
        let mut next = self.next.lock();
        *next += 1;
        let task = Arc::new(Task {
            number: *next,
            action,
            description,
            start_ms: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64),
            started: Instant::now(),
            cancelled: AtomicBool::new(false),
            status: Mutex::new(json!({})),
            outcome: Mutex::new(None),
            detached,
        });
        all.insert(task.number, Arc::clone(&task));
        Ok(task)
    }

    /// Records the end of `task`: a detached one keeps its result (the
    /// oldest finished results beyond [`KEPT_RESULTS`] are dropped), one
    /// waited for is forgotten.
    pub fn finish(&self, task: &Task, outcome: std::result::Result<Value, Value>) {
        let mut all = self.all.lock();
        if !task.detached {
            all.remove(&task.number);
            return;
        }
        *task.outcome.lock() = Some(outcome);
        let finished: Vec<u64> = all
            .iter()
            .filter(|(_, t)| t.finished())
            .map(|(n, _)| *n)
            .collect();
        for n in finished
            .iter()
            .take(finished.len().saturating_sub(KEPT_RESULTS))
        {
            all.remove(n);
        }
    }

    /// The task numbered `number`.
    pub fn get(&self, number: u64) -> Option<Arc<Task>> {
        self.all.lock().get(&number).cloned()
    }

    /// Running tasks, oldest first.
    pub fn running(&self) -> Vec<Arc<Task>> {
        self.all
            .lock()
            .values()
            .filter(|t| !t.finished())
            .cloned()
            .collect()
    }

    /// Asks `task` to stop (it does between documents).
    pub fn cancel(&self, task: &Task) {
        task.cancelled.store(true, Ordering::Relaxed);
    }

    /// `GET _tasks/<id>`: `completed`, `task` and the `response` (or
    /// `error`) of a finished one.
    pub fn describe(&self, task: &Task, node_id: &str) -> Value {
        let mut body = json!({
            "completed": task.finished(),
            "task": task.info(node_id, true),
        });
        match &*task.outcome.lock() {
            Some(Ok(response)) => body["response"] = response.clone(),
            Some(Err(error)) => body["error"] = error.clone(),
            None => {}
        }
        body
    }
}

/// A task id `<node_id>:<number>` parsed against this node.
pub fn parse_id(id: &str, node_id: &str) -> Result<u64> {
    let malformed = || EsError::IllegalArgument(format!("malformed task id {id}"));
    let (node, number) = id.split_once(':').ok_or_else(malformed)?;
    let number: u64 = number.parse().map_err(|_| malformed())?;
    if node != node_id {
        return Err(EsError::ResourceNotFound(format!(
            "task [{id}] isn't running and hasn't stored its results"
        )));
    }
    Ok(number)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detached_results_are_kept_and_bounded() {
        let tasks = Tasks::default();
        let waited = tasks.start("a", "x".into(), false).unwrap();
        tasks.finish(&waited, Ok(json!({})));
        assert!(tasks.get(waited.number).is_none());
        let mut first = None;
        for i in 0..KEPT_RESULTS + 5 {
            let t = tasks.start("a", "x".into(), true).unwrap();
            tasks.finish(&t, Ok(json!({"n": i})));
            first.get_or_insert(t.number);
        }
        assert!(tasks.get(first.unwrap()).is_none());
        assert_eq!(tasks.all.lock().len(), KEPT_RESULTS);
        let last = tasks.all.lock().values().last().cloned().unwrap();
        let d = tasks.describe(&last, "node");
        assert_eq!(d["completed"], true);
        assert_eq!(d["response"]["n"], KEPT_RESULTS + 4);
    }

    #[test]
    fn running_tasks_are_bounded_and_cancellable() {
        let tasks = Tasks::default();
        let held: Vec<_> = (0..MAX_RUNNING)
            .map(|_| tasks.start("a", "x".into(), true).unwrap())
            .collect();
        assert_eq!(
            tasks.start("a", "x".into(), true).unwrap_err().status(),
            429
        );
        tasks.cancel(&held[0]);
        assert!(held[0].is_cancelled());
        tasks.finish(&held[0], Err(json!({})));
        assert!(tasks.start("a", "x".into(), true).is_ok());
        assert_eq!(parse_id("node:7", "node").unwrap(), 7);
        assert_eq!(parse_id("node7", "node").unwrap_err().status(), 400);
        assert_eq!(parse_id("other:7", "node").unwrap_err().status(), 404);
    }
}
