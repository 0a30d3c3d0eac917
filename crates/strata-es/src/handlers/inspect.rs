//! APIs that look at mappings and queries without searching:
//! `_field_caps`, `_validate/query` and `_explain/<id>` (`_analyze` has
//! its own module).
//!
//! `_explain` gives tantivy's own explanation of the document's score
//! (BM25 terms, boosts, filters) in Elasticsearch's `value` /
//! `description` / `details` shape.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};
use strata_search::{FieldType, Mappings, SearchIndex};

use super::aliases;
use super::targets::indices_options;
use crate::error::{EsError, Result};
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;

fn now_ms() -> i64 {
    crate::host::now_millis() as i64
}

fn query_of(
    index: &SearchIndex,
    query: &Value,
) -> strata_search::Result<Box<dyn tantivy::query::Query>> {
    index.build_query(query, now_ms())
}

fn aggregatable(ty: FieldType) -> bool {
    ty != FieldType::Text
}

/// `[/<index>]/_field_caps?fields=`.
pub fn field_caps(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let body = req.json_body()?;
    let mut patterns: Vec<String> = req
        .param("fields")
        .map(|f| {
            f.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    match body.get("fields") {
        Some(Value::Array(list)) => {
            patterns.extend(list.iter().filter_map(Value::as_str).map(str::to_string))
        }
        Some(Value::String(list)) => patterns.extend(
            list.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string),
        ),
        _ => {}
    }
    if patterns.is_empty() {
        return Err(EsError::ActionValidation(
            "specified fields can't be null or empty".into(),
        ));
    }
    let include_unmapped = req.flag("include_unmapped", false)?;
    let (indices, _) = aliases::resolve_filtered(node, expression, indices_options(req)?)?;
    // field -> type -> indices having it so
    let mut caps: BTreeMap<String, BTreeMap<&'static str, Vec<String>>> = BTreeMap::new();
    let mut per_type: BTreeMap<(String, &'static str), (bool, bool, bool)> = BTreeMap::new();
    for index in &indices {
        let mappings = index.mappings();
        for (name, ty, searchable, aggregatable, meta) in fields_of(&mappings) {
            if !patterns.iter().any(|p| glob(p, &name)) {
                continue;
            }
            caps.entry(name.clone())
                .or_default()
                .entry(ty)
                .or_default()
                .push(index.name().to_string());
            per_type.insert((name, ty), (searchable, aggregatable, meta));
        }
    }
    let names: Vec<String> = indices.iter().map(|i| i.name().to_string()).collect();
    let mut fields = Map::new();
    for (name, types) in &mut caps {
        let mut entry = Map::new();
        let present: usize = types.values().map(Vec::len).sum();
        if include_unmapped && present < names.len() {
            let missing: Vec<String> = names
                .iter()
                .filter(|n| !types.values().any(|l| l.contains(n)))
                .cloned()
                .collect();
            types.insert("unmapped", missing);
        }
        let several = types.len() > 1;
        for (ty, on) in types.iter() {
            let (searchable, aggregatable, meta) = per_type
                .get(&(name.clone(), *ty))
                .copied()
                .unwrap_or((false, false, false));
            let mut cap = json!({
                "type": ty,
                "metadata_field": meta,
                "searchable": searchable,
                "aggregatable": aggregatable,
            });
            if several {
                cap["indices"] = json!(on);
            }
            entry.insert(ty.to_string(), cap);
        }
        fields.insert(name.clone(), Value::Object(entry));
    }
    Ok(Reply::ok(json!({"indices": names, "fields": fields})))
}

/// Every field of `mappings` as `(name, type, searchable, aggregatable,
/// metadata)`: metadata fields, leaves (multi-fields included) and the
/// objects above them.
fn fields_of(mappings: &Mappings) -> Vec<(String, &'static str, bool, bool, bool)> {
    let mut out = vec![
        ("_id".to_string(), "_id", true, false, true),
        ("_index".to_string(), "_index", true, true, true),
        ("_source".to_string(), "_source", false, false, true),
        ("_seq_no".to_string(), "_seq_no", true, true, true),
        ("_version".to_string(), "_version", false, false, true),
    ];
    let mut objects = std::collections::BTreeSet::new();
    for (path, leaf) in mappings.leaf_paths() {
        let mut prefix = path.as_str();
        while let Some((parent, _)) = prefix.rsplit_once('.') {
            if mappings.leaf(parent).is_none() {
                objects.insert(parent.to_string());
            }
            prefix = parent;
        }
        out.push((
            path.clone(),
            leaf.ty.name(),
            true,
            aggregatable(leaf.ty),
            false,
        ));
    }
    out.extend(
        objects
            .into_iter()
            .map(|o| (o, "object", false, false, false)),
    );
    out
}

/// `*` matches any run (at most 8 stars).
fn glob(pattern: &str, text: &str) -> bool {
    if pattern.matches('*').count() > 8 {
        return false;
    }
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, rest)) => text.strip_prefix(head).is_some_and(|tail| {
            (0..=tail.len()).any(|i| tail.is_char_boundary(i) && glob(rest, &tail[i..]))
        }),
    }
}

