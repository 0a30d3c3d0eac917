//! Elasticsearch's named privileges as sets of action patterns, and the
//! order in which error messages list the privileges that would grant an
//! action (least privileged first, as Elasticsearch sorts them).
//!
//! A privilege is a union of `include` patterns minus `exclude` patterns
//! over action names (`cluster:monitor/*`, `indices:data/read/*`). Every
//! pattern in the tables is a literal or a literal followed by one `*`,
//! which is what makes [`subset`] exact enough to order them.
//!
//! Layout: `privilege` (a privilege and the subset relation), `cluster`
//! and `index` (the two tables); this file looks privileges up and orders
//! them.

mod cluster;
mod index;
mod privilege;

use std::sync::LazyLock;

use super::glob;
use cluster::ALL_CLUSTER;
pub use cluster::CLUSTER;
pub use index::INDEX;
#[cfg(test)]
use privilege::split;
use privilege::subset;
pub use privilege::NamedPrivilege;

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
