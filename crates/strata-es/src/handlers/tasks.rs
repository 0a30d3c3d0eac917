//! The task management API: `GET /_tasks` (running tasks, grouped by
//! node as Elasticsearch does; `group_by=parents|none`, `actions`
//! patterns, `detailed`), `GET /_tasks/<id>` (a running task's status, a
//! finished detached task's response) and `POST /_tasks[/<id>]/_cancel`.

use serde_json::{json, Map, Value};

use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;
use crate::tasks::{parse_id, Task};

/// `GET /_tasks[/<id>]`.
pub fn tasks(node: &Node, id: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let node_id = &node.identity.node_id;
    if let Some(id) = id {
        let task = find(node, id)?;
        if req.flag("wait_for_completion", false)? {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
            while task.is_running(node) && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        return Ok(Reply::ok(node.tasks.describe(&task, node_id)));
    }
    let detailed = req.flag("detailed", false)?;
    let running = selected(node, req);
    let infos: Vec<(String, Value)> = running
        .iter()
        .map(|t| (format!("{node_id}:{}", t.number), t.info(node_id, detailed)))
        .collect();
    let body = match req.param("group_by").unwrap_or("nodes") {
        "nodes" => {
            let mut node_obj = node_entry(node);
            node_obj["tasks"] = Value::Object(infos.into_iter().collect());
            json!({"nodes": {node_id.clone(): node_obj}})
        }
        "parents" => json!({"tasks": Value::Object(infos.into_iter().collect::<Map<_, _>>())}),
        "none" => json!({"tasks": infos.into_iter().map(|(_, v)| v).collect::<Vec<_>>()}),
        other => {
            return Err(EsError::IllegalArgument(format!(
                "group_by must be one of [nodes, parents, none] but was [{other}]"
            )))
        }
    };
    Ok(Reply::ok(body))
}

/// `POST /_tasks[/<id>]/_cancel`.
pub fn cancel(node: &Node, id: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let node_id = &node.identity.node_id;
    let chosen: Vec<std::sync::Arc<Task>> = match id {
        Some(id) => {
            let task = find(node, id)?;
            if !task.is_running(node) {
                return Err(EsError::ResourceNotFound(format!(
                    "task [{id}] is not running"
                )));
            }
            vec![task]
        }
        None => selected(node, req),
    };
    let mut tasks = Map::new();
    for task in &chosen {
        node.tasks.cancel(task);
        tasks.insert(
            format!("{node_id}:{}", task.number),
            task.info(node_id, false),
        );
    }
    if chosen.is_empty() {
        return Ok(Reply::ok(json!({"nodes": {}})));
    }
    let mut node_obj = node_entry(node);
    node_obj["tasks"] = Value::Object(tasks);
    Ok(Reply::ok(json!({"nodes": {node_id.clone(): node_obj}})))
}

fn find(node: &Node, id: &str) -> Result<std::sync::Arc<Task>> {
    let number = parse_id(id, &node.identity.node_id)?;
    node.tasks.get(number).ok_or_else(|| {
        EsError::ResourceNotFound(format!(
            "task [{id}] isn't running and hasn't stored its results"
        ))
    })
}

/// Running tasks whose action matches `actions` (comma-separated
/// patterns with `*`).
fn selected(node: &Node, req: &EsRequest) -> Vec<std::sync::Arc<Task>> {
    let patterns: Vec<&str> = req
        .param("actions")
        .map(|a| a.split(',').filter(|s| !s.is_empty()).collect())
        .unwrap_or_default();
    node.tasks
        .running()
        .into_iter()
        .filter(|t| patterns.is_empty() || patterns.iter().any(|p| glob(p, t.action)))
        .collect()
}

fn node_entry(node: &Node) -> Value {
    let addr = node.config.http_addr;
    json!({
        "name": node.config.node_name,
        "transport_address": addr.to_string(),
        "host": addr.ip().to_string(),
        "ip": addr.to_string(),
        "roles": ["data", "ingest", "master"],
    })
}

/// `*` matches any run of characters (patterns of more than 8 match
/// nothing: the backtracking stays small).
fn glob(pattern: &str, text: &str) -> bool {
    if pattern.matches('*').count() > 8 {
        return false;
    }
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => {
            let Some(tail) = text.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len()).any(|i| tail.is_char_boundary(i) && glob(rest, &tail[i..]))
        }
    }
}

trait Running {
    fn is_running(&self, node: &Node) -> bool;
}

impl Running for std::sync::Arc<Task> {
    fn is_running(&self, node: &Node) -> bool {
        node.tasks.running().iter().any(|t| t.number == self.number)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn action_patterns() {
        assert!(super::glob("*byquery", "indices:data/write/delete/byquery"));
        assert!(super::glob(
            "indices:*/reindex",
            "indices:data/write/reindex"
        ));
        assert!(!super::glob(
            "*reindex",
            "indices:data/write/update/byquery"
        ));
    }
}
