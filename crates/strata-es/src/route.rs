//! Routing: a method and decoded path segments to a [`Route`]. A path no
//! endpoint has is Elasticsearch's "no handler found" (400); a known path
//! with another method is "incorrect HTTP method" (405, with the allowed
//! methods).

use axum::http::Method;

use crate::error::{EsError, Result};

/// An endpoint, with the index expression and document id from the path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `/`
    Info,
    /// `/<index>`
    Index(String),
    /// `[/<index>]/_mapping`
    Mapping(Option<String>),
    /// `[/<index>]/_settings`
    Settings(Option<String>),
    /// `[/<index>]/_refresh`
    Refresh(Option<String>),
    /// `[/<index>]/_flush`
    Flush(Option<String>),
    /// `[/<index>]/_forcemerge`
    ForceMerge(Option<String>),
    /// `[/<index>]/_stats[/<metric>]`
    Stats(Option<String>),
    /// `/<index>/_doc` (automatic id)
    DocAutoId(String),
    /// `/<index>/_doc/<id>`
    Doc(String, String),
    /// `/<index>/_create/<id>`
    Create(String, String),
    /// `/<index>/_source/<id>`
    Source(String, String),
    /// `/<index>/_update/<id>`
    Update(String, String),
    /// `[/<index>]/_mget`
    Mget(Option<String>),
    /// `[/<index>]/_bulk`
    Bulk(Option<String>),
    /// `[/<index>]/_search`
    Search(Option<String>),
    /// `[/<index>]/_count`
    Count(Option<String>),
    /// `[/<index>]/_msearch`
    Msearch(Option<String>),
    /// `/_cluster/health[/<index>]`
    ClusterHealth(Option<String>),
    /// `/_cluster/settings`
    ClusterSettings,
    /// `/_nodes[/...]`
    Nodes,
    /// `/_nodes[/...]/stats[/...]`
    NodesStats,
    /// `/_cat/indices[/<index>]`
    CatIndices(Option<String>),
    /// `/_cat/health`
    CatHealth,
    /// `/_cat/nodes`
    CatNodes,
    /// `/_cat/aliases[/<alias>]`
    CatAliases(Option<String>),
    /// `POST /_aliases` (actions) and `GET [/<index>]/_aliases`
    Aliases(Option<String>),
    /// `[/<index>]/_alias[/<name>]` and `/<index>/_aliases/<name>`
    Alias(Option<String>, Option<String>),
    /// `/_template[/<name>]`
    Template(Option<String>),
    /// `/_index_template[/<name>]`
    IndexTemplate(Option<String>),
    /// `/_component_template[/<name>]`
    ComponentTemplate(Option<String>),
    /// `/_scripts/<id>[/<context>]`
    StoredScript(String, Option<String>),
    /// `/<alias>/_rollover[/<new_index>]`
    Rollover(String, Option<String>),
    /// `[/<index>]/_cache/clear`
    CacheClear(Option<String>),
    /// `/_cluster/state[/<metrics>[/<indices>]]`
    ClusterState,
    /// `/_search/scroll[/<scroll_id>]`
    Scroll(Option<String>),
    /// `[/<index>]/_pit`
    Pit(Option<String>),
    /// `/_reindex`
    Reindex,
    /// `/<index>/_delete_by_query`
    DeleteByQuery(String),
    /// `/<index>/_update_by_query`
    UpdateByQuery(String),
    /// `/_tasks[/<task_id>]`
    Tasks(Option<String>),
    /// `/_tasks[/<task_id>]/_cancel`
    TaskCancel(Option<String>),
    /// `/_cat/<table>[/<arg>]` of `cat_tables` (count, shards, ...)
    CatTable(String, Option<String>),
    /// `[/<index>]/_field_caps`
    FieldCaps(Option<String>),
    /// `[/<index>]/_validate/query`
    ValidateQuery(Option<String>),
    /// `/<index>/_explain/<id>`
    Explain(String, String),
    /// `[/<index>]/_analyze`
    Analyze(Option<String>),
    /// `/_data_stream[/<names>]`
    DataStream(Option<String>),
    /// `/_index_template/_simulate_index/<name>`
    SimulateIndex(String),
    /// `/<index>/_disk_usage`
    DiskUsage(String),
}

const GET: &[&str] = &["GET", "HEAD"];
const GET_POST: &[&str] = &["GET", "HEAD", "POST"];
const POST: &[&str] = &["POST"];
const PUT_POST: &[&str] = &["PUT", "POST"];
const ALIAS: &[&str] = &["GET", "HEAD", "PUT", "POST", "DELETE"];
const TEMPLATE: &[&str] = &["GET", "HEAD", "PUT", "POST", "DELETE"];

