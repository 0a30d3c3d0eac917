//! Aliases: `POST /_aliases` (actions), `PUT|POST|DELETE
//! /<index>/_alias[es]/<name>`, `GET|HEAD [/<index>]/_alias[/<name>]`,
//! `GET [/<index>]/_aliases` and `_cat/aliases`. The engine keeps the
//! table (`strata_search::aliases`); this file only speaks the wire forms.

use std::collections::BTreeMap;

use axum::http::Method;
use serde_json::{json, Map, Value};
use strata_search::{wildcard_match, AliasAction, AliasMeta, ParsedQuery};

use super::cat::Table;
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;
use crate::security::actions;

/// `POST /_aliases` (actions) or `GET [/<index>]/_aliases` (listing).
pub fn aliases(node: &Node, index: Option<&str>, req: &EsRequest) -> Result<Reply> {
    if req.method != Method::POST {
        return alias(node, index, None, req);
    }
    let body = req.required_json_body()?;
    let list = body
        .get("actions")
        .and_then(Value::as_array)
        .ok_or_else(|| EsError::ActionValidation("At least one action is required".into()))?;
    if list.is_empty() {
        return Err(EsError::ActionValidation(
            "At least one action is required".into(),
        ));
    }
    let actions = list
        .iter()
        .map(AliasAction::parse)
        .collect::<Result<Vec<_>, _>>()?;
    node.catalog.update_aliases(&actions)?;
    Ok(Reply::ok(json!({"acknowledged": true, "errors": false})))
}

/// `[/<index>]/_alias[/<name>]` by method.
pub fn alias(
    node: &Node,
    index: Option<&str>,
    name: Option<&str>,
    req: &EsRequest,
) -> Result<Reply> {
    match (&req.method, index, name) {
        (&Method::PUT | &Method::POST, Some(index), Some(name)) => {
            let body = req.json_body()?;
            let meta = AliasMeta::parse(name, &body)?;
            node.catalog.update_aliases(&[AliasAction::Add {
                indices: vec![index.to_string()],
                aliases: vec![name.to_string()],
                meta,
            }])?;
            Ok(Reply::ok(json!({"acknowledged": true})))
        }
        (&Method::DELETE, Some(index), Some(name)) => {
            node.catalog.update_aliases(&[AliasAction::Remove {
                indices: vec![index.to_string()],
                aliases: name.split(',').map(str::to_string).collect(),
                must_exist: None,
            }])?;
            Ok(Reply::ok(json!({"acknowledged": true})))
        }
        _ => list(node, index, name, req.method == Method::HEAD),
    }
}

