//! The `INFO` report: Redis's section and field names, with values taken
//! from the engine ([`strata_kv::KeyspaceStats`]), the connection registry,
//! the front end's own counters and `/proc` for process figures. Fields
//! Strata cannot measure are left out rather than invented.

use std::fmt::Write as _;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::number::human_bytes;
use crate::process::{cpu_seconds, os_name, resident_bytes};
use crate::pubsub::Kind;
use crate::shared::{Shared, REDIS_VERSION};
use crate::stats::Totals;

/// Sections in report order; all but [`NOT_DEFAULT`] are in `default`.
const SECTIONS: &[&str] = &[
    "server",
    "clients",
    "memory",
    "persistence",
    "tiers",
    "cache",
    "stats",
    "replication",
    "cpu",
    "modules",
    "commandstats",
    "errorstats",
    "latencystats",
    "cluster",
    "keyspace",
];

/// Sections reported only when named, or with `all` or `everything` (as
/// in Redis).
const NOT_DEFAULT: &[&str] = &["commandstats", "latencystats"];

/// Renders the sections named in `wanted` (none: `default`), each as a
/// `# Title` header followed by `field:value` lines, separated by blank
/// lines, every line ending in CRLF.
pub fn render(shared: &Shared, wanted: &[&[u8]]) -> String {
    let wanted: Vec<String> = wanted
        .iter()
        .map(|w| String::from_utf8_lossy(w).to_ascii_lowercase())
        .collect();
    let default = wanted.is_empty() || wanted.iter().any(|w| w == "default");
    let all = wanted
        .iter()
        .any(|w| matches!(w.as_str(), "all" | "everything"));
    let mut text = String::new();
    for section in SECTIONS {
        let named = wanted.iter().any(|w| w == section);
        let by_group = all || (default && !NOT_DEFAULT.contains(section));
        if !named && !by_group {
            continue;
        }
        if !text.is_empty() {
            text.push_str("\r\n");
        }
        let mut title = section.to_string();
        title[..1].make_ascii_uppercase();
        if *section == "cpu" {
            title = "CPU".into();
        }
        let _ = write!(text, "# {title}\r\n");
        write_section(shared, section, &mut text);
    }
    text
}

fn line(text: &mut String, field: &str, value: impl std::fmt::Display) {
    let _ = write!(text, "{field}:{value}\r\n");
}

fn write_section(shared: &Shared, section: &str, t: &mut String) {
    match section {
        "server" => server(shared, t),
        "clients" => {
            line(t, "connected_clients", shared.clients.current());
            line(t, "maxclients", shared.info.settings.max_connections());
            line(t, "blocked_clients", shared.waiters.blocked());
            line(t, "tracking_clients", shared.tracking.counts().0);
        }
        "memory" => memory(shared, t),
        "persistence" => {
            let fields = match shared.info.durability.as_deref() {
                Some(durability) => durability.info(),
                None => strata_service::durability::off_info(shared.info.started_unix),
            };
            for (field, value) in fields {
                line(t, field, value);
            }
        }
        "tiers" => {
            // Strata's own section. Commas would make clients read a value
            // as a `k=v,...` list.
            for (field, value) in shared.keyspace.tier_info() {
                line(t, &field, value.replace(',', ";"));
            }
        }
        "cache" => cache(shared, t),
        "stats" => stats(shared, t),
        "replication" => {
            line(t, "role", "master");
            line(t, "connected_slaves", 0);
            line(t, "master_replid", &shared.run_id);
            line(t, "master_repl_offset", 0);
        }
        "cpu" => {
            if let Some((user, sys)) = cpu_seconds() {
                line(t, "used_cpu_sys", format!("{sys:.6}"));
                line(t, "used_cpu_user", format!("{user:.6}"));
            }
        }
        "cluster" => line(
            t,
            "cluster_enabled",
            u8::from(shared.cluster.get().is_some()),
        ),
        "commandstats" => crate::command_stats::render_commandstats(&shared.commands, t),
        "latencystats" => crate::command_stats::render_latencystats(&shared.commands, t),
        "errorstats" => shared.errorstats.render(t),
        "keyspace" => {
            let ks = shared.keyspace.stats();
            if ks.items > 0 {
                let _ = write!(
                    t,
                    "db0:keys={},expires={},avg_ttl=0\r\n",
                    ks.items, ks.items_with_expiry
                );
            }
        }
        _ => {} // modules: none
    }
}

