//! Unit tests of `role.rs`.

use super::*;

#[test]
fn builtin_roles() {
    let su = builtin(SUPERUSER).unwrap();
    assert_eq!(
        su.cluster("cluster:admin/settings/update"),
        ClusterDecision::Granted
    );
    assert!(su.index("indices:admin/delete", "logs"));
    assert!(!su.index("indices:admin/delete", ".security-7"));
    assert!(su.index("indices:data/read/search", ".security-7"));
    let viewer = builtin(VIEWER).unwrap();
    assert!(viewer.index("indices:data/read/search", "logs"));
    assert!(viewer.index("indices:monitor/stats", "logs"));
    assert!(!viewer.index("indices:data/read/search", ".hidden"));
    assert!(!viewer.index("indices:data/write/index:op_type/index", "logs"));
    assert!(!viewer.index("indices:admin/create", "logs"));
    assert_eq!(
        viewer.cluster("cluster:monitor/main"),
        ClusterDecision::Granted
    );
    assert_eq!(
        viewer.cluster("cluster:admin/settings/update"),
        ClusterDecision::Denied
    );
    let editor = builtin(EDITOR).unwrap();
    assert!(editor.index("indices:data/write/update", "logs"));
    assert!(!editor.index("indices:admin/delete", "logs"));
    assert!(is_builtin(VIEWER) && !is_builtin("admin"));
}

#[test]
fn descriptors_parse_with_patterns_and_actions() {
    let role = Role::parse(
        "logs_reader",
        &json!({
            "cluster": ["monitor", "cluster:admin/settings/update"],
            "index": [
                {"names": ["logs-*", "/metrics-[0-9]+/"], "privileges": ["READ", "indices:admin/refresh"]}
            ]
        }),
    )
    .unwrap();
    assert_eq!(
        role.cluster("cluster:admin/settings/update"),
        ClusterDecision::Granted
    );
    assert!(role.index("indices:data/read/search", "logs-a"));
    assert!(role.index("indices:data/read/search", "metrics-7"));
    assert!(role.index("indices:admin/refresh", "logs-a"));
    assert!(!role.index("indices:data/read/search", "metrics-x"));
    assert!(!role.index("indices:admin/flush", "logs-a"));
    assert!(role.index_any("indices:data/read/search"));
    assert!(!role.index_any("indices:data/write/bulk"));
    assert_eq!(
        role.descriptor["indices"][0]["names"][1],
        "/metrics-[0-9]+/"
    );
}

#[test]
fn what_cannot_be_enforced_is_refused() {
    let bad = [
        json!({"cluster": ["manage_everything"]}),
        json!({"indices": [{"names": ["a"], "privileges": ["reed"]}]}),
        json!({"indices": [{"names": ["a"], "privileges": ["read"], "query": "{}"}]}),
        json!({"indices": [{"names": ["a"], "privileges": ["read"], "field_security": {}}]}),
        json!({"indices": [{"names": ["a"]}]}),
        json!({"run_as": ["bob"]}),
        json!({"clusters": ["all"]}),
        json!({"indices": [{"names": ["/[/"], "privileges": ["read"]}]}),
    ];
    for body in bad {
        assert!(Role::parse("r", &body).is_err(), "{body}");
    }
    let own = Role::parse("r", &json!({"cluster": ["manage_own_api_key"]})).unwrap();
    assert_eq!(
        own.cluster("cluster:admin/xpack/security/api_key/create"),
        ClusterDecision::OwnApiKeys
    );
    assert!(Role::parse("r", &json!({"run_as": [], "applications": []}))
        .unwrap()
        .is_empty());
}
