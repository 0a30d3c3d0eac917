//! One file per group of endpoints; [`dispatch`] is the table from a
//! [`Route`] to its handler. Handlers run on the blocking pool (they call
//! the engine directly) and return a [`Reply`], with any translog waits
//! left for the server to await.
//!
//! - `root`: `GET /`.
//! - `indices`: index management (create, delete, get, exists, mapping,
//!   settings, refresh, flush, force merge).
//! - `documents`: single-document APIs; `update`: `_update`; `mget`:
//!   `_mget`; `found_doc`: a found document's reply, its source verbatim.
//! - `bulk`: `_bulk`.
//! - `targets`: index expressions resolved to indices, and the request's
//!   indices options; `search_request`: a search request built from the
//!   body and URL parameters and run, shared by every search endpoint.
//! - `search`: `_search`, `_count`, `_msearch`; `scroll`: scrolls;
//!   `pit`: points in time; `collapse`: field collapsing.
//! - `by_query`: `_delete_by_query`, `_update_by_query`, `_reindex`;
//!   `tasks`: `_tasks`.
//! - `cluster`: `_cluster/*`, `_nodes`; `index_stats`: `_stats[/<metric>]`;
//!   `node_reports`: the node's caches and SSD store in `_nodes/stats`.
//! - `cat`: `_cat/*` tables; `cat_tables`: count, shards, segments,
//!   templates, allocation, thread_pool.
//! - `data_streams`: `_data_stream`; `simulate`:
//!   `_index_template/_simulate_index`.
//! - `disk_usage`: `_disk_usage`, bytes per field and structure.
//! - `inspect`: `_field_caps`, `_validate/query`, `_explain`; `analyze`:
//!   `_analyze`.
//! - `stats`: per-index statistics shared by the last two.
//! - `aliases`: `_aliases`, `_alias`, `_cat/aliases`.
//! - `templates`: `_template`, `_index_template`, `_component_template`.
//! - `rollover`: `<alias>/_rollover`.
//! - `cluster_state`: `_cluster/state`, `_cluster/settings`.
//! - `write_reply`: the reply body of a document write (single and bulk).

pub mod aliases;
pub mod analyze;
pub mod bulk;
pub mod by_query;
pub mod cat;
pub mod cat_tables;
pub mod cluster;
pub mod cluster_state;
pub mod collapse;
pub mod data_streams;
pub mod disk_usage;
pub mod documents;
pub mod found_doc;
pub mod index_stats;
pub mod indices;
pub mod inspect;
pub mod mget;
pub mod msearch;
mod node_reports;
pub mod pit;
pub mod rollover;
pub mod root;
pub mod scripts;
pub mod scroll;
pub mod search;
mod search_request;
pub mod simulate;
mod slice;
pub mod stats;
mod targets;
pub mod tasks;
pub mod templates;
pub mod update;
pub mod write_reply;

use std::sync::Arc;

use crate::error::Result;
use crate::node::Node;
use crate::reply::Reply;
use crate::request::EsRequest;
use crate::route::Route;
use strata_search::TemplateKind;

/// Runs the handler of `route` (every route but `ClusterHealth`, which
/// may wait and is served on the async side).
pub fn dispatch(node: &Arc<Node>, route: &Route, req: &EsRequest) -> Result<Reply> {
    if !is_write(route, req) {
        return run(node, route, req);
    }
    // Hold the body's bytes until the reply may be sent: the permit rides
    // along as the last wait, dropped once every translog wait before it
    // is done (or the reply fails).
    let permit = node.indexing_pressure.acquire(req.body.len())?;
    let mut reply = run(node, route, req)?;
    reply.durable.push(Box::pin(async move {
        drop(permit);
        Ok(())
    }));
    Ok(reply)
}

/// Whether `route` is a write whose bytes count against indexing pressure.
fn is_write(route: &Route, req: &EsRequest) -> bool {
    match route {
        Route::Bulk(_) | Route::DocAutoId(_) | Route::Create(..) | Route::Update(..) => true,
        Route::Doc(..) => matches!(
            req.method,
            axum::http::Method::PUT | axum::http::Method::POST | axum::http::Method::DELETE
        ),
        _ => false,
    }
}

