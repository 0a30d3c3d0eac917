//! `CONFIG GET|SET|RESETSTAT|REWRITE|HELP` over the parameters Strata
//! has. `SET` is all-or-nothing: every pair is validated before any is
//! applied. Parameters fixed at start accept only their current value.

use std::sync::atomic::Ordering;

use strata_kv::{EvictionPolicy, Store};

use crate::args::Args;
use crate::client_eviction::ClientEviction;
use crate::command::{resolve_subcommand, Ctx};
use crate::commands::client::write_help;
use crate::encodings::Threshold;
use crate::glob;
use crate::notify;
use crate::number::{parse_i64, parse_memory};
use crate::reply::{lossy_prefix, RespError};
use crate::shared::{Shared, MIN_BULK, REDIS_MAX_BULK};
use crate::slowlog::MAX_LEN_LIMIT;
use crate::stats::Baseline;
use crate::writer::ReplyWriter;

const HELP: &[&str] = &[
    "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "GET <pattern>",
    "    Return parameters matching the glob-like <pattern> and their values.",
    "SET <directive> <value>",
    "    Set the configuration <directive> to <value>.",
    "RESETSTAT",
    "    Reset statistics reported by the INFO command.",
    "REWRITE",
    "    Rewrite the configuration file.",
    "HELP",
    "    Prints this help.",
];

/// Parameters, in the order `CONFIG GET` lists them.
const PARAMS: &[&str] = &[
    "aclfile",
    "appendonly",
    "bind",
    "busy-reply-threshold",
    "client-output-buffer-limit",
    "cluster-config-file",
    "cluster-enabled",
    "databases",
    "enable-debug-command",
    "hash-max-listpack-entries",
    "hash-max-listpack-value",
    "latency-monitor-threshold",
    "list-max-listpack-size",
    "maxclients",
    "maxmemory",
    "lua-time-limit",
    "maxmemory-clients",
    "maxmemory-policy",
    "maxmemory-samples",
    "notify-keyspace-events",
    "port",
    "proto-max-bulk-len",
    "requirepass",
    "save",
    "set-max-intset-entries",
    "set-max-listpack-entries",
    "set-max-listpack-value",
    "slowlog-log-slower-than",
    "slowlog-max-len",
    "timeout",
    "tracking-table-max-keys",
    "zset-max-listpack-entries",
    "zset-max-listpack-value",
];

/// `slowlog-max-len` is bounded so the log's memory is (Redis takes any
/// `long`).
const SLOWLOG_LEN_RANGE: &str = "argument must be between 0 and 65536 inclusive";

/// `proto-max-bulk-len`'s range: [`MIN_BULK`] to [`REDIS_MAX_BULK`].
const BULK_RANGE: &str = "argument must be between 1048576 and 536870912 inclusive";

/// The engine evicts by recency (CLOCK) or not at all: `allkeys-lfu`,
/// `allkeys-random` and the `volatile-*` policies are refused rather than
/// run as something else.
const POLICIES: &str = "argument(s) must be one of the following: allkeys-lru, noeviction";

