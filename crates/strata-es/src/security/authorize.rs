//! The table from every route to Elasticsearch's action and the privilege
//! it needs, checked before the handler runs. Cluster actions need a
//! cluster privilege; index actions are checked against the names the
//! request gives after wildcard expansion (`restrict.rs`), and the
//! request's index expression is rewritten to what the caller may see.
//! Names inside bodies (`_bulk`, `_mget`, `_msearch` items) are checked per
//! item by the handlers through the request's [`Grant`](super::grant::Grant);
//! here those requests only need the privilege on some index.
//!
//! A route that does not resolve is left to the server (its 400 or 405
//! comes after authentication, as in Elasticsearch).

use axum::http::Method;
use serde_json::Value;
use strata_search::IndicesOptions;

use super::actions::{CREATE_DOC, DELETE_DOC, GET_ALIASES, INDEX_DOC, SEARCH, UPDATE_DOC};
use super::grant::check_document_write;
use super::restrict::{self, Names, Reach};
use super::role::ClusterDecision;
use super::subject::Authentication;
use crate::error::Result;
use crate::node::Node;
use crate::request::EsRequest;
use crate::route::Route;

/// Checks `req` for `auth`, rewriting its index expression if needed.
pub fn authorize(node: &Node, auth: &Authentication, req: &mut EsRequest) -> Result<()> {
    let Ok(route) = Route::resolve(&req.method, &req.segments, &req.uri) else {
        return Ok(());
    };
    let read = req.method == Method::GET || req.method == Method::HEAD;
    let by_method = |get: &'static str, put: &'static str, delete: &'static str| {
        if read {
            get
        } else if req.method == Method::DELETE {
            delete
        } else {
            put
        }
    };
    let check = Check { node, auth };
    match &route {
        Route::Info => check.cluster("cluster:monitor/main"),
        Route::ClusterHealth(_) | Route::CatHealth => check.cluster("cluster:monitor/health"),
        Route::ClusterSettings => check.cluster(if read {
            "cluster:monitor/settings"
        } else {
            "cluster:admin/settings/update"
        }),
        Route::ClusterState => check.cluster("cluster:monitor/state"),
        Route::Nodes => check.cluster("cluster:monitor/nodes/info"),
        Route::NodesStats | Route::CatNodes => check.cluster("cluster:monitor/nodes/stats"),
        Route::CatAliases(_) => check.cluster("cluster:monitor/state"),
        Route::CatIndices(_) => {
            check.cluster("cluster:monitor/state")?;
            check.restrict(
                req,
                &route,
                "indices:monitor/stats",
                Reach::IndicesAndAliases,
            )
        }
        Route::Template(_) => check.cluster(by_method(
            "indices:admin/template/get",
            "indices:admin/template/put",
            "indices:admin/template/delete",
        )),
        Route::IndexTemplate(_) => check.cluster(by_method(
            "indices:admin/index_template/get",
            "indices:admin/index_template/put",
            "indices:admin/index_template/delete",
        )),
        Route::ComponentTemplate(_) => check.cluster(by_method(
            "cluster:admin/component_template/get",
            "cluster:admin/component_template/put",
            "cluster:admin/component_template/delete",
        )),
        Route::StoredScript(..) => check.cluster(by_method(
            "cluster:admin/script/get",
            "cluster:admin/script/put",
            "cluster:admin/script/delete",
        )),
        Route::Index(name) => match req.method {
            Method::PUT => {
                check.names("indices:admin/create", &[name])?;
                let body = req.json_body().unwrap_or(Value::Null);
                let aliases: Vec<&str> = body["aliases"]
                    .as_object()
                    .map(|m| m.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                check.names("indices:admin/aliases", &aliases)
            }
            Method::DELETE => {
                let wildcard = name
                    .split(',')
                    .any(|p| p.trim() == "_all" || p.contains('*'));
                if wildcard && node.cluster_settings.destructive_requires_name() {
                    // The handler refuses it; expanding first would hide the wildcard.
                    return Ok(());
                }
                check.restrict(req, &route, "indices:admin/delete", Reach::IndicesOnly)
            }
            _ => check.restrict(req, &route, "indices:admin/get", Reach::IndicesAndAliases),
        },
        Route::Mapping(_) => check.restrict(
            req,
            &route,
            if read {
                "indices:admin/mappings/get"
            } else {
                "indices:admin/mapping/put"
            },
            Reach::IndicesAndAliases,
        ),
        Route::Settings(_) => check.restrict(
            req,
            &route,
            if read {
                "indices:monitor/settings/get"
            } else {
                "indices:admin/settings/update"
            },
            Reach::IndicesAndAliases,
        ),
        Route::Refresh(_) => check.restrict(
            req,
            &route,
            "indices:admin/refresh",
            Reach::IndicesAndAliases,
        ),
        Route::Flush(_) => {
            check.restrict(req, &route, "indices:admin/flush", Reach::IndicesAndAliases)
        }
        Route::ForceMerge(_) => check.restrict(
            req,
            &route,
            "indices:admin/forcemerge",
            Reach::IndicesAndAliases,
        ),
        Route::Stats(_) => check.restrict(
            req,
            &route,
            "indices:monitor/stats",
            Reach::IndicesAndAliases,
        ),
        Route::CacheClear(_) => check.restrict(
            req,
            &route,
            "indices:admin/cache/clear",
            Reach::IndicesAndAliases,
        ),
        Route::Search(None) if req.json_body().is_ok_and(|b| b.get("pit").is_some()) => {
            check.any(SEARCH)
        }
        Route::Scroll(_) => check.any(SEARCH),
        Route::Pit(_) if req.method == Method::DELETE => check.any(SEARCH),
        Route::Pit(_) => check.restrict(
            req,
            &route,
            "indices:data/read/open_point_in_time",
            Reach::IndicesAndAliases,
        ),
        Route::Reindex => check.any("indices:data/write/reindex"),
        Route::DeleteByQuery(index) => check.all("indices:data/write/delete/byquery", &[index]),
        Route::UpdateByQuery(index) => check.all("indices:data/write/update/byquery", &[index]),
        Route::Tasks(_) => check.cluster("cluster:monitor/task"),
        Route::TaskCancel(_) => check.cluster("cluster:admin/tasks/cancel"),
        Route::SimulateIndex(_) => check.cluster("indices:admin/index_template/simulate_index"),
        Route::CatTable(..) => check.cluster("cluster:monitor/state"),
        Route::DataStream(_) => check.any(if read {
            "indices:admin/data_stream/get"
        } else {
            "indices:admin/data_stream/create"
        }),
        Route::FieldCaps(_) => check.restrict(
            req,
            &route,
            "indices:data/read/field_caps",
            Reach::IndicesAndAliases,
        ),
        Route::DiskUsage(_) => check.restrict(
            req,
            &route,
            "indices:admin/analyze_disk_usage",
            Reach::IndicesAndAliases,
        ),
        Route::ValidateQuery(_) => check.restrict(
            req,
            &route,
            "indices:admin/validate/query",
            Reach::IndicesAndAliases,
        ),
        Route::Explain(index, _) => check.names("indices:data/read/explain", &[index]),
        Route::Analyze(_) => check.any("indices:admin/analyze"),
        Route::Search(_) | Route::Count(_) => {
            check.restrict(req, &route, SEARCH, Reach::IndicesAndAliases)
        }
        Route::Doc(index, _) => match req.method {
            Method::GET | Method::HEAD => check.names("indices:data/read/get", &[index]),
            Method::DELETE => check.names(DELETE_DOC, &[index]),
            _ => {
                let create = req.param("op_type") == Some("create");
                check.write(if create { CREATE_DOC } else { INDEX_DOC }, index)
            }
        },
        Route::DocAutoId(index) | Route::Create(index, _) => check.write(CREATE_DOC, index),
        Route::Update(index, _) => check.write(UPDATE_DOC, index),
        Route::Source(index, _) => check.names("indices:data/read/get", &[index]),
        Route::Mget(_) => check.any("indices:data/read/mget"),
        Route::Bulk(_) => check.any("indices:data/write/bulk"),
        Route::Msearch(_) => check.any("indices:data/read/msearch"),
        Route::Aliases(_) if req.method == Method::POST => check.alias_actions(req),
        Route::Aliases(_) => check.restrict(req, &route, GET_ALIASES, Reach::IndicesAndAliases),
        Route::Alias(index, name) => {
            if read {
                return check.restrict(req, &route, GET_ALIASES, Reach::IndicesAndAliases);
            }
            let mut named: Vec<&str> = index.iter().map(String::as_str).collect();
            named.extend(name.iter().map(String::as_str));
            check.all("indices:admin/aliases", &named)
        }
        Route::Rollover(alias, _) => check.names("indices:admin/rollover", &[alias]),
    }
}