fn run(node: &Arc<Node>, route: &Route, req: &EsRequest) -> Result<Reply> {
    match route {
        Route::Info => root::info(node, req),
        Route::Index(index) => indices::index(node, index, req),
        Route::Mapping(index) => indices::mapping(node, index.as_deref(), req),
        Route::Settings(index) => indices::settings(node, index.as_deref(), req),
        Route::Refresh(index) => indices::refresh(node, index.as_deref()),
        Route::Flush(index) => indices::flush(node, index.as_deref()),
        Route::ForceMerge(index) => indices::force_merge(node, index.as_deref(), req),
        Route::Stats(index) => index_stats::stats(node, index.as_deref(), req),
        Route::DocAutoId(index) => documents::write(node, index, None, false, req),
        Route::Doc(index, id) => documents::doc(node, index, id, req),
        Route::Create(index, id) => documents::write(node, index, Some(id), true, req),
        Route::Source(index, id) => documents::source(node, index, id, req),
        Route::Update(index, id) => update::update(node, index, id, req),
        Route::Mget(index) => mget::mget(node, index.as_deref(), req),
        Route::Bulk(index) => bulk::bulk(node, index.as_deref(), req),
        Route::Search(index) => search::search(node, index.as_deref(), req),
        Route::Count(index) => search::count(node, index.as_deref(), req),
        Route::Msearch(index) => msearch::msearch(node, index.as_deref(), req),
        Route::ClusterHealth(index) => cluster::health_now(node, index.as_deref(), req),
        Route::ClusterSettings => cluster_state::settings(node, req),
        Route::ClusterState => cluster_state::state(node, req),
        Route::Nodes => cluster::nodes(node),
        Route::NodesStats => cluster::nodes_stats(node, req),
        Route::CatIndices(index) => cat::indices(node, index.as_deref(), req),
        Route::CatHealth => cat::health(node, req),
        Route::CatNodes => cat::nodes(node, req),
        Route::CatAliases(name) => aliases::cat(node, name.as_deref(), req),
        Route::Aliases(index) => aliases::aliases(node, index.as_deref(), req),
        Route::Alias(index, name) => aliases::alias(node, index.as_deref(), name.as_deref(), req),
        Route::Template(name) => {
            templates::template(node, TemplateKind::Legacy, name.as_deref(), req)
        }
        Route::IndexTemplate(name) => {
            templates::template(node, TemplateKind::Composable, name.as_deref(), req)
        }
        Route::ComponentTemplate(name) => {
            templates::template(node, TemplateKind::Component, name.as_deref(), req)
        }
        Route::Rollover(alias, new_index) => {
            rollover::rollover(node, alias, new_index.as_deref(), req)
        }
        Route::CacheClear(index) => indices::cache_clear(node, index.as_deref()),
        Route::StoredScript(id, context) => scripts::stored(node, id, context.as_deref(), req),
        Route::Scroll(id) => scroll::scroll(node, id.as_deref(), req),
        Route::Pit(index) => pit::pit(node, index.as_deref(), req),
        Route::Reindex => by_query::reindex::reindex(node, req),
        Route::DeleteByQuery(index) => by_query::by_query(node, index, by_query::Kind::Delete, req),
        Route::UpdateByQuery(index) => by_query::by_query(node, index, by_query::Kind::Update, req),
        Route::Tasks(id) => tasks::tasks(node, id.as_deref(), req),
        Route::TaskCancel(id) => tasks::cancel(node, id.as_deref(), req),
        Route::CatTable(t, arg) => cat_tables::table(node, t, arg.as_deref(), req),
        Route::FieldCaps(index) => inspect::field_caps(node, index.as_deref(), req),
        Route::ValidateQuery(index) => inspect::validate_query(node, index.as_deref(), req),
        Route::Explain(index, id) => inspect::explain(node, index, id, req),
        Route::Analyze(index) => analyze::analyze(node, index.as_deref(), req),
        Route::SimulateIndex(name) => simulate::simulate_index(node, name, req),
        Route::DataStream(names) => data_streams::data_stream(node, names.as_deref(), req),
        Route::DiskUsage(index) => disk_usage::disk_usage(node, index, req),
    }
}