fn value_of(shared: &Shared, param: &str) -> String {
    if let Some(threshold) = Threshold::named(param) {
        return shared.encodings.shown(threshold);
    }
    let settings = &shared.info.settings;
    match param {
        "aclfile" => shared
            .acl
            .file()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        // The command log is Strata's AOF: on in `sync` and `async` modes.
        "appendonly" => {
            let mode = shared
                .info
                .durability
                .as_deref()
                .map_or("off", |d| d.mode());
            if mode == "off" { "no" } else { "yes" }.into()
        }
        "bind" => settings.bind.to_string(),
        "busy-reply-threshold" | "lua-time-limit" => shared.scripts.busy_threshold_ms().to_string(),
        "client-output-buffer-limit" => {
            let (hard, soft, secs) = shared.pubsub.limit.get();
            format!("{FIXED_BUFFER_LIMITS} pubsub {hard} {soft} {secs}")
        }
        "maxmemory-clients" => shared.client_eviction.shown(),
        // The CLOCK eviction samples nothing: Redis's default is shown.
        "maxmemory-samples" => "5".into(),
        "databases" => "1".into(),
        "enable-debug-command" => {
            let access = shared.debug_command.get().copied().unwrap_or_default();
            access.name().into()
        }
        "maxclients" => settings.max_connections().to_string(),
        "maxmemory" => shared.keyspace.memory_limit().to_string(),
        "maxmemory-policy" => shared.policy_name().into(),
        "port" => settings.resp_port.unwrap_or(0).to_string(),
        "proto-max-bulk-len" => shared.max_bulk().to_string(),
        "requirepass" => settings.requirepass().unwrap_or_default(),
        "timeout" => shared.idle_timeout.secs().to_string(),
        "slowlog-log-slower-than" => shared.slowlog.slower_than().to_string(),
        "slowlog-max-len" => shared.slowlog.max_len().to_string(),
        "latency-monitor-threshold" => shared.latency.threshold_ms().to_string(),
        "tracking-table-max-keys" => shared.tracking.max_keys().to_string(),
        "cluster-config-file" => shared
            .cluster_config_file
            .get()
            .map_or("nodes.conf", String::as_str)
            .into(),
        "cluster-enabled" => match shared.cluster.get() {
            Some(_) => "yes".into(),
            None => "no".into(),
        },
        "notify-keyspace-events" => notify::flags::format(shared.notify.flags()),
        _ => String::new(), // save
    }
}

/// A validated change, applied only once every pair validated.
enum Change {
    MaxMemory(u64),
    MaxMemoryClients(i64),
    Policy(EvictionPolicy),
    MaxClients(usize),
    RequirePass(Option<String>),
    Timeout(u64),
    SlowerThan(i64),
    SlowlogLen(usize),
    LatencyThreshold(u64),
    TrackingMaxKeys(usize),
    Notify(u32),
    PubsubLimit(u64, u64, u64),
    BusyThreshold(u64),
    MaxBulk(usize),
    Encoding(Threshold, u64),
    Unchanged,
}

fn parse_change(shared: &Shared, param: &str, value: &[u8]) -> Result<Change, &'static str> {
    if let Some(threshold) = Threshold::named(param) {
        if threshold.signed() {
            let n = parse_i64(value).ok_or("argument couldn't be parsed into an integer")?;
            return i32::try_from(n)
                .map(|n| Change::Encoding(threshold, i64::from(n) as u64))
                .map_err(|_| "argument must be between -2147483648 and 2147483647 inclusive");
        }
        return parse_count(value).map(|n| Change::Encoding(threshold, n));
    }
    match param {
        "maxmemory" => parse_memory(value)
            .map(Change::MaxMemory)
            .ok_or("argument must be a memory value"),
        "maxmemory-clients" => ClientEviction::parse(value).map(Change::MaxMemoryClients),
        "maxmemory-policy" => match value.to_ascii_lowercase().as_slice() {
            b"noeviction" => Ok(Change::Policy(EvictionPolicy::NoEviction)),
            b"allkeys-lru" => Ok(Change::Policy(EvictionPolicy::Clock)),
            _ => Err(POLICIES),
        },
        "maxclients" => {
            let n = parse_i64(value).ok_or("argument couldn't be parsed into an integer")?;
            usize::try_from(n)
                .ok()
                .filter(|&n| n >= 1)
                .map(Change::MaxClients)
                .ok_or("argument must be between 1 and 4294967295 inclusive")
        }
        "requirepass" => {
            let pass = String::from_utf8_lossy(value).into_owned();
            Ok(Change::RequirePass((!pass.is_empty()).then_some(pass)))
        }
        "timeout" => {
            let secs = parse_i64(value).ok_or("argument couldn't be parsed into an integer")?;
            u64::try_from(secs)
                .ok()
                .filter(|&s| s <= i32::MAX as u64)
                .map(Change::Timeout)
                .ok_or("argument must be between 0 and 2147483647 inclusive")
        }
        "client-output-buffer-limit" => parse_buffer_limits(value),
        // Redis's range starts at 1 MiB; Strata stops at Redis's default
        // (512 MiB): the engine keeps no item over 128 MiB anyway.
        "proto-max-bulk-len" => parse_memory(value)
            .ok_or("argument must be a memory value")
            .and_then(|n| {
                usize::try_from(n)
                    .ok()
                    .filter(|n| (MIN_BULK..=REDIS_MAX_BULK).contains(n))
                    .map(Change::MaxBulk)
                    .ok_or(BULK_RANGE)
            }),
        "busy-reply-threshold" | "lua-time-limit" => parse_i64(value)
            .and_then(|n| u64::try_from(n).ok())
            .map(Change::BusyThreshold)
            .ok_or("argument must be between 0 and 9223372036854775807 inclusive"),
        "slowlog-log-slower-than" => parse_i64(value)
            .filter(|&us| us >= -1)
            .map(Change::SlowerThan)
            .ok_or("argument must be between -1 and 9223372036854775807 inclusive"),
        "slowlog-max-len" => parse_i64(value)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= MAX_LEN_LIMIT)
            .map(Change::SlowlogLen)
            .ok_or(SLOWLOG_LEN_RANGE),
        "latency-monitor-threshold" => parse_count(value).map(Change::LatencyThreshold),
        "tracking-table-max-keys" => parse_count(value)
            .map(|n| Change::TrackingMaxKeys(usize::try_from(n).unwrap_or(usize::MAX))),
        "notify-keyspace-events" => notify::flags::parse(value)
            .map(Change::Notify)
            .ok_or("Invalid event class character. Use 'Ag$lshzxeKEtmdn'."),
        fixed if value == value_of(shared, fixed).as_bytes() => Ok(Change::Unchanged),
        _ => Err("can't set immutable config"),
    }
}

