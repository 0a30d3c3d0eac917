//! Index templates: legacy `_template`, composable `_index_template` and
//! `_component_template` (`PUT|POST`, `GET`, `HEAD`, `DELETE`). Names in
//! `GET` and `DELETE` may be comma lists with `*` wildcards. The engine
//! stores, validates and applies them (`strata_search::templates`).

use axum::http::Method;
use serde_json::{json, Map, Value};
use strata_search::{wildcard_match, SearchError, TemplateKind, Templates};

use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// `/_template[/<name>]`, `/_index_template[/<name>]`,
/// `/_component_template[/<name>]`.
pub fn template(
    node: &Node,
    kind: TemplateKind,
    name: Option<&str>,
    req: &EsRequest,
) -> Result<Reply> {
    match (&req.method, name) {
        (&Method::PUT | &Method::POST, Some(name)) => {
            let body = req.required_json_body()?;
            let create = req.flag("create", false)?;
            node.catalog.put_template(kind, name, &body, create)?;
            Ok(Reply::ok(json!({"acknowledged": true})))
        }
        (&Method::DELETE, Some(expr)) => {
            let names = matching(&node.catalog.templates(), kind, expr);
            if names.is_empty() {
                // The engine answers with the kind's own "missing" error.
                node.catalog.delete_template(kind, expr)?;
            }
            for name in names {
                node.catalog.delete_template(kind, &name)?;
            }
            Ok(Reply::ok(json!({"acknowledged": true})))
        }
        _ => get(node, kind, name, req.method == Method::HEAD),
    }
}

/// Names of `kind` templates matching a comma list of names or patterns.
fn matching(all: &Templates, kind: TemplateKind, expr: &str) -> Vec<String> {
    let names: Vec<&String> = match kind {
        TemplateKind::Legacy => all.legacy.keys().collect(),
        TemplateKind::Composable => all.composable.keys().collect(),
        TemplateKind::Component => all.components.keys().collect(),
    };
    let patterns: Vec<&str> = expr.split(',').map(str::trim).collect();
    names
        .into_iter()
        .filter(|n| {
            patterns
                .iter()
                .any(|p| *p == "_all" || wildcard_match(p, n))
        })
        .cloned()
        .collect()
}

fn get(node: &Node, kind: TemplateKind, expr: Option<&str>, head: bool) -> Result<Reply> {
    let all = node.catalog.templates();
    let names = matching(&all, kind, expr.unwrap_or("*"));
    if head {
        return Ok(Reply::empty(if names.is_empty() { 404 } else { 200 }));
    }
    let missing = names.is_empty() && expr.is_some_and(|e| !e.contains('*'));
    match kind {
        TemplateKind::Legacy => {
            let out: Map<String, Value> = names
                .iter()
                .filter_map(|n| all.legacy.get(n).map(|t| (n.clone(), t.to_json())))
                .collect();
            let status = if missing { 404 } else { 200 };
            Ok(Reply::json(status, Value::Object(out)))
        }
        TemplateKind::Composable => {
            if missing {
                return Err(not_found("index template", expr));
            }
            let list: Vec<Value> = names
                .iter()
                .filter_map(|n| all.composable.get(n).map(|t| (n, t)))
                .map(|(n, t)| json!({"name": n, "index_template": t.to_json()}))
                .collect();
            Ok(Reply::ok(json!({ "index_templates": list })))
        }
        TemplateKind::Component => {
            if missing {
                return Err(not_found("component template", expr));
            }
            let list: Vec<Value> = names
                .iter()
                .filter_map(|n| all.components.get(n).map(|t| (n, t)))
                .map(|(n, t)| json!({"name": n, "component_template": t.to_json()}))
                .collect();
            Ok(Reply::ok(json!({ "component_templates": list })))
        }
    }
}

fn not_found(what: &str, expr: Option<&str>) -> EsError {
    EsError::from(SearchError::ResourceNotFound(format!(
        "{what} matching [{}] not found",
        expr.unwrap_or_default()
    )))
}
