//! Who a request runs as: an [`Authentication`] (a file-realm user with
//! the permission of their roles, or an API key limited by its owner's
//! roles at creation), what it may do, and Elasticsearch's 403 text when
//! it may not.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::privilege::named;
use super::privilege::names::is_restricted;
use super::role::{ClusterDecision, Role};
use crate::error::EsError;

/// The union of some roles' privileges.
#[derive(Debug, Clone, Default)]
pub struct Permission {
    roles: Vec<Arc<Role>>,
}

impl Permission {
    /// The permission of `roles`.
    pub fn new(roles: Vec<Arc<Role>>) -> Permission {
        Permission { roles }
    }

    /// What the roles grant for cluster `action`.
    pub fn cluster(&self, action: &str) -> ClusterDecision {
        self.roles
            .iter()
            .map(|r| r.cluster(action))
            .max()
            .unwrap_or(ClusterDecision::Denied)
    }

    /// Whether some role grants `action` on `name`.
    pub fn index(&self, action: &str, name: &str) -> bool {
        self.roles.iter().any(|r| r.index(action, name))
    }

    /// Whether some role grants `action` on some name.
    pub fn index_any(&self, action: &str) -> bool {
        self.roles.iter().any(|r| r.index_any(action))
    }

    /// The roles' descriptors by name (what an API key stores).
    pub fn descriptors(&self) -> Map<String, Value> {
        self.roles
            .iter()
            .map(|r| (r.name.clone(), r.descriptor.clone()))
            .collect()
    }

    /// The roles' names.
    pub fn names(&self) -> Vec<String> {
        self.roles.iter().map(|r| r.name.clone()).collect()
    }
}

/// An authenticated caller.
#[derive(Debug, Clone)]
pub enum Authentication {
    /// A user of the file realm.
    User {
        /// The user name.
        username: String,
        /// Roles assigned in `users_roles`.
        assigned: Vec<String>,
        /// What those roles that exist grant.
        permission: Permission,
    },
    /// An API key.
    ApiKey {
        /// The key's id.
        id: String,
        /// The key's name.
        name: String,
        /// The user who created it.
        owner: String,
        /// The key's own role descriptors (`None`: it has its owner's
        /// permission at creation, `limited_by`, alone).
        key: Option<Permission>,
        /// The owner's permission when the key was created.
        limited_by: Permission,
        /// The key's metadata.
        metadata: Value,
    },
}

impl Authentication {
    /// The user name (an API key's owner).
    pub fn username(&self) -> &str {
        match self {
            Authentication::User { username, .. } => username,
            Authentication::ApiKey { owner, .. } => owner,
        }
    }

    /// The API key id, when an API key authenticated.
    pub fn api_key_id(&self) -> Option<&str> {
        match self {
            Authentication::ApiKey { id, .. } => Some(id),
            Authentication::User { .. } => None,
        }
    }

    /// What the caller may do with cluster `action`.
    pub fn cluster(&self, action: &str) -> ClusterDecision {
        match self {
            Authentication::User { permission, .. } => permission.cluster(action),
            Authentication::ApiKey {
                key, limited_by, ..
            } => {
                let own = limited_by.cluster(action);
                key.as_ref().map_or(own, |k| k.cluster(action).min(own))
            }
        }
    }

    /// Whether the caller may run index `action` on `name`.
    pub fn index(&self, action: &str, name: &str) -> bool {
        match self {
            Authentication::User { permission, .. } => permission.index(action, name),
            Authentication::ApiKey {
                key, limited_by, ..
            } => {
                limited_by.index(action, name) && key.as_ref().is_none_or(|k| k.index(action, name))
            }
        }
    }

    /// Whether the caller may run index `action` on some name.
    pub fn index_any(&self, action: &str) -> bool {
        match self {
            Authentication::User { permission, .. } => permission.index_any(action),
            Authentication::ApiKey {
                key, limited_by, ..
            } => limited_by.index_any(action) && key.as_ref().is_none_or(|k| k.index_any(action)),
        }
    }

    /// `Ok` when the caller may run index `action` on every one of
    /// `names` (as written, no expansion); otherwise the 403 naming the
    /// others.
    pub fn check_names(&self, action: &str, names: &[&str]) -> Result<(), EsError> {
        let denied: Vec<String> = names
            .iter()
            .filter(|n| !self.index(action, n))
            .map(|n| n.to_string())
            .collect();
        if denied.is_empty() {
            Ok(())
        } else {
            Err(self.denied(action, &denied))
        }
    }

