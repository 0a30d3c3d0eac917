//! Elasticsearch's named privileges as sets of action patterns, and the
//! order in which error messages list the privileges that would grant an
//! action (least privileged first, as Elasticsearch sorts them).
//!
//! A privilege is a union of `include` patterns minus `exclude` patterns
//! over action names (`cluster:monitor/*`, `indices:data/read/*`). Every
//! pattern in the tables is a literal or a literal followed by one `*`,
//! which is what makes [`subset`] exact enough to order them.

use std::sync::LazyLock;

use super::glob;

/// One named privilege.
#[derive(Debug)]
pub struct NamedPrivilege {
    /// Its name in role descriptors.
    pub name: &'static str,
    include: &'static [&'static str],
    exclude: &'static [&'static str],
    /// `manage_own_api_key`: the API key actions, on the caller's own keys only.
    pub own_api_keys_only: bool,
}

impl NamedPrivilege {
    const fn new(name: &'static str, include: &'static [&'static str]) -> NamedPrivilege {
        NamedPrivilege {
            name,
            include,
            exclude: &[],
            own_api_keys_only: false,
        }
    }

    /// Whether this privilege grants `action`.
    pub fn grants(&self, action: &str) -> bool {
        self.include.iter().any(|p| glob::matches(p, action))
            && !self.exclude.iter().any(|p| glob::matches(p, action))
    }
}

/// The cluster-level actions (`cluster:*` and the template actions).
const ALL_CLUSTER: &[&str] = &[
    "cluster:*",
    "indices:admin/template/*",
    "indices:admin/index_template/*",
];
const ALL_SECURITY: &[&str] = &["cluster:admin/xpack/security/*"];
const API_KEYS: &[&str] = &["cluster:admin/xpack/security/api_key/*"];

/// Cluster privileges: Elasticsearch 8's, including those whose actions
/// this server does not have, so roles written for Elasticsearch load.
pub static CLUSTER: &[NamedPrivilege] = &[
    NamedPrivilege::new("none", &[]),
    NamedPrivilege::new("all", ALL_CLUSTER),
    NamedPrivilege::new(
        "monitor",
        &[
            "cluster:monitor/*",
            "indices:admin/template/get",
            "indices:admin/index_template/get",
            "cluster:admin/component_template/get",
        ],
    ),
    NamedPrivilege {
        name: "manage",
        include: ALL_CLUSTER,
        exclude: ALL_SECURITY,
        own_api_keys_only: false,
    },
    NamedPrivilege::new(
        "manage_security",
        &[
            "cluster:admin/xpack/security/*",
            "cluster:admin/xpack/security/delegate_pki",
        ],
    ),
    NamedPrivilege::new(
        "read_security",
        &[
            "cluster:admin/xpack/security/api_key/get",
            "cluster:admin/xpack/security/api_key/query",
            "cluster:admin/xpack/security/privilege/builtin/get",
            "cluster:admin/xpack/security/privilege/get",
            "cluster:admin/xpack/security/profile/get",
            "cluster:admin/xpack/security/role/get",
            "cluster:admin/xpack/security/role_mapping/get",
            "cluster:admin/xpack/security/service_account/get",
            "cluster:admin/xpack/security/user/get",
            "cluster:admin/xpack/security/user/has_privileges",
            "cluster:admin/xpack/security/user/list_privileges",
        ],
    ),
    NamedPrivilege::new("manage_api_key", API_KEYS),
    NamedPrivilege {
        name: "manage_own_api_key",
        include: API_KEYS,
        exclude: &[],
        own_api_keys_only: true,
    },
    NamedPrivilege::new(
        "grant_api_key",
        &["cluster:admin/xpack/security/api_key/grant*"],
    ),
    NamedPrivilege::new("manage_token", &["cluster:admin/xpack/security/token/*"]),
    NamedPrivilege::new(
        "manage_service_account",
        &["cluster:admin/xpack/security/service_account/*"],
    ),
    NamedPrivilege::new(
        "manage_user_profile",
        &["cluster:admin/xpack/security/profile/*"],
    ),
    NamedPrivilege::new("manage_saml", &["cluster:admin/xpack/security/saml/*"]),
    NamedPrivilege::new("manage_oidc", &["cluster:admin/xpack/security/oidc/*"]),
    NamedPrivilege::new(
        "manage_index_templates",
        &[
            "indices:admin/template/*",
            "indices:admin/index_template/*",
            "cluster:admin/component_template/*",
        ],
    ),
    NamedPrivilege::new(
        "manage_ingest_pipelines",
        &["cluster:admin/ingest/pipeline/*"],
    ),
    NamedPrivilege::new("manage_pipeline", &["cluster:admin/ingest/pipeline/*"]),
    NamedPrivilege::new(
        "read_pipeline",
        &[
            "cluster:admin/ingest/pipeline/get",
            "cluster:admin/ingest/pipeline/simulate",
        ],
    ),
    NamedPrivilege::new(
        "transport_client",
        &["cluster:monitor/nodes/liveness", "cluster:monitor/state"],
    ),
    NamedPrivilege::new("manage_ilm", &["cluster:admin/ilm/*"]),
    NamedPrivilege::new(
        "read_ilm",
        &[
            "cluster:admin/ilm/get",
            "cluster:admin/ilm/operation_mode/get",
        ],
    ),
    NamedPrivilege::new(
        "manage_slm",
        &[
            "cluster:admin/slm/*",
            "cluster:admin/ilm/start",
            "cluster:admin/ilm/stop",
            "cluster:admin/ilm/operation_mode/get",
        ],
    ),
    NamedPrivilege::new(
        "read_slm",
        &[
            "cluster:admin/slm/get",
            "cluster:admin/ilm/operation_mode/get",
        ],
    ),
    NamedPrivilege::new(
        "monitor_snapshot",
        &[
            "cluster:admin/snapshot/status*",
            "cluster:admin/snapshot/get",
            "cluster:admin/repository/get",
        ],
    ),
    NamedPrivilege::new(
        "create_snapshot",
        &[
            "cluster:admin/snapshot/create",
            "cluster:admin/snapshot/status*",
            "cluster:admin/snapshot/get",
            "cluster:admin/repository/get",
        ],
    ),
    NamedPrivilege::new(
        "manage_ml",
        &["cluster:admin/xpack/ml/*", "cluster:monitor/xpack/ml/*"],
    ),
    NamedPrivilege::new("monitor_ml", &["cluster:monitor/xpack/ml/*"]),
    NamedPrivilege::new(
        "manage_transform",
        &[
            "cluster:admin/data_frame/*",
            "cluster:monitor/data_frame/*",
            "cluster:monitor/transform/*",
            "cluster:admin/transform/*",
        ],
    ),
    NamedPrivilege::new(
        "monitor_transform",
        &[
            "cluster:monitor/data_frame/*",
            "cluster:monitor/transform/*",
        ],
    ),
    NamedPrivilege::new(
        "manage_watcher",
        &[
            "cluster:admin/xpack/watcher/*",
            "cluster:monitor/xpack/watcher/*",
        ],
    ),
    NamedPrivilege::new("monitor_watcher", &["cluster:monitor/xpack/watcher/*"]),
    NamedPrivilege::new(
        "manage_rollup",
        &[
            "cluster:admin/xpack/rollup/*",
            "cluster:monitor/xpack/rollup/*",
        ],
    ),
    NamedPrivilege::new("monitor_rollup", &["cluster:monitor/xpack/rollup/*"]),
    NamedPrivilege::new(
        "manage_ccr",
        &[
            "cluster:admin/xpack/ccr/*",
            "cluster:monitor/state",
            "cluster:admin/xpack/security/user/has_privileges",
        ],
    ),
    NamedPrivilege::new(
        "read_ccr",
        &[
            "cluster:monitor/state",
            "cluster:admin/xpack/security/user/has_privileges",
        ],
    ),
    NamedPrivilege::new("manage_enrich", &["cluster:admin/xpack/enrich/*"]),
    NamedPrivilege::new("manage_autoscaling", &["cluster:admin/autoscaling/*"]),
    NamedPrivilege::new(
        "manage_logstash_pipelines",
        &["cluster:admin/logstash/pipeline/*"],
    ),
    NamedPrivilege::new("cancel_task", &["cluster:admin/tasks/cancel*"]),
    NamedPrivilege::new(
        "monitor_text_structure",
        &["cluster:monitor/text_structure/*"],
    ),
];

/// Index privileges (Elasticsearch 8's).
pub static INDEX: &[NamedPrivilege] = &[
    NamedPrivilege::new("none", &[]),
    NamedPrivilege::new("all", &["indices:*", "internal:transport/proxy/indices:*"]),
    NamedPrivilege::new("read", &["indices:data/read/*"]),
    NamedPrivilege::new(
        "read_cross_cluster",
        &[
            "internal:transport/proxy/indices:data/read/*",
            "indices:admin/shards/search_shards",
        ],
    ),
    NamedPrivilege::new(
        "create",
        &["indices:data/write/index*", "indices:data/write/bulk*"],
    ),
    NamedPrivilege::new(
        "create_doc",
        &[
            "indices:data/write/index",
            "indices:data/write/index[*",
            "indices:data/write/index:op_type/create",
            "indices:data/write/bulk*",
        ],
    ),
    NamedPrivilege::new(
        "index",
        &[
            "indices:data/write/index*",
            "indices:data/write/bulk*",
            "indices:data/write/update*",
        ],
    ),
    NamedPrivilege::new(
        "delete",
        &["indices:data/write/delete*", "indices:data/write/bulk*"],
    ),
    NamedPrivilege::new(
        "write",
        &["indices:data/write/*", "indices:admin/mapping/auto_put"],
    ),
    NamedPrivilege::new("monitor", &["indices:monitor/*"]),
    NamedPrivilege::new(
        "manage",
        &[
            "indices:monitor/*",
            "indices:admin/*",
            "indices:data/read/field_caps*",
            "indices:admin/xpack/rollup/get/index/caps*",
        ],
    ),
    NamedPrivilege::new(
        "create_index",
        &[
            "indices:admin/create",
            "indices:admin/auto_create",
            "indices:admin/data_stream/create",
        ],
    ),
    NamedPrivilege::new(
        "delete_index",
        &["indices:admin/delete", "indices:admin/data_stream/delete"],
    ),
    NamedPrivilege::new(
        "view_index_metadata",
        &[
            "indices:admin/aliases/get",
            "indices:admin/get",
            "indices:admin/mappings/fields/get*",
            "indices:admin/mappings/get",
            "indices:admin/shards/search_shards",
            "indices:admin/validate/query*",
            "indices:monitor/settings/get",
            "indices:admin/ilm/explain",
            "indices:admin/data_stream/get",
            "indices:admin/resolve/index",
            "indices:data/read/field_caps*",
            "indices:admin/xpack/rollup/get/index/caps*",
            "indices:data/read/xpack/transform/checkpoint*",
        ],
    ),
    NamedPrivilege::new(
        "manage_follow_index",
        &[
            "indices:admin/xpack/ccr/put_follow",
            "indices:admin/xpack/ccr/unfollow",
            "indices:admin/close*",
            "indices:admin/data_stream/promote",
            "indices:admin/rollover",
        ],
    ),
    NamedPrivilege::new(
        "manage_leader_index",
        &["indices:admin/xpack/ccr/forget_follower*"],
    ),
    NamedPrivilege::new("manage_ilm", &["indices:admin/ilm/*"]),
    NamedPrivilege::new(
        "maintenance",
        &[
            "indices:admin/refresh*",
            "indices:admin/flush*",
            "indices:admin/synced_flush",
            "indices:admin/forcemerge*",
        ],
    ),
    NamedPrivilege::new(
        "auto_configure",
        &[
            "indices:admin/mapping/auto_put",
            "indices:admin/auto_create",
        ],
    ),
];

/// The cluster privilege called `name`.
pub fn cluster(name: &str) -> Option<&'static NamedPrivilege> {
    CLUSTER.iter().find(|p| p.name == name)
}