impl Route {
    /// Resolves `method` and `segments`; `uri` is for the error messages.
    pub fn resolve(method: &Method, segments: &[String], uri: &str) -> Result<Route> {
        let seg: Vec<&str> = segments.iter().map(String::as_str).collect();
        let s = |x: &str| x.to_string();
        let (route, allowed): (Route, &[&str]) = match seg.as_slice() {
            [] => (Route::Info, GET),
            ["_cluster", "health"] => (Route::ClusterHealth(None), GET),
            ["_cluster", "health", index] => (Route::ClusterHealth(Some(s(index))), GET),
            ["_cluster", "settings"] => (Route::ClusterSettings, &["GET", "PUT"][..]),
            ["_cluster", "state", rest @ ..] if rest.len() <= 2 => (Route::ClusterState, GET),
            ["_nodes", rest @ ..] if rest.len() <= 3 => {
                if rest.contains(&"stats") {
                    (Route::NodesStats, GET)
                } else {
                    (Route::Nodes, GET)
                }
            }
            ["_search", "scroll"] => (Route::Scroll(None), &["GET", "POST", "DELETE"][..]),
            ["_search", "scroll", id] => {
                (Route::Scroll(Some(s(id))), &["GET", "POST", "DELETE"][..])
            }
            ["_tasks"] => (Route::Tasks(None), GET),
            ["_tasks", "_cancel"] => (Route::TaskCancel(None), POST),
            ["_tasks", id] => (Route::Tasks(Some(s(id))), GET),
            ["_tasks", id, "_cancel"] => (Route::TaskCancel(Some(s(id))), POST),
            ["_cat", "count", rest @ ..] if rest.len() <= 1 => (
                Route::CatTable(s("count"), rest.first().map(|a| s(a))),
                GET_POST,
            ),
            ["_cat", t @ ("shards" | "segments" | "templates" | "allocation" | "thread_pool")] => {
                (Route::CatTable(s(t), None), GET)
            }
            ["_cat", t @ ("shards" | "segments" | "templates" | "allocation" | "thread_pool"), arg] => {
                (Route::CatTable(s(t), Some(s(arg))), GET)
            }
            ["_index_template", "_simulate_index", name] => (Route::SimulateIndex(s(name)), POST),
            ["_data_stream"] => (Route::DataStream(None), GET),
            ["_data_stream", name] => (
                Route::DataStream(Some(s(name))),
                &["GET", "HEAD", "PUT", "DELETE"][..],
            ),
            ["_validate", "query"] => (Route::ValidateQuery(None), GET_POST),
            [index, "_validate", "query"] => (Route::ValidateQuery(Some(s(index))), GET_POST),
            [index, "_explain", id] => (Route::Explain(s(index), s(id)), GET_POST),
            ["_cat", "indices"] => (Route::CatIndices(None), GET),
            ["_cat", "indices", index] => (Route::CatIndices(Some(s(index))), GET),
            ["_cat", "health"] => (Route::CatHealth, GET),
            ["_cat", "nodes"] => (Route::CatNodes, GET),
            ["_cat", "aliases"] => (Route::CatAliases(None), GET),
            ["_cat", "aliases", name] => (Route::CatAliases(Some(s(name))), GET),
            ["_aliases"] => (Route::Aliases(None), &["GET", "POST"][..]),
            ["_alias"] => (Route::Alias(None, None), GET),
            ["_alias", name] => (Route::Alias(None, Some(s(name))), GET),
            ["_template"] => (Route::Template(None), GET),
            ["_template", name] => (Route::Template(Some(s(name))), TEMPLATE),
            ["_index_template"] => (Route::IndexTemplate(None), GET),
            ["_index_template", name] => (Route::IndexTemplate(Some(s(name))), TEMPLATE),
            ["_component_template"] => (Route::ComponentTemplate(None), GET),
            ["_component_template", name] => (Route::ComponentTemplate(Some(s(name))), TEMPLATE),
            ["_scripts", id] => (Route::StoredScript(s(id), None), TEMPLATE),
            ["_scripts", id, context] => (Route::StoredScript(s(id), Some(s(context))), TEMPLATE),
            ["_cache", "clear"] => (Route::CacheClear(None), POST),
            [index, "_cache", "clear"] => (Route::CacheClear(Some(s(index))), POST),
            [index, "_alias"] => (Route::Alias(Some(s(index)), None), GET),
            [index, "_aliases"] => (Route::Aliases(Some(s(index))), GET),
            [index, "_alias" | "_aliases", name] => {
                (Route::Alias(Some(s(index)), Some(s(name))), ALIAS)
            }
            ["_stats", _metric] => (Route::Stats(None), GET),
            [index, "_stats", _metric] => (Route::Stats(Some(s(index))), GET),
            [alias, "_rollover"] => (Route::Rollover(s(alias), None), POST),
            [alias, "_rollover", new_index] => {
                (Route::Rollover(s(alias), Some(s(new_index))), POST)
            }
            [api] if api.starts_with('_') && *api != "_all" => match api_route(api, None) {
                Some(found) => found,
                None => return Err(no_handler(method, uri)),
            },
            [index] => (
                Route::Index(s(index)),
                &["GET", "HEAD", "PUT", "DELETE"][..],
            ),
            [index, "_doc"] => (Route::DocAutoId(s(index)), POST),
            [index, api] => match api_route(api, Some(s(index))) {
                Some(found) => found,
                None => return Err(no_handler(method, uri)),
            },
            [index, "_doc", id] => (
                Route::Doc(s(index), s(id)),
                &["GET", "HEAD", "PUT", "POST", "DELETE"][..],
            ),
            [index, "_create", id] => (Route::Create(s(index), s(id)), PUT_POST),
            [index, "_source", id] => (Route::Source(s(index), s(id)), GET),
            [index, "_update", id] => (Route::Update(s(index), s(id)), POST),
            _ => return Err(no_handler(method, uri)),
        };
        if allowed.contains(&method.as_str()) {
            Ok(route)
        } else {
            Err(EsError::MethodNotAllowed {
                uri: uri.to_string(),
                method: method.to_string(),
                allowed: allowed.to_vec(),
            })
        }
    }
}