    /// Elasticsearch's 403 for `action` (on `indices`, for index actions).
    pub fn denied(&self, action: &str, indices: &[String]) -> EsError {
        let mut message = format!("action [{action}] is unauthorized for {}", self.describe());
        let (restricted, plain): (Vec<&String>, Vec<&String>) =
            indices.iter().partition(|n| is_restricted(n));
        let join = |v: &[&String]| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(",");
        if !plain.is_empty() {
            message.push_str(&format!(" on indices [{}]", join(&plain)));
        }
        if !restricted.is_empty() {
            let sep = if plain.is_empty() { "" } else { "," };
            message.push_str(&format!(
                "{sep} on restricted indices [{}]",
                join(&restricted)
            ));
        }
        let (kind, granting) = if named::is_cluster_action(action) {
            ("cluster", named::cluster_granting(action))
        } else {
            ("index", named::index_granting(action))
        };
        if !granting.is_empty() {
            message.push_str(&format!(
                ", this action is granted by the {kind} privileges [{}]",
                granting.join(",")
            ));
        }
        EsError::Security {
            status: 403,
            reason: message,
            additional: None,
        }
    }

    /// "user [u] with effective roles [..]" or "API key id [i] of user [u]".
    fn describe(&self) -> String {
        match self {
            Authentication::User {
                username,
                assigned,
                permission,
            } => {
                let mut effective = permission.names();
                effective.sort();
                let mut text = format!(
                    "user [{username}] with effective roles [{}]",
                    effective.join(",")
                );
                let mut missing: Vec<&String> =
                    assigned.iter().filter(|r| !effective.contains(r)).collect();
                missing.sort();
                missing.dedup();
                if !missing.is_empty() {
                    let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
                    text.push_str(&format!(
                        " (assigned roles [{}] were not found)",
                        names.join(",")
                    ));
                }
                text
            }
            Authentication::ApiKey { id, owner, .. } => {
                format!("API key id [{id}] of user [{owner}]")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::security::role::{builtin, VIEWER};
    use serde_json::json;

    fn user(roles: Vec<Arc<Role>>, assigned: &[&str]) -> Authentication {
        Authentication::User {
            username: "ann".into(),
            assigned: assigned.iter().map(|s| s.to_string()).collect(),
            permission: Permission::new(roles),
        }
    }

    #[test]
    fn denial_messages_match_elasticsearch() {
        let viewer = user(vec![builtin(VIEWER).unwrap()], &["viewer", "ghost"]);
        let e = viewer.denied("cluster:admin/settings/update", &[]);
        assert_eq!(e.status(), 403);
        assert_eq!(
            e.reason(),
            "action [cluster:admin/settings/update] is unauthorized for user [ann] with effective roles [viewer] (assigned roles [ghost] were not found), this action is granted by the cluster privileges [manage,all]"
        );
        let e = viewer.denied("indices:admin/delete", &["logs".into(), "b".into()]);
        assert_eq!(
            e.reason(),
            "action [indices:admin/delete] is unauthorized for user [ann] with effective roles [viewer] (assigned roles [ghost] were not found) on indices [logs,b], this action is granted by the index privileges [delete_index,manage,all]"
        );
    }

    #[test]
    fn api_keys_are_limited_by_their_owner() {
        let owner = Permission::new(vec![Arc::new(
            Role::parse("r", &json!({"cluster": ["manage_own_api_key"], "indices": [{"names": ["logs-*"], "privileges": ["read", "write"]}]})).unwrap(),
        )]);
        let key = Permission::new(vec![Arc::new(
            Role::parse(
                "k",
                &json!({"cluster": ["all"], "indices": [{"names": ["*"], "privileges": ["read"]}]}),
            )
            .unwrap(),
        )]);
        let auth = Authentication::ApiKey {
            id: "id1".into(),
            name: "k".into(),
            owner: "ann".into(),
            key: Some(key),
            limited_by: owner.clone(),
            metadata: json!({}),
        };
        assert!(auth.index("indices:data/read/search", "logs-a"));
        assert!(!auth.index("indices:data/read/search", "other"));
        assert!(!auth.index("indices:data/write/update", "logs-a"));
        assert_eq!(
            auth.cluster("cluster:admin/xpack/security/api_key/get"),
            ClusterDecision::OwnApiKeys
        );
        assert_eq!(
            auth.cluster("cluster:admin/settings/update"),
            ClusterDecision::Denied
        );
        assert!(auth
            .denied("indices:data/read/search", &["other".into()])
            .reason()
            .starts_with("action [indices:data/read/search] is unauthorized for API key id [id1] of user [ann] on indices [other]"));
        let snapshot = Authentication::ApiKey {
            id: "id2".into(),
            name: "k".into(),
            owner: "ann".into(),
            key: None,
            limited_by: owner,
            metadata: json!({}),
        };
        assert!(snapshot.index("indices:data/write/update", "logs-a"));
    }
}