/// A count from 0 to `LONG_MAX`, as Redis's `size_t` integer parameters.
fn parse_count(value: &[u8]) -> Result<u64, &'static str> {
    let n = parse_i64(value).ok_or("argument couldn't be parsed into an integer")?;
    u64::try_from(n).map_err(|_| "argument must be between 0 and 9223372036854775807 inclusive")
}

/// The `normal` and `replica` classes, which Strata does not enforce (a
/// normal client's replies are bounded by the driver; there are no
/// replicas): only these, Redis's defaults, are accepted.
const FIXED_BUFFER_LIMITS: &str = "normal 0 0 0 slave 268435456 67108864 60";

/// `class hard soft seconds` groups; only the `pubsub` class may change.
fn parse_buffer_limits(value: &[u8]) -> Result<Change, &'static str> {
    let text = String::from_utf8_lossy(value);
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() || words.len() % 4 != 0 {
        return Err("Wrong number of arguments in buffer limit configuration.");
    }
    let mut pubsub = None;
    for group in words.chunks(4) {
        let memory = |w: &str| parse_memory(w.as_bytes()).ok_or("Invalid memory value.");
        let hard = memory(group[1])?;
        let soft = memory(group[2])?;
        let secs = parse_i64(group[3].as_bytes())
            .and_then(|n| u64::try_from(n).ok())
            .ok_or("Invalid soft limit seconds.")?;
        match group[0].to_ascii_lowercase().as_str() {
            "pubsub" => pubsub = Some((hard, soft, secs)),
            "normal" if (hard, soft, secs) == (0, 0, 0) => {}
            "replica" | "slave" if (hard, soft, secs) == (268_435_456, 67_108_864, 60) => {}
            "normal" | "replica" | "slave" => {
                return Err("only the pubsub class's limits can be changed")
            }
            _ => return Err("Invalid client class specified in buffer limit configuration."),
        }
    }
    Ok(match pubsub {
        Some((hard, soft, secs)) => Change::PubsubLimit(hard, soft, secs),
        None => Change::Unchanged,
    })
}