/// The checks of one request.
struct Check<'a> {
    node: &'a Node,
    auth: &'a Authentication,
}

impl Check<'_> {
    fn cluster(&self, action: &str) -> Result<()> {
        match self.auth.cluster(action) {
            ClusterDecision::Granted => Ok(()),
            _ => Err(self.auth.denied(action, &[])),
        }
    }

    /// Explicit names (no expansion).
    fn names(&self, action: &str, names: &[&str]) -> Result<()> {
        self.auth.check_names(action, names)
    }

    /// A document write to `name`, which creates the index if missing.
    fn write(&self, action: &str, name: &str) -> Result<()> {
        check_document_write(self.auth, self.node, action, name)
    }

    /// The privilege on some index (composite requests whose items are
    /// checked one by one).
    fn any(&self, action: &str) -> Result<()> {
        if self.auth.index_any(action) {
            Ok(())
        } else {
            Err(self.auth.denied(action, &[]))
        }
    }

    fn all(&self, action: &str, expressions: &[&str]) -> Result<()> {
        let indices = self.node.catalog.names();
        let aliases = self.node.catalog.aliases();
        let names = Names {
            indices: &indices,
            aliases: &aliases,
        };
        restrict::require_all(self.auth, action, expressions, &names)
    }

    /// The route's index expression restricted, and rewritten in the path.
    fn restrict(
        &self,
        req: &mut EsRequest,
        route: &Route,
        action: &str,
        reach: Reach,
    ) -> Result<()> {
        let Some((slot, present)) = expression_slot(route) else {
            return Ok(());
        };
        let expression = present.then(|| req.segments[slot].clone());
        let indices = self.node.catalog.names();
        let aliases = self.node.catalog.aliases();
        let names = Names {
            indices: &indices,
            aliases: &aliases,
        };
        let options = indices_options(req);
        if let Some(rewritten) = restrict::restrict(
            self.auth,
            action,
            expression.as_deref(),
            options,
            &names,
            reach,
        )? {
            if present {
                req.segments[slot] = rewritten;
            } else {
                req.segments.insert(slot, rewritten);
            }
        }
        Ok(())
    }

    /// `POST /_aliases`: every index and alias an action names.
    fn alias_actions(&self, req: &EsRequest) -> Result<()> {
        let body = req.json_body().unwrap_or(Value::Null);
        let Some(actions) = body["actions"].as_array() else {
            return Ok(());
        };
        for action in actions {
            let Some((kind, spec)) = action.as_object().and_then(|o| o.iter().next()) else {
                continue;
            };
            let list = |one: &str, many: &str| -> Vec<String> {
                let mut out: Vec<String> =
                    spec[one].as_str().map(str::to_string).into_iter().collect();
                if let Some(a) = spec[many].as_array() {
                    out.extend(a.iter().filter_map(Value::as_str).map(str::to_string));
                }
                out
            };
            let indices = list("index", "indices");
            let index_refs: Vec<&str> = indices.iter().map(String::as_str).collect();
            if kind == "remove_index" {
                self.all("indices:admin/delete", &index_refs)?;
                continue;
            }
            let aliases = list("alias", "aliases");
            let mut named = index_refs;
            named.extend(aliases.iter().map(String::as_str));
            self.all("indices:admin/aliases", &named)?;
        }
        Ok(())
    }
}

