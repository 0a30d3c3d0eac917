//! The `nested` and `reverse_nested` aggregations. Each is a pass of its
//! own over another level's documents (`DocScope`): `nested` over the
//! nested objects at its path whose parents match the query and bucket
//! filters so far, `reverse_nested` back over the parents (root, or an
//! enclosing nested object) of the nested objects in its bucket. Their
//! `doc_count` is the number of documents of that level, and their
//! sub-aggregations run over those documents. Their `path` was parsed with
//! the request ([`NestedParams`]); whether it names a nested object of the
//! mapping, below the enclosing scope, is checked here.

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::{json, Value};
use tantivy::query::{BooleanQuery, ConstScoreQuery, EmptyQuery, Occur, Query};

use super::agg_tree::{AggKind, AggNode, AggTree, NestedParams, TypedParams};
pub(crate) use super::doc_scope::DocScope;
use super::index_query::query_at;
use super::reentry::SearchFn;
use super::request::{SearchRequest, TrackTotalHits};
use super::slice::Slice;
use crate::breaker::MemoryAccount;
use crate::error::{Result, SearchError};
use crate::index::SearchIndex;
use crate::query::ast::{BoolQuery, NestedAst, QueryAst, ScoreMode};
use crate::query::nested::{ChildrenOf, Level, LevelQuery};
use crate::query::ParsedQuery;
use crate::script::fields::ScriptedFields;

/// The aggregation kinds this module runs.
pub const KINDS: &[&str] = &["nested", "reverse_nested"];

/// The query of `req` for `index`, scoped and sliced as the request says
/// ([`scoped_query`]).
pub(super) fn request_query(index: &SearchIndex, req: &SearchRequest) -> Result<Box<dyn Query>> {
    scoped_query(
        index,
        &req.query,
        &req.memory,
        &req.scope,
        Some(&req.scripted),
        req.slice.as_ref(),
    )
}

/// `query` for `index` over the documents of `scope`: on an index with
/// nested objects every search is narrowed to its scope's level, so that
/// nested documents never show as hits or in counts. With a `slice`, the
/// root documents are narrowed to the slice's (a nested scope's documents
/// to those whose root document is in it), so every pass of a sliced
/// search (hits, aggregations, their extra passes) sees the same part.
pub(super) fn scoped_query(
    index: &SearchIndex,
    query: &ParsedQuery,
    memory: &MemoryAccount,
    scope: &DocScope,
    runtime: Option<&ScriptedFields>,
    slice: Option<&Slice>,
) -> Result<Box<dyn Query>> {
    let q = query_at(index, query, memory, scope.path(), runtime)?;
    let marks = index.shards()[0].fields().nested;
    match (scope, marks) {
        (DocScope::Root, Some(marks)) if index.has_nested_mapping() => {
            let q = Slice::narrow(slice, q, index)?;
            Ok(Box::new(LevelQuery::new(Level::Root, marks, q)))
        }
        (DocScope::Root, _) => Slice::narrow(slice, q, index),
        (
            DocScope::Nested {
                path,
                parent,
                parent_query,
            },
            Some(marks),
        ) => {
            let parents = scoped_query(index, parent_query, memory, parent, runtime, slice)?;
            let children = ChildrenOf::new(path, Level::of(parent.path()), marks, parents);
            Ok(Box::new(BooleanQuery::new(vec![
                (Occur::Must, q),
                (
                    Occur::Must,
                    Box::new(ConstScoreQuery::new(Box::new(children), 0.0)),
                ),
            ])))
        }
        // An index without nested documents has none at any path.
        (DocScope::Nested { .. }, None) => Ok(Box::new(EmptyQuery)),
    }
}

/// Runs a `nested` or `reverse_nested` aggregation `node` (with its
/// sub-aggregations, as parsed) over the documents of this scope matching
/// `query` (the search query and the bucket filters above); `search`
/// runs the pass.
pub(super) fn run(
    search: SearchFn,
    indices: &[Arc<SearchIndex>],
    req: &SearchRequest,
    query: &ParsedQuery,
    node: &AggNode,
) -> Result<Value> {
    let name = &node.name;
    let TypedParams::Nested(params) = &node.typed else {
        return Err(SearchError::illegal(format!(
            "[{}] aggregation [{name}] was not parsed",
            node.kind.name()
        )));
    };
    let (scope, pass_query) = if node.kind == AggKind::Nested {
        let path = nested_path(name, params, indices, &req.scope)?;
        let scope = DocScope::Nested {
            path,
            parent: Box::new(req.scope.clone()),
            parent_query: query.clone(),
        };
        (scope, ParsedQuery::match_all())
    } else {
        reverse(name, params, &req.scope, query)?
    };
    let pass = SearchRequest {
        query: pass_query,
        from: 0,
        size: 0,
        sort: Vec::new(),
        track_total_hits: TrackTotalHits::Exact,
        search_after: None,
        aggs: AggTree::from_nodes(node.subs.clone()),
        docvalue_fields: Vec::new(),
        scope,
        ..req.clone()
    };
    let out = search(indices, &pass)?.body;
    let mut result = json!({"doc_count": out["hits"]["total"]["value"].as_u64().unwrap_or(0)});
    if let Some(Value::Object(aggs)) = out.get("aggregations") {
        for (k, v) in aggs {
            result[k] = v.clone();
        }
    }
    Ok(result)
}

