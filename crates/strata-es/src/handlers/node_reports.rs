//! Sections of `_nodes/stats` that report the storage the node shares
//! with its other engines, in the numbers `INFO` shows: `strata_cache`
//! (the DRAM caches by user, `INFO cache`) and `strata_ssd_store` (the
//! SSD block store by user, `INFO tiers`' `tier_ssd_user_<user>_*`).

use serde_json::{json, Map, Value};

/// `strata_cache`: the node's DRAM caches in total and by user, the report
/// `INFO cache` shows (`shared`: one budget, the total's, that the users
/// share); each user also its floor (0: none) and ceiling (its budget when
/// it has none).
pub(super) fn cache_report(report: &strata_metrics::CacheReport) -> Value {
    let usage = |u: &strata_metrics::CacheUsage| {
        json!({"size_in_bytes": u.bytes, "budget_in_bytes": u.budget, "entries": u.entries,
               "hits": u.hits, "misses": u.misses, "insertions": u.insertions,
               "evictions": u.evictions, "shared": u.shared})
    };
    let users: Map<String, Value> = report
        .users
        .iter()
        .map(|(name, u)| {
            let mut user = usage(u);
            user["floor_in_bytes"] = json!(u.floor);
            user["ceiling_in_bytes"] = json!(u.ceiling);
            (name.clone(), user)
        })
        .collect();
    let mut out = usage(&report.total());
    out["users"] = Value::Object(users);
    out
}

/// `strata_ssd_store`: the SSD block store the node's engines share (the
/// key-value records and search's flushed segment files), its blocks and
/// each user's blocks, bytes written and bytes still live. Present when
/// the node has the store (`data = ssd`).
pub(super) fn store_report(stats: &strata_ssd::SsdStats) -> Value {
    let users: Map<String, Value> = (stats.users.iter())
        .map(|u| {
            let space = json!({"blocks": u.blocks, "used_in_bytes": u.bytes_used,
                               "live_in_bytes": u.bytes_live});
            (u.user.name(), space)
        })
        .collect();
    json!({
        "block_size_in_bytes": stats.block_size,
        "blocks_total": stats.blocks_total,
        "blocks_free": stats.blocks_free,
        "capacity_in_bytes": stats.capacity,
        "users": users,
    })
}
