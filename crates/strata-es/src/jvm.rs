//! The `jvm` section of `_nodes/stats`, in the shape Elasticsearch's
//! clients and Rally's always-on telemetry read (`jvm.mem.pools.{young,
//! survivor,old}`, `jvm.gc.collectors.{young,old}`), filled with what is
//! true of a process that has no JVM:
//!
//! - the "heap" is the process's resident memory (`heap_used`,
//!   `heap_committed`), bounded by the host's physical memory
//!   (`heap_max`); it all counts as the `old` pool (Strata's memory is
//!   long-lived: items, segments, caches), with its peak the process's
//!   peak resident size (`VmHWM`);
//! - `young` and `survivor` hold nothing, and no garbage collector runs:
//!   every collector reports zero collections taking zero milliseconds.
//!
//! Figures that cannot be read (outside Linux) are reported as zero.

use serde_json::{json, Value};

use crate::host;

/// The `jvm` section, `uptime_ms` since the node started, at `now` (epoch ms).
pub fn section(uptime_ms: u64, now: u64) -> Value {
    let used = host::resident_bytes().unwrap_or(0);
    let peak = host::peak_resident_bytes().unwrap_or(used).max(used);
    let max = host::memory().map_or(0, |(total, _)| total);
    let percent = (used * 100).checked_div(max).unwrap_or(0);
    let empty_pool = json!({"used_in_bytes": 0, "max_in_bytes": 0,
                            "peak_used_in_bytes": 0, "peak_max_in_bytes": 0});
    let collector = json!({"collection_count": 0, "collection_time_in_millis": 0});
    json!({
        "timestamp": now,
        "uptime_in_millis": uptime_ms,
        "mem": {
            "heap_used_in_bytes": used,
            "heap_used_percent": percent,
            "heap_committed_in_bytes": used,
            "heap_max_in_bytes": max,
            "non_heap_used_in_bytes": 0,
            "non_heap_committed_in_bytes": 0,
            "pools": {
                "young": empty_pool,
                "survivor": empty_pool,
                "old": {"used_in_bytes": used, "max_in_bytes": max,
                        "peak_used_in_bytes": peak, "peak_max_in_bytes": max},
            },
        },
        "threads": {"count": host::threads().unwrap_or(0), "peak_count": host::threads().unwrap_or(0)},
        "gc": {"collectors": {"young": collector, "old": collector}},
        "buffer_pools": {},
        "classes": {"current_loaded_count": 0, "total_loaded_count": 0, "total_unloaded_count": 0},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pools_and_collectors_rally_reads() {
        let s = section(5, 7);
        for pool in ["young", "survivor", "old"] {
            assert!(
                s["mem"]["pools"][pool]["peak_used_in_bytes"].is_u64(),
                "{pool}"
            );
        }
        for c in ["young", "old"] {
            assert_eq!(s["gc"]["collectors"][c]["collection_count"], 0);
            assert_eq!(s["gc"]["collectors"][c]["collection_time_in_millis"], 0);
        }
        let old = &s["mem"]["pools"]["old"];
        assert!(old["peak_used_in_bytes"].as_u64() >= old["used_in_bytes"].as_u64());
        if cfg!(target_os = "linux") {
            assert!(s["mem"]["heap_used_in_bytes"].as_u64().unwrap() > 0);
            assert!(s["threads"]["count"].as_u64().unwrap() >= 1);
        }
    }
}
