//! `POST [/<index>]/_bulk`: NDJSON action lines (`index`, `create`,
//! `update`, `delete`) each followed by a source line except `delete`.
//! Items run in order; each reports its own status or error and any error
//! sets `errors`. A malformed action line fails the whole request, as in
//! Elasticsearch. The reply waits until the last translog record of every
//! touched index is durable (`request` durability), one wait per index:
//! the translog's group commit covers every earlier record with it.
//!
//! `items`: the body parsed into items; here: running them and the reply.

mod items;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;
use serde_json::Value;
use strata_search::{DocWriteResult, MemoryAccount, SearchError, SearchIndex};

use super::update::UpdateBody;
use super::write_reply::{write_status, WriteBody};
use crate::error::{EsError, Result};
use crate::ndjson;
use crate::node::Node;
use crate::reply::Reply;
use crate::request::{check_version, precondition, reject_routing, EsRequest, RefreshPolicy};
use crate::security::actions;
use crate::write_target::index_for_write;
use items::{parse_items, Item, Op};

/// `[/<index>]/_bulk`.
pub fn bulk(node: &Node, path_index: Option<&str>, req: &EsRequest) -> Result<Reply> {
    let refresh = req.refresh_policy()?;
    reject_routing(req.param("routing"))?;
    if req.param("pipeline").is_some() {
        return Err(EsError::IllegalArgument(
            "ingest pipelines are not supported by this server".into(),
        ));
    }
    let require_alias = req.flag("require_alias", false)?;
    let items = parse_items(&req.body, path_index, &req.memory)?;
    let started = Instant::now();
    let mut touched: BTreeMap<String, (Arc<SearchIndex>, u64)> = BTreeMap::new();
    let mut outcomes = Vec::with_capacity(items.len());
    for item in &items {
        req.memory.reserve(OUTCOME_BYTES, "<bulk_item>")?;
        let outcome =
            match authorize(req, item).and_then(|()| run(node, item, require_alias, &req.memory)) {
                Ok((index, result, get)) => {
                    // Looked up first: the name is copied once per index, not per item.
                    let entry = match touched.get_mut(index.name()) {
                        Some(entry) => entry,
                        None => touched
                            .entry(index.name().to_string())
                            .or_insert_with(|| (Arc::clone(&index), 0)),
                    };
                    entry.1 = entry.1.max(result.lsn);
                    Outcome::Written { index, result, get }
                }
                Err(e) => Outcome::Failed {
                    status: e.status(),
                    error: e.in_index(&item.index).cause(),
                },
            };
        outcomes.push(outcome);
    }
    if refresh != RefreshPolicy::None {
        for (index, _) in touched.values() {
            index.refresh()?;
        }
    }
    let reply = BulkReply {
        took: started.elapsed().as_millis() as u64,
        errors: outcomes.iter().any(|o| matches!(o, Outcome::Failed { .. })),
        items: items
            .iter()
            .zip(&outcomes)
            .map(|(item, outcome)| ItemReply { item, outcome })
            .collect(),
    };
    let mut reply = Reply::serialized(&reply)
        .map_err(|e| EsError::Internal(format!("could not write the bulk reply: {e}")))?;
    for (index, lsn) in touched.values() {
        reply = reply.after_durable(index, *lsn);
    }
    Ok(reply)
}

/// What one item did.
enum Outcome {
    Written {
        index: Arc<SearchIndex>,
        result: DocWriteResult,
        get: Option<Value>,
    },
    Failed {
        status: u16,
        error: Value,
    },
}

/// The bulk reply, serialized without building a `Value` per item.
#[derive(Serialize)]
struct BulkReply<'a> {
    took: u64,
    errors: bool,
    items: Vec<ItemReply<'a>>,
}

/// `{"<op>": {...}}` for one item.
struct ItemReply<'a> {
    item: &'a Item<'a>,
    outcome: &'a Outcome,
}

/// A written item: the write's body, its status and an update's `get`.
#[derive(Serialize)]
struct WrittenItem<'a> {
    #[serde(flatten)]
    body: WriteBody<'a>,
    status: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    get: Option<&'a Value>,
}

/// A failed item.
#[derive(Serialize)]
struct FailedItem<'a> {
    #[serde(rename = "_index")]
    index: &'a str,
    #[serde(rename = "_id")]
    id: Option<&'a str>,
    status: u16,
    error: &'a Value,
}