/// The expression `DELETE /<expression>` deletes: with
/// `ignore_unavailable=true` concrete names that do not exist are left
/// out (`None`: nothing is left to delete); otherwise as given.
pub fn existing_for_delete(
    node: &Node,
    expression: &str,
    req: &EsRequest,
) -> Result<Option<String>> {
    if !req.flag("ignore_unavailable", false)? {
        return Ok(Some(expression.to_string()));
    }
    let kept: Vec<&str> = expression
        .split(',')
        .map(str::trim)
        .filter(|p| p.contains('*') || node.catalog.resolve(p).is_ok_and(|f| !f.is_empty()))
        .collect();
    Ok((!kept.is_empty()).then(|| kept.join(",")))
}

/// `[/<index>]/_validate/query` (`explain`, `q`).
pub fn validate_query(node: &Node, expression: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let body = req.json_body()?;
    let query = match (req.param("q"), body.get("query")) {
        (Some(q), _) => json!({"query_string": {"query": q}}),
        (None, Some(q)) => q.clone(),
        (None, None) => json!({"match_all": {}}),
    };
    if let Value::Object(o) = &body {
        if let Some(k) = o.keys().find(|k| *k != "query") {
            return Err(EsError::Parse(format!("request does not support [{k}]")));
        }
    }
    let explain = req.flag("explain", false)?;
    let (indices, filter) = aliases::resolve_filtered(node, expression, indices_options(req)?)?;
    let query = aliases::with_filter(query, filter.as_ref());
    let mut valid = true;
    let mut explanations = Vec::new();
    for index in &indices {
        match query_of(index, &query) {
            Ok(q) => explanations.push(
                json!({"index": index.name(), "valid": true, "explanation": format!("{q:?}")}),
            ),
            Err(e) => {
                valid = false;
                explanations.push(json!({"index": index.name(), "valid": false, "error": EsError::from(e).to_string()}));
            }
        }
    }
    let shards = indices.len();
    let mut out = json!({
        "_shards": {"total": shards, "successful": shards, "failed": 0},
        "valid": valid,
    });
    if explain {
        out["explanations"] = Value::Array(explanations);
    }
    Ok(Reply::ok(out))
}

/// `/<index>/_explain/<id>`.
pub fn explain(node: &Node, name: &str, id: &str, req: &EsRequest) -> Result<Reply> {
    let body = req.json_body()?;
    let query = match (req.param("q"), body.get("query")) {
        (Some(q), _) => json!({"query_string": {"query": q}}),
        (None, Some(q)) => q.clone(),
        (None, None) => return Err(EsError::ActionValidation("query is missing".into())),
    };
    let index: Arc<SearchIndex> = match node.catalog.write_index(name)? {
        Some(i) => i,
        None => node.catalog.get(name)?,
    };
    let q = query_of(&index, &query).map_err(|e| EsError::from(e).in_index(index.name()))?;
    let base = json!({"_index": index.name(), "_id": id});
    let Some(explained) = index.explain(id, q.as_ref())? else {
        let mut out = base;
        out["matched"] = json!(false);
        return Ok(Reply::json(404, out));
    };
    let mut out = base;
    match explained {
        Ok(explanation) => {
            let raw = serde_json::to_value(&explanation).unwrap_or(Value::Null);
            out["matched"] = json!(true);
            out["explanation"] = es_explanation(&raw, 0);
        }
        Err(_) => {
            out["matched"] = json!(false);
            out["explanation"] =
                json!({"value": 0.0, "description": "no matching term", "details": []});
        }
    }
    Ok(Reply::ok(out))
}

/// tantivy's explanation in Elasticsearch's shape (depth bounded).
fn es_explanation(raw: &Value, depth: usize) -> Value {
    let details: Vec<Value> = if depth < 32 {
        raw.get("details")
            .and_then(Value::as_array)
            .map(|d| d.iter().map(|x| es_explanation(x, depth + 1)).collect())
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    json!({
        "value": raw.get("value").cloned().unwrap_or(json!(0.0)),
        "description": raw.get("description").cloned().unwrap_or(json!("")),
        "details": details,
    })
}