/// The index privilege called `name`.
pub fn index(name: &str) -> Option<&'static NamedPrivilege> {
    INDEX.iter().find(|p| p.name == name)
}

/// Whether a raw privilege string is a cluster action pattern (a role
/// may name actions directly: `cluster:monitor/main`).
pub fn is_cluster_action(name: &str) -> bool {
    ALL_CLUSTER.iter().any(|p| glob::matches(p, name))
}

/// Whether a raw privilege string is an index action pattern.
pub fn is_index_action(name: &str) -> bool {
    glob::matches("indices:*", name)
}

/// The cluster privileges that grant `action`, least privileged first.
pub fn cluster_granting(action: &str) -> Vec<&'static str> {
    CLUSTER_ORDER
        .iter()
        .map(|&i| &CLUSTER[i])
        .filter(|p| p.grants(action))
        .map(|p| p.name)
        .collect()
}

/// The index privileges that grant `action`, least privileged first.
pub fn index_granting(action: &str) -> Vec<&'static str> {
    INDEX_ORDER
        .iter()
        .map(|&i| &INDEX[i])
        .filter(|p| p.grants(action))
        .map(|p| p.name)
        .collect()
}

/// Cluster privileges by how many others each implies (fewer first),
/// then by name: Elasticsearch's order.
static CLUSTER_ORDER: LazyLock<Vec<usize>> = LazyLock::new(|| {
    let implies = |i: usize| {
        (0..CLUSTER.len())
            .filter(|&j| j != i && subset(&CLUSTER[j], &CLUSTER[i]))
            .count()
    };
    order(CLUSTER, implies, false)
});

