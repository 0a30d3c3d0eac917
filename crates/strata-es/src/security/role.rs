//! Roles: Elasticsearch role descriptors (`roles.yml`, API keys'
//! `role_descriptors`) parsed and compiled into [`Role`]s, and the
//! built-in roles.
//!
//! A descriptor has `cluster` privileges and `indices` (or `index`)
//! entries of `names`, `privileges` and `allow_restricted_indices`. A
//! privilege is a named one or an action pattern (`indices:data/read/*`).
//! What this server cannot enforce is refused rather than ignored:
//! document and field level security (`query`, `field_security`),
//! `run_as`, and remote indices or clusters. `applications` (Kibana's
//! privileges) and `metadata` are kept: they grant nothing here.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::privilege::named::{self, NamedPrivilege};
use super::privilege::names::{is_restricted, NamePattern};

/// Built-in role names.
pub const SUPERUSER: &str = "superuser";
/// The built-in read-only role.
pub const VIEWER: &str = "viewer";
/// The built-in read-write role.
pub const EDITOR: &str = "editor";

/// What a permission says about a cluster action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClusterDecision {
    /// Not granted.
    Denied,
    /// Granted on the caller's own API keys only (`manage_own_api_key`).
    OwnApiKeys,
    /// Granted.
    Granted,
}

/// A granted privilege: a named one or an action pattern.
#[derive(Debug, Clone)]
enum Grant {
    Named(&'static NamedPrivilege),
    Action(String),
}

impl Grant {
    fn grants(&self, action: &str) -> bool {
        match self {
            Grant::Named(p) => p.grants(action),
            Grant::Action(pattern) => super::privilege::glob::matches(pattern, action),
        }
    }

    fn decision(&self, action: &str) -> ClusterDecision {
        match self {
            Grant::Named(p) if p.grants(action) && p.own_api_keys_only => {
                ClusterDecision::OwnApiKeys
            }
            g if g.grants(action) => ClusterDecision::Granted,
            _ => ClusterDecision::Denied,
        }
    }
}

/// One `indices` entry, compiled.
#[derive(Debug, Clone)]
struct IndexGroup {
    names: Vec<NamePattern>,
    privileges: Vec<Grant>,
    allow_restricted: bool,
}

impl IndexGroup {
    fn covers(&self, name: &str) -> bool {
        (self.allow_restricted || !is_restricted(name))
            && self.names.iter().any(|p| p.matches(name))
    }
}

/// A compiled role.
#[derive(Debug, Clone)]
pub struct Role {
    /// The role's name.
    pub name: String,
    cluster: Vec<Grant>,
    indices: Vec<IndexGroup>,
    /// The descriptor in Elasticsearch's JSON form (API keys store it).
    pub descriptor: Value,
}

impl Role {
    /// Parses and compiles the descriptor `body` of role `name`. The
    /// error says what is wrong, for the operator.
    pub fn parse(name: &str, body: &Value) -> Result<Role, String> {
        let obj = body
            .as_object()
            .ok_or_else(|| format!("role [{name}]: expected an object"))?;
        let mut cluster = Vec::new();
        let mut indices = Vec::new();
        let mut descriptor = Map::new();
        for (key, value) in obj {
            match key.as_str() {
                "cluster" => {
                    for p in strings(name, key, value)? {
                        cluster.push(cluster_grant(&p)?);
                    }
                    descriptor.insert("cluster".into(), value.clone());
                }
                "indices" | "index" => {
                    let list = value
                        .as_array()
                        .ok_or_else(|| format!("role [{name}]: [{key}] must be an array"))?;
                    let mut written = Vec::new();
                    for entry in list {
                        let (group, json) = index_group(name, entry)?;
                        indices.push(group);
                        written.push(json);
                    }
                    descriptor.insert("indices".into(), Value::Array(written));
                }
                "run_as" | "remote_indices" | "remote_cluster" | "global" => {
                    if !is_empty(value) {
                        return Err(format!(
                            "role [{name}]: [{key}] is not supported by this server"
                        ));
                    }
                }
                "applications" | "metadata" | "transient_metadata" | "description" => {
                    descriptor.insert(key.clone(), value.clone());
                }
                other => return Err(format!("role [{name}]: unknown field [{other}]")),
            }
        }
        descriptor.entry("cluster").or_insert_with(|| json!([]));
        descriptor.entry("indices").or_insert_with(|| json!([]));
        Ok(Role {
            name: name.to_string(),
            cluster,
            indices,
            descriptor: Value::Object(descriptor),
        })
    }

    /// Whether this role grants cluster `action`.
    pub fn cluster(&self, action: &str) -> ClusterDecision {
        self.cluster
            .iter()
            .map(|g| g.decision(action))
            .max()
            .unwrap_or(ClusterDecision::Denied)
    }

    /// Whether this role grants index `action` on the index or alias `name`.
    pub fn index(&self, action: &str, name: &str) -> bool {
        self.indices
            .iter()
            .any(|g| g.covers(name) && g.privileges.iter().any(|p| p.grants(action)))
    }

    /// Whether this role grants index `action` on some name.
    pub fn index_any(&self, action: &str) -> bool {
        self.indices
            .iter()
            .any(|g| g.privileges.iter().any(|p| p.grants(action)))
    }