/// Checks a `nested` or `reverse_nested` aggregation before the search:
/// its parameters were parsed with the request.
pub fn validate(node: &AggNode) -> Result<()> {
    match node.typed {
        TypedParams::Nested(_) => Ok(()),
        _ => Err(SearchError::illegal(format!(
            "[{}] aggregation [{}] was not parsed",
            node.kind.name(),
            node.name
        ))),
    }
}

/// The path of a `nested` aggregation, checked against the first
/// index's mapping and the scope it is in.
fn nested_path(
    name: &str,
    params: &NestedParams,
    indices: &[Arc<SearchIndex>],
    scope: &DocScope,
) -> Result<String> {
    let path = params.path.as_deref().unwrap_or_default();
    let Some(first) = indices.first() else {
        return Ok(path.to_string());
    };
    let mappings = first.mappings();
    if mappings.nested_object(path).is_none() {
        let reason = if mappings.is_object(path) || mappings.leaf(path).is_some() {
            format!("[nested] nested path [{path}] is not nested")
        } else {
            format!("[nested] failed to find nested object under path [{path}]")
        };
        return Err(SearchError::illegal(reason));
    }
    if let Some(outer) = scope.path() {
        if !is_below(path, outer) {
            return Err(SearchError::illegal(format!(
                "[nested] aggregation [{name}] on path [{path}] is not below the enclosing nested path [{outer}]"
            )));
        }
    }
    Ok(path.to_string())
}

/// The parents (matching `parent_query`) of the documents at `path`
/// that match `query`: `{"bool": {"must": [parent_query, {"nested":
/// {"path": path, "query": query, "score_mode": "none"}}]}}`, built as a
/// tree over the two parsed queries.
fn parents_of(parent_query: &ParsedQuery, path: String, query: ParsedQuery) -> ParsedQuery {
    let json = json!({"bool": {"must": [
        parent_query.json(),
        {"nested": {"path": path, "query": query.json(), "score_mode": "none"}}
    ]}});
    let nested = NestedAst {
        path: Cow::Owned(path),
        query: Box::new(QueryAst::Parsed(query)),
        score_mode: ScoreMode::None,
        ignore_unmapped: false,
        boost: 1.0,
    };
    let node = BoolQuery::conjunction(
        vec![
            QueryAst::Parsed(parent_query.clone()),
            QueryAst::Nested(nested),
        ],
        Vec::new(),
    );
    ParsedQuery::composed(QueryAst::Bool(node), json)
}

fn is_below(path: &str, outer: &str) -> bool {
    path.len() > outer.len() && path.starts_with(outer) && path.as_bytes()[outer.len()] == b'.'
}

/// The scope and query of a `reverse_nested` aggregation: the parents,
/// at the level of `path` (the root when absent), of this scope's
/// documents matching `query`. Each level up wraps the query in a
/// `nested` query on the level below, under that level's own query.
fn reverse(
    name: &str,
    params: &NestedParams,
    scope: &DocScope,
    query: &ParsedQuery,
) -> Result<(DocScope, ParsedQuery)> {
    let target = params.path.as_deref();
    if scope.path().is_none() {
        return Err(SearchError::illegal(format!(
            "Reverse nested aggregation [{name}] can only be used inside a [nested] aggregation"
        )));
    }
    let mut scope = scope.clone();
    let mut query = query.clone();
    loop {
        if scope.path() == target {
            return Ok((scope, query));
        }
        let DocScope::Nested {
            path,
            parent,
            parent_query,
        } = scope
        else {
            return Err(SearchError::illegal(format!(
                "Reverse nested aggregation [{name}]: path [{}] is not a parent of the nested scope",
                target.unwrap_or_default()
            )));
        };
        query = parents_of(&parent_query, path, query);
        scope = *parent;
    }
}