/// `[/<index>]/_<api>` endpoints.
fn api_route(api: &str, index: Option<String>) -> Option<(Route, &'static [&'static str])> {
    Some(match api {
        "_mapping" => (Route::Mapping(index), &["GET", "HEAD", "PUT", "POST"][..]),
        "_settings" => (Route::Settings(index), &["GET", "HEAD", "PUT"][..]),
        "_refresh" => (Route::Refresh(index), GET_POST),
        "_flush" => (Route::Flush(index), GET_POST),
        "_forcemerge" => (Route::ForceMerge(index), POST),
        "_stats" => (Route::Stats(index), GET),
        "_mget" => (Route::Mget(index), GET_POST),
        "_bulk" => (Route::Bulk(index), PUT_POST),
        "_search" => (Route::Search(index), GET_POST),
        "_count" => (Route::Count(index), GET_POST),
        "_msearch" => (Route::Msearch(index), GET_POST),
        "_pit" => (Route::Pit(index), &["POST", "DELETE"][..]),
        "_field_caps" => (Route::FieldCaps(index), GET_POST),
        "_analyze" => (Route::Analyze(index), GET_POST),
        "_reindex" if index.is_none() => (Route::Reindex, POST),
        "_delete_by_query" => (Route::DeleteByQuery(index?), POST),
        "_update_by_query" => (Route::UpdateByQuery(index?), POST),
        "_disk_usage" => (Route::DiskUsage(index?), POST),
        _ => return None,
    })
}

fn no_handler(method: &Method, uri: &str) -> EsError {
    EsError::NoHandler {
        uri: uri.to_string(),
        method: method.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(method: Method, path: &str) -> Result<Route> {
        let segments: Vec<String> = path
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        Route::resolve(&method, &segments, path)
    }

    #[test]
    fn paths_resolve() {
        assert_eq!(route(Method::GET, "/").unwrap(), Route::Info);
        assert_eq!(
            route(Method::PUT, "/logs/_doc/7").unwrap(),
            Route::Doc("logs".into(), "7".into())
        );
        assert_eq!(
            route(Method::POST, "/_all/_search").unwrap(),
            Route::Search(Some("_all".into()))
        );
        assert_eq!(
            route(Method::GET, "/_nodes/_all/http").unwrap(),
            Route::Nodes
        );
        assert_eq!(
            route(Method::GET, "/_nodes/stats").unwrap(),
            Route::NodesStats
        );
        assert_eq!(
            route(Method::HEAD, "/_alias/a").unwrap(),
            Route::Alias(None, Some("a".into()))
        );
        assert_eq!(
            route(Method::PUT, "/i/_aliases/a").unwrap(),
            Route::Alias(Some("i".into()), Some("a".into()))
        );
        assert_eq!(
            route(Method::POST, "/w/_rollover/n-2").unwrap(),
            Route::Rollover("w".into(), Some("n-2".into()))
        );
        assert_eq!(
            route(Method::GET, "/_cluster/state/master_node").unwrap(),
            Route::ClusterState
        );
        assert_eq!(
            route(Method::POST, "/i/_cache/clear").unwrap(),
            Route::CacheClear(Some("i".into()))
        );
        assert_eq!(route(Method::PUT, "/_alias/a").unwrap_err().status(), 405);
        assert_eq!(
            route(Method::GET, "/w/_rollover").unwrap_err().status(),
            405
        );
    }

    #[test]
    fn unknown_paths_and_methods() {
        assert_eq!(route(Method::GET, "/_nope").unwrap_err().status(), 400);
        assert_eq!(route(Method::GET, "/a/b/c/d").unwrap_err().status(), 400);
        assert_eq!(route(Method::GET, "/logs/_frob").unwrap_err().status(), 400);
        let e = route(Method::GET, "/_bulk").unwrap_err();
        assert_eq!(e.status(), 405);
        assert!(e.reason().contains("allowed: [PUT, POST]"));
    }
}