impl Serialize for ItemReply<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        let name = self.item.op.name();
        match self.outcome {
            Outcome::Written { index, result, get } => map.serialize_entry(
                name,
                &WrittenItem {
                    body: WriteBody::new(index, result),
                    status: write_status(result.result),
                    get: get.as_ref(),
                },
            )?,
            Outcome::Failed { status, error } => map.serialize_entry(
                name,
                &FailedItem {
                    index: &self.item.index,
                    id: self.item.id.as_deref(),
                    status: *status,
                    error,
                },
            )?,
        }
        map.end()
    }
}

/// What an item's outcome and reply entry hold until the reply is sent.
const OUTCOME_BYTES: u64 = 256;

/// The caller's right to this item (security on): the operation's
/// privilege on the name as written, and to create the index if needed.
fn authorize(req: &EsRequest, item: &Item<'_>) -> Result<()> {
    let Some(grant) = &req.grant else {
        return Ok(());
    };
    let create =
        item.op == Op::Create || item.meta.get("op_type").and_then(Value::as_str) == Some("create");
    match item.op {
        Op::Delete => grant.check(actions::DELETE_DOC, &[&item.index]),
        Op::Update => grant.check_write(actions::UPDATE_DOC, &item.index),
        Op::Index | Op::Create if create => grant.check_write(actions::CREATE_DOC, &item.index),
        Op::Index | Op::Create => grant.check_write(actions::INDEX_DOC, &item.index),
    }
}

/// Runs one item: its index, its result and, for an update asking for
/// `_source`, the reply's `get`.
fn run(
    node: &Node,
    item: &Item<'_>,
    require_alias: bool,
    memory: &MemoryAccount,
) -> Result<(Arc<SearchIndex>, DocWriteResult, Option<Value>)> {
    let required = match item.meta.get("require_alias") {
        Some(v) => v.as_bool().unwrap_or(require_alias),
        None => require_alias,
    };
    if item.op != Op::Delete {
        super::documents::require_alias(node, &item.index, required)?;
    }
    let meta_u64 = |key: &str| -> Result<Option<u64>> {
        item.meta
            .get(key)
            .map(|v| {
                v.as_u64()
                    .ok_or_else(|| EsError::IllegalArgument(format!("[{key}] must be a number")))
            })
            .transpose()
    };
    reject_routing(item.meta.get("routing").and_then(Value::as_str))?;
    let version = item.meta.get("version").map(Value::to_string);
    let external = check_version(
        version.as_deref(),
        item.meta.get("version_type").and_then(Value::as_str),
    )?;
    let pre = match external {
        Some(_) if item.op == Op::Create => {
            return Err(EsError::ActionValidation(
                "create operations only support internal versioning. use index instead".into(),
            ))
        }
        Some(p) => p,
        None => precondition(
            meta_u64("if_seq_no")?,
            meta_u64("if_primary_term")?,
            item.op == Op::Create,
        )?,
    };
    let id = item.id.as_deref();
    match item.op {
        Op::Delete => {
            let index = node
                .catalog
                .write_index(&item.index)?
                .ok_or_else(|| SearchError::IndexNotFound(item.index.clone()))?;
            let result = index
                .delete_document(id.unwrap_or_default(), pre)
                .map_err(EsError::from)?;
            Ok((index, result, None))
        }
        Op::Index | Op::Create => {
            let source = item.source.unwrap_or_default();
            crate::data_streams::check_write(
                node,
                &item.index,
                item.op == Op::Create || id.is_none(),
                source,
            )?;
            let index = index_for_write(node, &item.index)?;
            let _indexing = super::documents::reserve_indexing(memory, source)?;
            let result = index
                .index_document(id, source, pre)
                .map_err(EsError::from)?;
            Ok((index, result, None))
        }
        Op::Update => {
            let source = item.source.unwrap_or_default();
            let _indexing = super::documents::reserve_indexing(memory, source)?;
            crate::data_streams::check_write(node, &item.index, false, b"")?;
            let mut body = ndjson::parse_line(source, 0)?;
            node.catalog.scripts().resolve(&mut body)?;
            let update = UpdateBody::parse(&body)?;
            let index = index_for_write(node, &item.index)?;
            let id = id.unwrap_or_default();
            let result = update.apply(&index, id, pre)?;
            let get = update.get_field(&index, id, None)?;
            Ok((index, result, get))
        }
    }
}