/// Strata's own section: the node's DRAM caches, in total and by user
/// (the same report as `_nodes/stats` `strata_cache`); `cache_shared:1`
/// when the users share one budget (`cache_size`). Each user's floor (0:
/// none) and ceiling (its budget when it has none) follow its figures.
fn cache(shared: &Shared, t: &mut String) {
    let report = shared.info.caches.report();
    let fields = |t: &mut String, prefix: &str, u: &strata_metrics::CacheUsage| {
        line(t, &format!("{prefix}bytes"), u.bytes);
        line(t, &format!("{prefix}budget"), u.budget);
        line(t, &format!("{prefix}entries"), u.entries);
        line(t, &format!("{prefix}hits"), u.hits);
        line(t, &format!("{prefix}misses"), u.misses);
        line(t, &format!("{prefix}insertions"), u.insertions);
        line(t, &format!("{prefix}evictions"), u.evictions);
    };
    let total = report.total();
    fields(t, "cache_", &total);
    line(t, "cache_shared", u8::from(total.shared));
    for (user, usage) in &report.users {
        fields(t, &format!("cache_user_{user}_"), usage);
        line(t, &format!("cache_user_{user}_floor"), usage.floor);
        line(t, &format!("cache_user_{user}_ceiling"), usage.ceiling);
    }
}

/// Redis's `redis_git_sha1` (the commit's first 8 hex digits, `00000000`
/// when unknown, as Redis built without git), `redis_git_dirty`, and
/// `redis_build_id` (here the whole commit) for the binary's `commit`.
fn git_fields(commit: &str) -> (&str, bool, &str) {
    let (hash, dirty) = match commit.strip_suffix("-dirty") {
        Some(hash) => (hash, true),
        None => (commit, false),
    };
    let hex = hash.len() >= 8 && hash.bytes().all(|b| b.is_ascii_hexdigit());
    if hex {
        (&hash[..8], dirty, hash)
    } else {
        ("00000000", dirty, commit)
    }
}

fn server(shared: &Shared, t: &mut String) {
    let info = &shared.info;
    let uptime = info.uptime_secs();
    let now_usec = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or(0);
    line(t, "redis_version", REDIS_VERSION);
    line(t, "strata_version", &info.version);
    let (sha1, dirty, build_id) = git_fields(&info.commit);
    line(t, "strata_commit", &info.commit);
    line(t, "redis_git_sha1", sha1);
    line(t, "redis_git_dirty", u8::from(dirty));
    line(t, "redis_build_id", build_id);
    line(t, "redis_mode", "standalone");
    line(t, "os", os_name());
    line(t, "arch_bits", usize::BITS);
    line(
        t,
        "multiplexing_api",
        if cfg!(target_os = "linux") {
            "epoll"
        } else {
            "kqueue"
        },
    );
    line(t, "process_id", info.pid);
    // Strata's own: how key-value connections are served now (`worker_mode`).
    let workers = info.workers_now();
    line(t, "strata_worker_mode", workers.mode);
    line(t, "strata_workers", workers.workers);
    line(t, "strata_workers_active", workers.active);
    line(t, "process_supervised", "no");
    line(t, "run_id", &shared.run_id);
    line(t, "tcp_port", info.settings.resp_port.unwrap_or(0));
    line(t, "server_time_usec", now_usec);
    line(t, "uptime_in_seconds", uptime);
    line(t, "uptime_in_days", uptime / 86_400);
    line(
        t,
        "executable",
        std::env::current_exe()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
    );
    line(t, "config_file", "");
}

fn memory(shared: &Shared, t: &mut String) {
    let ks = shared.keyspace.stats();
    line(t, "used_memory", ks.used_memory);
    line(t, "used_memory_human", human_bytes(ks.used_memory));
    if let Some(rss) = resident_bytes() {
        line(t, "used_memory_rss", rss);
        line(t, "used_memory_rss_human", human_bytes(rss));
        if ks.used_memory > 0 {
            line(
                t,
                "mem_fragmentation_ratio",
                format!("{:.2}", rss as f64 / ks.used_memory as f64),
            );
        }
    }
    let peak = ks.used_memory_peak.max(ks.used_memory);
    line(t, "used_memory_peak", peak);
    line(t, "used_memory_peak_human", human_bytes(peak));
    line(t, "used_memory_startup", ks.used_memory_startup);
    let alloc = strata_metrics::allocator_stats();
    if let Some(a) = alloc {
        line(t, "allocator_allocated", a.allocated);
        line(t, "allocator_active", a.active);
        line(t, "allocator_resident", a.resident);
    }
    let limit = shared.keyspace.memory_limit();
    line(t, "maxmemory", limit);
    line(t, "maxmemory_human", human_bytes(limit));
    line(t, "maxmemory_policy", shared.policy_name());
    if let Some(a) = alloc {
        allocator_ratios(t, a, resident_bytes());
    }
    if let Some(name) = strata_metrics::allocator_name() {
        line(t, "mem_allocator", name);
    }
    line(t, "strata_index_bytes", ks.index_bytes);
    line(t, "strata_segments", ks.segments);
    line(t, "strata_max_item_size", shared.keyspace.max_item_size());
}