/// Where a route's index expression sits in the path, and whether the
/// path has one (without, the route covers every index and the
/// expression is inserted there).
fn expression_slot(route: &Route) -> Option<(usize, bool)> {
    match route {
        Route::Index(_) | Route::DiskUsage(_) => Some((0, true)),
        Route::Mapping(e)
        | Route::Settings(e)
        | Route::Refresh(e)
        | Route::Flush(e)
        | Route::ForceMerge(e)
        | Route::Stats(e)
        | Route::Search(e)
        | Route::Count(e)
        | Route::CacheClear(e)
        | Route::Aliases(e)
        | Route::Alias(e, _)
        | Route::Pit(e)
        | Route::FieldCaps(e)
        | Route::ValidateQuery(e) => Some((0, e.is_some())),
        Route::CatIndices(e) => Some((2, e.is_some())),
        _ => None,
    }
}

/// `ignore_unavailable`, `allow_no_indices` and `expand_wildcards` from
/// the query (malformed values are the handler's to refuse; the defaults
/// apply here meanwhile).
fn indices_options(req: &EsRequest) -> IndicesOptions {
    let mut options = IndicesOptions {
        ignore_unavailable: req.flag("ignore_unavailable", false).unwrap_or(false),
        allow_no_indices: req.flag("allow_no_indices", true).unwrap_or(true),
        ..IndicesOptions::default()
    };
    if let Some(v) = req.param("expand_wildcards") {
        if options.set_expand_wildcards(v).is_err() {
            options = IndicesOptions {
                ignore_unavailable: options.ignore_unavailable,
                allow_no_indices: options.allow_no_indices,
                ..IndicesOptions::default()
            };
        }
    }
    options
}