/// The `GET _alias` listing: index → `{"aliases": {name: definition}}`.
/// Without names every index reached is listed (with `{}` when it has no
/// alias); with names only indices holding a match. A name without
/// wildcards that matches nothing makes the reply a 404 that still lists
/// what was found, with `"error": "alias [x] missing"`.
fn list(node: &Node, index: Option<&str>, names: Option<&str>, head: bool) -> Result<Reply> {
    let table = node.catalog.aliases();
    let indices = match index {
        Some(expr) => node.catalog.resolve(expr)?,
        None => node.catalog.resolve("_all")?,
    };
    let patterns: Vec<&str> = names
        .map(|n| {
            n.split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let wanted = |alias: &str| {
        patterns.is_empty()
            || patterns
                .iter()
                .any(|p| *p == "_all" || wildcard_match(p, alias))
    };
    let mut out = Map::new();
    let mut seen: Vec<String> = Vec::new();
    for idx in &indices {
        let mut found = Map::new();
        for (alias, meta) in table.of_index(idx.name()) {
            if wanted(&alias) {
                found.insert(alias.clone(), meta.to_json());
                seen.push(alias);
            }
        }
        if patterns.is_empty() || !found.is_empty() {
            out.insert(idx.name().to_string(), json!({"aliases": found}));
        }
    }
    let missing: Vec<&str> = patterns
        .iter()
        .filter(|p| !p.contains('*') && **p != "_all" && !seen.iter().any(|s| s == *p))
        .copied()
        .collect();
    if head {
        let found = !out.is_empty() && missing.is_empty();
        return Ok(Reply::empty(if found { 200 } else { 404 }));
    }
    if !missing.is_empty() {
        let what = if missing.len() == 1 {
            "alias"
        } else {
            "aliases"
        };
        out.insert(
            "error".into(),
            json!(format!("{what} [{}] missing", missing.join(","))),
        );
        out.insert("status".into(), json!(404));
        return Ok(Reply::json(404, Value::Object(out)));
    }
    Ok(Reply::ok(Value::Object(out)))
}

/// The aliases of `index`, as the `aliases` object of `GET /<index>`.
pub fn of_index(node: &Node, index: &str) -> Value {
    let links: BTreeMap<String, AliasMeta> = node.catalog.aliases().of_index(index);
    Value::Object(links.into_iter().map(|(a, m)| (a, m.to_json())).collect())
}

/// `_cat/aliases[/<name>]`: alias, index, filter, routing, write index.
pub fn cat(node: &Node, names: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let table = node.catalog.aliases();
    let patterns: Vec<&str> = names.map(|n| n.split(',').collect()).unwrap_or_default();
    let mut rows = Vec::new();
    for alias in table.names() {
        if !patterns.is_empty() && !patterns.iter().any(|p| wildcard_match(p, alias)) {
            continue;
        }
        // Security on: only the aliases the caller may view.
        if req
            .grant
            .as_ref()
            .is_some_and(|g| !g.permits(actions::GET_ALIASES, alias))
        {
            continue;
        }
        for (index, meta) in table.targets(alias).into_iter().flatten() {
            let dash = |v: Option<&String>| Some(v.cloned().unwrap_or_else(|| "-".into()));
            rows.push(vec![
                Some(alias.clone()),
                Some(index.clone()),
                Some(if meta.filter.is_some() { "*" } else { "-" }.to_string()),
                dash(meta.index_routing.as_ref()),
                dash(meta.search_routing.as_ref()),
                Some(meta.is_write_index.map_or("-".into(), |w| w.to_string())),
            ]);
        }
    }
    Table {
        columns: &[
            "alias",
            "index",
            "filter",
            "routing.index",
            "routing.search",
            "is_write_index",
        ],
        rows,
    }
    .render(req)
}

/// The indices a search expression reaches and the one alias filter they
/// share (`None`: unfiltered). Indices reached with different filters
/// cannot be served in one search by this engine (it takes one query for
/// all indices), so that case is refused rather than answered wrongly.
pub fn resolve_filtered(
    node: &Node,
    expression: Option<&str>,
    options: strata_search::IndicesOptions,
) -> Result<(
    Vec<std::sync::Arc<strata_search::SearchIndex>>,
    Option<Value>,
)> {
    let targets = node
        .catalog
        .resolve_targets_with(expression.unwrap_or("_all"), options)?;
    let filter = targets.first().and_then(|t| t.filter.clone());
    if targets.iter().any(|t| t.filter != filter) {
        return Err(EsError::IllegalArgument(format!(
            "[{}] reaches indices through aliases with different filters; search them in separate requests",
            expression.unwrap_or("_all")
        )));
    }
    Ok((targets.into_iter().map(|t| t.index).collect(), filter))
}

/// The parsed `query` restricted to documents `filter` matches.
pub fn with_typed_filter(
    query: &ParsedQuery,
    filter: Option<&Value>,
) -> strata_search::Result<ParsedQuery> {
    Ok(match filter {
        None => query.clone(),
        Some(f) => query.filtered(&[ParsedQuery::parse(f.clone())?]),
    })
}

/// `query` restricted to documents `filter` matches.
pub fn with_filter(query: Value, filter: Option<&Value>) -> Value {
    match filter {
        None => query,
        Some(f) => json!({"bool": {"must": [query], "filter": [f]}}),
    }
}
