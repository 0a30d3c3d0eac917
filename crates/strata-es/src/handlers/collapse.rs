//! Field collapsing (`"collapse": {"field", "inner_hits"}`): the top hit
//! of each distinct value of a `keyword` or numeric field, in the
//! request's order, `from`/`size` counting groups. Each hit carries the
//! value in `fields`, as in Elasticsearch; `hits.total` counts every
//! match; aggregations see every match.
//!
//! Done over the engine's ranking: the top `window` hits are read with
//! the field's value and grouped in order; while fewer than `from + size`
//! groups were found and more hits exist, the window doubles (up to the
//! index's result window). `inner_hits` (one object or a list) run one
//! search per group shown, on the group's value.

use std::sync::Arc;

use serde_json::{json, Map, Value};
use strata_search::{FieldType, SearchIndex};

use super::aliases;
use super::search_request::run_search_with;
use super::targets::indices_options;
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

/// The largest window collapsing reads (Elasticsearch's default
/// `index.max_result_window`).
const MAX_WINDOW: usize = 10_000;

/// `_search` with `collapse`.
pub fn search(
    node: &Node,
    expression: Option<&str>,
    body: &Value,
    req: &EsRequest,
) -> Result<Reply> {
    if req.param("scroll").is_some() {
        return Err(EsError::ActionValidation(
            "cannot use `collapse` in a scroll context".into(),
        ));
    }
    let spec = &body["collapse"];
    let field = spec
        .get("field")
        .and_then(Value::as_str)
        .ok_or_else(|| EsError::Parse("[collapse] requires [field]".into()))?
        .to_string();
    if let Some(k) = spec.as_object().and_then(|o| {
        o.keys().find(|k| {
            !matches!(
                k.as_str(),
                "field" | "inner_hits" | "max_concurrent_group_searches"
            )
        })
    }) {
        return Err(EsError::Parse(format!("[collapse] unknown field [{k}]")));
    }
    if body.get("search_after").is_some() {
        return Err(EsError::ActionValidation(
            "cannot use `collapse` in conjunction with `search_after` by this server".into(),
        ));
    }
    let (indices, filter) = aliases::resolve_filtered(node, expression, indices_options(req)?)?;
    check_field(&indices, &field)?;
    let from = body.get("from").and_then(Value::as_u64).unwrap_or(0) as usize;
    let size = body.get("size").and_then(Value::as_u64).unwrap_or(10) as usize;
    let from = req
        .param("from")
        .and_then(|v| v.parse().ok())
        .unwrap_or(from);
    let size = req
        .param("size")
        .and_then(|v| v.parse().ok())
        .unwrap_or(size);
    let wanted = from.saturating_add(size);
    let mut pass = body.clone();
    if let Some(o) = pass.as_object_mut() {
        o.remove("collapse");
    }
    let mut fields = pass
        .get("docvalue_fields")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    fields.push(json!(field));
    pass["docvalue_fields"] = Value::Array(fields);
    let mut window = wanted.saturating_mul(4).clamp(16, MAX_WINDOW);
    let mut first: Option<Value> = None;
    let (mut groups, mut seen): (Vec<Value>, Vec<Value>) = (Vec::new(), Vec::new());
    loop {
        pass["from"] = json!(0);
        pass["size"] = json!(window);
        let mut out = run_search_with(&indices, filter.as_ref(), &pass, req, false, |r| {
            r.from = 0;
            r.size = window;
            Ok(())
        })?
        .into_value();
        // Aggregations once: later passes only rank.
        if let Some(o) = pass.as_object_mut() {
            o.remove("aggs");
            o.remove("aggregations");
        }
        let hits = out["hits"]["hits"].take();
        let hits = hits.as_array().cloned().unwrap_or_default();
        let exhausted = hits.len() < window;
        groups.clear();
        seen.clear();
        for hit in hits {
            let key = hit["fields"][&field].get(0).cloned().unwrap_or(Value::Null);
            if !seen.contains(&key) {
                seen.push(key);
                groups.push(hit);
                if groups.len() >= wanted {
                    break;
                }
            }
        }
        first.get_or_insert(out);
        if groups.len() >= wanted || exhausted || window >= MAX_WINDOW {
            break;
        }
        window = window.saturating_mul(2).min(MAX_WINDOW);
    }
    let mut page: Vec<Value> = groups.into_iter().skip(from).take(size).collect();
    for hit in &mut page {
        if !hit["fields"][&field].is_array() {
            hit["fields"][&field] = json!([Value::Null]);
        }
    }
    if let Some(inner) = spec.get("inner_hits") {
        let list = match inner {
            Value::Array(a) => a.clone(),
            other => vec![other.clone()],
        };
        for hit in &mut page {
            let key = hit["fields"][&field][0].clone();
            let mut all = Map::new();
            for spec in &list {
                let (name, result) =
                    inner_hits(&indices, filter.as_ref(), body, &field, &key, spec, req)?;
                all.insert(name, result);
            }
            hit["inner_hits"] = Value::Object(all);
        }
    }
    let mut out = first.unwrap_or_else(|| json!({}));
    out["hits"]["hits"] = Value::Array(page);
    Ok(Reply::ok(out))
}

/// The field must be a `keyword` or numeric field where it is mapped.
fn check_field(indices: &[Arc<SearchIndex>], field: &str) -> Result<()> {
    let mut mapped = false;
    for index in indices {
        match index.mappings().leaf(field).map(|l| l.ty) {
            None => {}
            Some(t) if t == FieldType::Keyword || t.is_numeric() || t == FieldType::Date => {
                mapped = true
            }
            Some(_) => {
                return Err(EsError::IllegalArgument(format!(
                    "collapse is not supported for the field [{field}] of the type [{}]",
                    index.mappings().leaf(field).map_or("", |l| l.ty.name())
                )))
            }
        }
    }
    if !mapped && !indices.is_empty() {
        return Err(EsError::IllegalArgument(format!(
            "no mapping found for `{field}` in order to collapse on"
        )));
    }
    Ok(())
}

/// One `inner_hits` entry of the group whose value is `key`.
fn inner_hits(
    indices: &[Arc<SearchIndex>],
    filter: Option<&Value>,
    body: &Value,
    field: &str,
    key: &Value,
    spec: &Value,
    req: &EsRequest,
) -> Result<(String, Value)> {
    let name = spec
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or(field)
        .to_string();
    let query = body
        .get("query")
        .cloned()
        .unwrap_or_else(|| json!({"match_all": {}}));
    let group = if key.is_null() {
        json!({"bool": {"must_not": [{"exists": {"field": field}}]}})
    } else {
        json!({"term": {field: key}})
    };
    let mut search = json!({
        "query": {"bool": {"must": [query], "filter": [group]}},
        "from": spec.get("from").cloned().unwrap_or(json!(0)),
        "size": spec.get("size").cloned().unwrap_or(json!(3)),
        "track_total_hits": true,
    });
    for k in [
        "sort",
        "_source",
        "docvalue_fields",
        "version",
        "seq_no_primary_term",
    ] {
        if let Some(v) = spec.get(k) {
            search[k] = v.clone();
        }
    }
    let out = run_search_with(indices, filter, &search, req, false, |_| Ok(()))?.into_value();
    Ok((name, json!({"hits": out["hits"].clone()})))
}
