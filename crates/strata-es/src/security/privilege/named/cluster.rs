//! The cluster privileges: Elasticsearch 8's table of names and action
//! patterns.

use super::privilege::NamedPrivilege;

/// The cluster-level actions (`cluster:*` and the template actions).
pub(super) const ALL_CLUSTER: &[&str] = &[
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