/// Index privileges by how many others each is a subset of (more
/// first), then by name: Elasticsearch's order.
static INDEX_ORDER: LazyLock<Vec<usize>> = LazyLock::new(|| {
    let within = |i: usize| {
        (0..INDEX.len())
            .filter(|&j| j != i && subset(&INDEX[i], &INDEX[j]))
            .count()
    };
    order(INDEX, within, true)
});

fn order(table: &[NamedPrivilege], key: impl Fn(usize) -> usize, descending: bool) -> Vec<usize> {
    let mut keyed: Vec<(usize, usize)> = (0..table.len()).map(|i| (key(i), i)).collect();
    keyed.sort_by(|a, b| {
        let by_key = if descending {
            b.0.cmp(&a.0)
        } else {
            a.0.cmp(&b.0)
        };
        by_key.then_with(|| table[a.1].name.cmp(table[b.1].name))
    });
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// A pattern's fixed prefix and whether a star follows it.
fn split(pattern: &str) -> (&str, bool) {
    match pattern.strip_suffix('*') {
        Some(prefix) => (prefix, true),
        None => (pattern, false),
    }
}

/// Whether every action `inner` matches, `outer` matches.
fn contains(outer: &str, inner: &str) -> bool {
    let ((o, o_star), (i, i_star)) = (split(outer), split(inner));
    if o_star {
        i.starts_with(o)
    } else {
        !i_star && o == i
    }
}

/// Whether some action matches both patterns.
fn overlaps(a: &str, b: &str) -> bool {
    let ((a, a_star), (b, b_star)) = (split(a), split(b));
    match (a_star, b_star) {
        (true, true) => a.starts_with(b) || b.starts_with(a),
        (true, false) => b.starts_with(a),
        (false, true) => a.starts_with(b),
        (false, false) => a == b,
    }
}

/// Whether every action `small` grants, `big` grants too.
fn subset(small: &NamedPrivilege, big: &NamedPrivilege) -> bool {
    if small.own_api_keys_only != big.own_api_keys_only && big.own_api_keys_only {
        return false;
    }
    small.include.iter().all(|p| {
        big.include.iter().any(|q| contains(q, p))
            && big
                .exclude
                .iter()
                .all(|e| !overlaps(e, p) || small.exclude.iter().any(|x| contains(x, e)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn granting_privileges_are_listed_as_elasticsearch_lists_them() {
        assert_eq!(index_granting("indices:data/read/search"), ["read", "all"]);
        assert_eq!(
            index_granting("indices:data/write/index:op_type/create"),
            ["create_doc", "create", "index", "write", "all"]
        );
        assert_eq!(
            index_granting("indices:data/write/index:op_type/index"),
            ["create", "index", "write", "all"]
        );
        assert_eq!(
            index_granting("indices:admin/delete"),
            ["delete_index", "manage", "all"]
        );
        assert_eq!(
            index_granting("indices:admin/auto_create"),
            ["auto_configure", "create_index", "manage", "all"]
        );
        assert_eq!(
            cluster_granting("cluster:admin/settings/update"),
            ["manage", "all"]
        );
        assert_eq!(
            cluster_granting("cluster:monitor/main"),
            ["monitor", "manage", "all"]
        );
        assert_eq!(
            cluster_granting("cluster:admin/xpack/security/api_key/create"),
            [
                "manage_own_api_key",
                "manage_api_key",
                "manage_security",
                "all"
            ]
        );
        assert_eq!(
            cluster_granting("indices:admin/index_template/put"),
            ["manage_index_templates", "manage", "all"]
        );
    }

    #[test]
    fn manage_excludes_security() {
        let manage = cluster("manage").unwrap();
        assert!(manage.grants("cluster:admin/settings/update"));
        assert!(!manage.grants("cluster:admin/xpack/security/api_key/create"));
        assert!(cluster("all")
            .unwrap()
            .grants("cluster:admin/xpack/security/api_key/create"));
        assert!(is_cluster_action("cluster:monitor/main"));
        assert!(is_cluster_action("indices:admin/template/put"));
        assert!(!is_cluster_action("indices:data/read/search"));
        assert!(is_index_action("indices:data/read/search"));
    }

    #[test]
    fn every_table_pattern_has_at_most_a_trailing_star() {
        for p in CLUSTER.iter().chain(INDEX) {
            for pattern in p.include.iter().chain(p.exclude) {
                let (prefix, _) = split(pattern);
                assert!(!prefix.contains(['*', '?']), "{pattern}");
            }
        }
    }
}