    /// Whether the role grants anything at all.
    pub fn is_empty(&self) -> bool {
        self.cluster.is_empty() && self.indices.iter().all(|g| g.privileges.is_empty())
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        _ => false,
    }
}

/// A string or an array of strings.
fn strings(role: &str, key: &str, value: &Value) -> Result<Vec<String>, String> {
    match value {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(a) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("role [{role}]: [{key}] must hold strings"))
            })
            .collect(),
        Value::Null => Ok(Vec::new()),
        _ => Err(format!(
            "role [{role}]: [{key}] must be a string or an array of strings"
        )),
    }
}

fn cluster_grant(privilege: &str) -> Result<Grant, String> {
    let p = privilege.to_ascii_lowercase();
    if named::is_cluster_action(&p) {
        return Ok(Grant::Action(format!("{p}*")));
    }
    named::cluster(&p).map(Grant::Named).ok_or_else(|| {
        let names: Vec<&str> = named::CLUSTER.iter().map(|p| p.name).collect();
        format!(
            "unknown cluster privilege [{p}]. a privilege must be either one of the predefined cluster privilege names [{}] or a pattern over one of the available cluster actions",
            names.join(",")
        )
    })
}

fn index_grant(privilege: &str) -> Result<Grant, String> {
    let p = privilege.to_ascii_lowercase();
    if named::is_index_action(&p) {
        return Ok(Grant::Action(format!("{p}*")));
    }
    named::index(&p).map(Grant::Named).ok_or_else(|| {
        let names: Vec<&str> = named::INDEX.iter().map(|p| p.name).collect();
        format!(
            "unknown index privilege [{p}]. a privilege must be either one of the predefined fixed indices privileges [{}] or a pattern over one of the available index actions",
            names.join(",")
        )
    })
}

fn index_group(role: &str, entry: &Value) -> Result<(IndexGroup, Value), String> {
    let obj = entry
        .as_object()
        .ok_or_else(|| format!("role [{role}]: an [indices] entry must be an object"))?;
    let mut names = Vec::new();
    let mut privileges = Vec::new();
    let mut allow_restricted = false;
    for (key, value) in obj {
        match key.as_str() {
            "names" => {
                for n in strings(role, key, value)? {
                    names.push(NamePattern::parse(&n).map_err(|e| format!("role [{role}]: {e}"))?);
                }
            }
            "privileges" => {
                for p in strings(role, key, value)? {
                    privileges.push(index_grant(&p)?);
                }
            }
            "allow_restricted_indices" => {
                allow_restricted = value.as_bool().ok_or_else(|| {
                    format!("role [{role}]: [allow_restricted_indices] must be a boolean")
                })?
            }
            "query" | "field_security" => {
                return Err(format!(
                    "role [{role}]: [{key}] (document and field level security) is not supported by this server"
                ))
            }
            other => {
                return Err(format!(
                    "role [{role}]: unknown field [{other}] in an [indices] entry"
                ))
            }
        }
    }
    if names.is_empty() {
        return Err(format!("role [{role}]: an [indices] entry needs [names]"));
    }
    if privileges.is_empty() {
        return Err(format!(
            "role [{role}]: an [indices] entry needs [privileges]"
        ));
    }
    let written = json!({
        "names": names.iter().map(NamePattern::as_written).collect::<Vec<_>>(),
        "privileges": obj.get("privileges").cloned().unwrap_or(Value::Null),
        "allow_restricted_indices": allow_restricted,
    });
    Ok((
        IndexGroup {
            names,
            privileges,
            allow_restricted,
        },
        written,
    ))
}

/// The built-in role called `name`.
pub fn builtin(name: &str) -> Option<Arc<Role>> {
    BUILTIN.iter().find(|r| r.name == name).cloned()
}

/// Whether `name` is a built-in role (a `roles.yml` entry may not
/// redefine it).
pub fn is_builtin(name: &str) -> bool {
    BUILTIN.iter().any(|r| r.name == name)
}

static BUILTIN: std::sync::LazyLock<Vec<Arc<Role>>> = std::sync::LazyLock::new(|| {
    // Not dot-prefixed: Elasticsearch's viewer and editor leave system
    // (dot) indices alone.
    let user_indices = "/[^.].*/";
    let defs = [
        (
            SUPERUSER,
            json!({
                "cluster": ["all"],
                "indices": [
                    {"names": ["*"], "privileges": ["all"], "allow_restricted_indices": false},
                    {"names": ["*"], "privileges": ["monitor", "read", "view_index_metadata", "read_cross_cluster"], "allow_restricted_indices": true}
                ],
                "metadata": {"_reserved": true}
            }),
        ),
        (
            VIEWER,
            json!({
                "cluster": ["monitor"],
                "indices": [{"names": [user_indices], "privileges": ["read", "view_index_metadata", "monitor"]}],
                "metadata": {"_reserved": true}
            }),
        ),
        (
            EDITOR,
            json!({
                "cluster": ["monitor"],
                "indices": [{"names": [user_indices], "privileges": ["read", "view_index_metadata", "monitor", "write", "maintenance"]}],
                "metadata": {"_reserved": true}
            }),
        ),
    ];
    defs.into_iter()
        .map(|(name, body)| {
            // The definitions above are fixed and valid (a unit test parses them).
            Arc::new(Role::parse(name, &body).unwrap_or_else(|e| panic!("built-in role: {e}")))
        })
        .collect()
});

#[cfg(test)]
#[path = "role_tests.rs"]
mod tests;