fn apply(shared: &Shared, change: Change) {
    match change {
        Change::MaxMemory(bytes) => shared.keyspace.set_memory_limit(bytes),
        Change::MaxMemoryClients(setting) => shared.client_eviction.set(setting),
        Change::Policy(policy) => shared.keyspace.set_eviction(policy),
        Change::MaxClients(n) => shared
            .info
            .settings
            .max_connections
            .store(n, Ordering::Relaxed),
        Change::RequirePass(pass) => {
            // The default user's password, as in Redis; CONFIG GET reports
            // the setting as given.
            shared.acl.set_default_password(pass.as_deref());
            *shared.info.settings.requirepass.write() = pass;
        }
        Change::Timeout(secs) => shared.idle_timeout.set(secs),
        Change::SlowerThan(us) => shared.slowlog.set_slower_than(us),
        Change::SlowlogLen(len) => shared.slowlog.set_max_len(len),
        Change::LatencyThreshold(ms) => shared.latency.set_threshold_ms(ms),
        Change::TrackingMaxKeys(n) => shared.tracking.set_max_keys(n),
        Change::Notify(flags) => shared.notify.set(flags, &shared.keyspace, &shared.pubsub),
        Change::PubsubLimit(hard, soft, secs) => shared.pubsub.limit.set(hard, soft, secs),
        Change::BusyThreshold(ms) => shared.scripts.set_busy_threshold_ms(ms),
        Change::MaxBulk(bytes) => shared.set_max_bulk(bytes),
        Change::Encoding(threshold, n) => shared.encodings.set(threshold, n),
        Change::Unchanged => {}
    }
}

fn config_set(shared: &Shared, args: &Args<'_>) -> Result<(), RespError> {
    if args.len() % 2 != 0 {
        return Err(RespError::Syntax);
    }
    let mut seen: Vec<&str> = Vec::new();
    let mut changes = Vec::new();
    for i in (2..args.len()).step_by(2) {
        let raw = args.get(i);
        let param = PARAMS
            .iter()
            .copied()
            .find(|p| p.as_bytes().eq_ignore_ascii_case(raw))
            .ok_or_else(|| RespError::ConfigUnknown(lossy_prefix(raw, 128)))?;
        let failed = |reason| RespError::ConfigSetFailed {
            param: param.into(),
            reason,
        };
        if seen.contains(&param) {
            return Err(failed("duplicate parameter"));
        }
        seen.push(param);
        changes.push(parse_change(shared, param, args.get(i + 1)).map_err(failed)?);
    }
    for change in changes {
        apply(shared, change);
    }
    // A lower limit (or a percentage of a lower maxmemory) applies now.
    shared.evict_clients();
    Ok(())
}

/// `CONFIG RESETSTAT`: zeroes the counters `INFO stats` reports.
fn reset_stats(shared: &Shared) {
    let ks = shared.keyspace.stats();
    shared.stats.reset(Baseline {
        hits: ks.hits,
        misses: ks.misses,
        expired: ks.expired,
        evicted: ks.evictions,
        evicted_clients: shared.client_eviction.evicted(),
        connections: shared.clients.total(),
        rejected: shared.clients.rejected(),
        net_in: shared.clients.bytes_read(),
        net_out: shared.clients.bytes_written(),
    });
    shared.acl.denied().reset();
    shared.commands.reset();
    shared.errorstats.reset();
}

/// `CONFIG <subcommand>`.
pub fn config<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let sub = resolve_subcommand("config", &args)?;
    let shared = ctx.shared;
    match sub.name {
        "config|get" => {
            let matched: Vec<&str> = PARAMS
                .iter()
                .copied()
                .filter(|p| {
                    args.iter_from(2)
                        .any(|pat| glob::matches_nocase(pat, p.as_bytes()))
                })
                .collect();
            out.map(matched.len());
            for param in matched {
                out.bulk(param.as_bytes());
                out.bulk(value_of(shared, param).as_bytes());
            }
        }
        "config|set" => {
            config_set(shared, &args)?;
            out.ok();
        }
        "config|resetstat" => {
            reset_stats(shared);
            out.ok();
        }
        "config|rewrite" => return Err(RespError::NoConfigFile),
        _ => write_help(out, HELP),
    }
    Ok(())
}