/// Redis's allocator ratios: fragmentation inside the allocator's pages
/// (active / allocated), pages it holds beyond them (resident / active)
/// and the process's memory beyond the allocator's (RSS / resident).
fn allocator_ratios(t: &mut String, a: strata_metrics::AllocatorStats, rss: Option<u64>) {
    let ratio = |num: u64, den: u64| format!("{:.2}", num as f64 / den.max(1) as f64);
    let over = |num: u64, den: u64| num as i64 - den as i64;
    line(t, "allocator_frag_ratio", ratio(a.active, a.allocated));
    line(t, "allocator_frag_bytes", over(a.active, a.allocated));
    line(t, "allocator_rss_ratio", ratio(a.resident, a.active));
    line(t, "allocator_rss_bytes", over(a.resident, a.active));
    if let Some(rss) = rss {
        line(t, "rss_overhead_ratio", ratio(rss, a.resident));
        line(t, "rss_overhead_bytes", over(rss, a.resident));
    }
}

fn stats(shared: &Shared, t: &mut String) {
    let ks = shared.keyspace.stats();
    let clients = &shared.clients;
    let base = shared.stats.baseline();
    let (net_in, net_out) = (clients.bytes_read(), clients.bytes_written());
    let rates = shared.stats.rates(Totals {
        commands: shared.stats.commands(),
        net_in,
        net_out,
    });
    line(
        t,
        "total_connections_received",
        clients.total().saturating_sub(base.connections),
    );
    line(t, "total_commands_processed", shared.stats.commands());
    line(t, "instantaneous_ops_per_sec", rates.ops_per_sec);
    line(
        t,
        "total_net_input_bytes",
        net_in.saturating_sub(base.net_in),
    );
    line(
        t,
        "total_net_output_bytes",
        net_out.saturating_sub(base.net_out),
    );
    line(
        t,
        "instantaneous_input_kbps",
        format!("{:.2}", rates.input_kbps),
    );
    line(
        t,
        "instantaneous_output_kbps",
        format!("{:.2}", rates.output_kbps),
    );
    line(
        t,
        "rejected_connections",
        clients.rejected().saturating_sub(base.rejected),
    );
    line(t, "expired_keys", ks.expired.saturating_sub(base.expired));
    line(t, "evicted_keys", ks.evictions.saturating_sub(base.evicted));
    let evicted_clients = shared.client_eviction.evicted();
    line(
        t,
        "evicted_clients",
        evicted_clients.saturating_sub(base.evicted_clients),
    );
    line(t, "keyspace_hits", ks.hits.saturating_sub(base.hits));
    line(t, "keyspace_misses", ks.misses.saturating_sub(base.misses));
    let pubsub = &shared.pubsub;
    line(
        t,
        "pubsub_channels",
        pubsub.active(Kind::Channel, None).len(),
    );
    line(t, "pubsub_patterns", pubsub.patterns());
    line(
        t,
        "pubsub_shardchannels",
        pubsub.active(Kind::Shard, None).len(),
    );
    let (_, keys, items, prefixes) = shared.tracking.counts();
    line(t, "tracking_total_keys", keys);
    line(t, "tracking_total_items", items);
    line(t, "tracking_total_prefixes", prefixes);
    line(
        t,
        "client_output_buffer_limit_disconnections",
        pubsub
            .disconnections
            .load(std::sync::atomic::Ordering::Relaxed),
    );
    line(t, "total_error_replies", shared.stats.errors());
    let denied = shared.acl.denied();
    let count = |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
    line(t, "acl_access_denied_auth", count(&denied.auth));
    line(t, "acl_access_denied_cmd", count(&denied.command));
    line(t, "acl_access_denied_key", count(&denied.key));
    line(t, "acl_access_denied_channel", 0);
}

#[cfg(test)]
mod tests {
    use super::git_fields;

    #[test]
    fn git_fields_follow_the_commit() {
        let hash = "0123456789abcdef0123456789abcdef01234567";
        assert_eq!(git_fields(hash), ("01234567", false, hash));
        let dirty = format!("{hash}-dirty");
        assert_eq!(git_fields(&dirty), ("01234567", true, hash));
        // Built without git: Redis's own zeros, the build id says why.
        assert_eq!(git_fields("unknown"), ("00000000", false, "unknown"));
    }
}
