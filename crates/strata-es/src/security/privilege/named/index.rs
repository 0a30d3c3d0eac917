//! The index privileges: Elasticsearch 8's table of names and action
//! patterns.

use super::privilege::NamedPrivilege;

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
