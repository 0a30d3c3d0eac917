//! `stats [settings|items|slabs|sizes|conns|reset|detail <on|off|dump>|
//! cachedump <class> <limit>]`.
//!
//! The general form reports memcached's standard fields under their
//! memcached names, from the protocol counters, the connection registry and
//! the keyspace: `bytes` is the keyspace's used memory without the index
//! (what items take, as memcached's) and `limit_maxbytes` its memory limit. Fields about
//! memcached internals Strata does not have (slabs, LRU segments, hash
//! table) are left out rather than invented. `items`, `slabs` and
//! `cachedump` report Strata's own size classes (`stats_classes.rs`).

use std::sync::atomic::Ordering;

use bytes::{BufMut, BytesMut};

use super::stats_classes;
use crate::codec::Tokens;
use crate::reply::{self, Error};
use crate::shared::Shared;
use crate::syntax::ParseError;

/// Which report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Report {
    General,
    Settings,
    Items,
    Slabs,
    Sizes,
    Conns,
    Reset,
    DetailOn,
    DetailOff,
    DetailDump,
    CacheDump { class: u32, limit: u32 },
}

/// A parsed `stats`.
#[derive(Debug)]
pub struct Stats {
    report: Report,
}

impl Stats {
    /// Parses the line.
    pub fn parse(tokens: &Tokens<'_>) -> Result<Self, ParseError> {
        let report = match tokens.get(1) {
            b"" => Report::General,
            b"settings" => Report::Settings,
            b"items" => Report::Items,
            b"slabs" => Report::Slabs,
            b"sizes" => Report::Sizes,
            b"conns" => Report::Conns,
            b"reset" => Report::Reset,
            b"cachedump" => {
                // memcached: both arguments, 32-bit numbers, a class id
                // below its 64 classes.
                if tokens.len() < 4 {
                    return Err(Error::BadCommandLine.into());
                }
                let number = |i| {
                    crate::numbers::strtoull(tokens.get(i))
                        .and_then(|n| u32::try_from(n).ok())
                        .ok_or(Error::BadFormat)
                };
                let (class, limit) = (number(2)?, number(3)?);
                if class as usize >= strata_kv::size_class::CLASSES {
                    return Err(Error::IllegalSlabId.into());
                }
                Report::CacheDump { class, limit }
            }
            b"detail" => match tokens.get(2) {
                b"on" => Report::DetailOn,
                b"off" => Report::DetailOff,
                b"dump" => Report::DetailDump,
                _ => return Err(Error::StatsDetailUsage.into()),
            },
            _ => return Err(Error::UnknownCommand.into()),
        };
        Ok(Self { report })
    }

    /// Writes the report.
    pub fn execute(self, shared: &Shared, out: &mut BytesMut) {
        match self.report {
            Report::General => general(shared, out),
            Report::Settings => settings(shared, out),
            Report::Items => stats_classes::items(shared, out),
            Report::CacheDump { class, limit } => {
                stats_classes::cachedump(shared, class, limit, out);
                return;
            }
            Report::DetailDump => {
                shared.prefixes.dump(out);
                return;
            }
            Report::Slabs => stats_classes::slabs(shared, out),
            Report::Sizes => stat_str(out, "sizes_status", "disabled"),
            Report::Conns => conns(shared, out),
            Report::Reset => {
                shared.stats.reset();
                shared.prefixes.clear();
                shared.commands.reset();
                out.put_slice(b"RESET\r\n");
                return;
            }
            Report::DetailOn | Report::DetailOff => {
                shared.prefixes.set_enabled(self.report == Report::DetailOn);
                out.put_slice(b"OK\r\n");
                return;
            }
        }
        out.put_slice(b"END\r\n");
    }
}

fn stat(out: &mut BytesMut, name: &str, value: u64) {
    out.put_slice(b"STAT ");
    out.put_slice(name.as_bytes());
    out.put_u8(b' ');
    reply::put_u64(out, value);
    out.put_slice(b"\r\n");
}

fn stat_str(out: &mut BytesMut, name: &str, value: &str) {
    out.put_slice(b"STAT ");
    out.put_slice(name.as_bytes());
    out.put_u8(b' ');
    out.put_slice(value.as_bytes());
    out.put_slice(b"\r\n");
}

fn general(shared: &Shared, out: &mut BytesMut) {
    let info = &shared.info;
    let clients = &shared.clients;
    let ks = shared.keyspace.stats();
    let (user, system) = cpu_times();
    stat(out, "pid", u64::from(info.pid));
    stat(out, "uptime", info.uptime_secs());
    stat(out, "time", shared.keyspace.clock().now_secs());
    stat_str(out, "version", &super::version::version_string(shared));
    // The commit the binary was built from (memcached has no such stat;
    // `version` stays in the form clients parse).
    stat_str(out, "strata_commit", &info.commit);
    stat(out, "pointer_size", usize::BITS.into());
    stat_str(out, "rusage_user", &user);
    stat_str(out, "rusage_system", &system);
    stat(
        out,
        "max_connections",
        info.settings.max_connections() as u64,
    );
    stat(out, "curr_connections", clients.current() as u64);
    stat(out, "total_connections", clients.total());
    stat(out, "rejected_connections", clients.rejected());
    stat(out, "connection_structures", clients.current() as u64);
    for (name, value) in shared.stats.snapshot() {
        stat(out, name, value);
    }
    stat(out, "bytes_read", clients.bytes_read());
    stat(out, "bytes_written", clients.bytes_written());
    stat(out, "limit_maxbytes", ks.memory_limit);
    stat(out, "accepting_conns", 1);
    // Strata never stops accepting: past max_connections a client gets an
    // error and is closed instead.
    stat(out, "listen_disabled_num", 0);
    stat(out, "time_in_listen_disabled_us", 0);
    stat(out, "threads", info.settings.threads as u64);
    // Strata's own: how many of those take connections now (`worker_mode`).
    stat(
        out,
        "strata_workers_active",
        info.workers_now().active as u64,
    );
    // Bytes of items (records written and not yet reclaimed), without the
    // index: 0 on an empty server, as memcached's.
    stat(out, "bytes", ks.used_memory.saturating_sub(ks.index_bytes));
    stat(out, "curr_items", ks.items);
    stat(out, "total_items", ks.total_items);
    let (expired_unfetched, evicted_unfetched) = stats_classes::unfetched_totals(shared);
    stat(out, "expired_unfetched", expired_unfetched);
    stat(out, "evicted_unfetched", evicted_unfetched);
    stat(out, "evicted_active", 0);
    stat(out, "evictions", ks.evictions);
    stat(out, "reclaimed", ks.expired);
    persistence(shared, out);
    tiers(shared, out);
}

/// Strata's memory-tier fields (not in memcached): placement, bytes and
/// items per tier, the persistent arena's mode, what the start found.
/// Values are one word (clients split a STAT line on spaces).
fn tiers(shared: &Shared, out: &mut BytesMut) {
    for (field, value) in shared.keyspace.tier_info() {
        if !value.is_empty() {
            stat_str(out, &field, &value.replace(' ', "_"));
        }
    }
}

/// Strata's persistence fields (not in memcached): `persistence`, the
/// log's LSNs and health, checkpoints and the last recovery.
fn persistence(shared: &Shared, out: &mut BytesMut) {
    let Some(durability) = shared.info.durability.as_deref() else {
        return;
    };
    for (field, value) in durability.info() {
        if field == "rdb_last_save_time" {
            stat_str(out, "last_save_time", &value);
        }
        match field.strip_prefix("strata_") {
            Some(name) if !value.is_empty() => stat_str(out, name, &value),
            _ => {}
        }
    }
}

fn settings(shared: &Shared, out: &mut BytesMut) {
    let info = &shared.info;
    let ks = &shared.keyspace;
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    stat(out, "maxbytes", ks.memory_limit());
    stat(out, "maxconns", info.settings.max_connections() as u64);
    stat(out, "idle_timeout", shared.idle_timeout.secs());
    stat(
        out,
        "tcpport",
        info.settings.memcache_port.map_or(0, u64::from),
    );
    stat(out, "udpport", 0);
    stat_str(out, "inter", &info.settings.bind.to_string());
    stat(
        out,
        "verbosity",
        info.settings.verbosity.load(Ordering::Relaxed).into(),
    );
    stat(out, "oldest", 0);
    let evicts = ks.eviction() != strata_kv::EvictionPolicy::NoEviction;
    stat_str(out, "evictions", if evicts { "on" } else { "off" });
    stat_str(out, "eviction_policy", ks.eviction().as_str());
    stat_str(out, "domain_socket", "NULL");
    stat_str(out, "shutdown_command", "no");
    stat(out, "num_threads", info.settings.threads as u64);
    stat_str(out, "stat_key_prefix", ":");
    stat_str(out, "detail_enabled", yes_no(shared.prefixes.enabled()));
    stat_str(out, "cas_enabled", "yes");
    stat_str(out, "binding_protocol", "ascii");
    stat_str(out, "auth_enabled_sasl", "no");
    let ascii_auth = shared.auth.as_ref().map(|a| a.path().display().to_string());
    stat_str(
        out,
        "auth_enabled_ascii",
        ascii_auth.as_deref().unwrap_or("no"),
    );
    stat(out, "item_size_max", ks.max_item_size() as u64);
    stat_str(out, "maxconns_fast", "yes");
    stat_str(out, "flush_enabled", "yes");
    stat_str(out, "dump_enabled", "yes");
    stat_str(out, "hash_algorithm", "xxh3");
    stat_str(out, "temp_lru", "no");
}

fn conns(shared: &Shared, out: &mut BytesMut) {
    for client in shared.clients.list() {
        let id = client.id;
        let idle = client.last_active.lock().elapsed().as_secs();
        stat_str(out, &format!("{id}:addr"), &format!("tcp:{}", client.addr));
        stat_str(
            out,
            &format!("{id}:listen_addr"),
            &format!("tcp:{}", client.local_addr),
        );
        stat_str(out, &format!("{id}:state"), "conn_parse_cmd");
        stat(out, &format!("{id}:secs_since_last_cmd"), idle);
    }
}

/// User and system CPU time of this process as memcached prints them
/// (`seconds.microseconds`), from `/proc/self/stat` (ticks of 1/100 s, the
/// fixed USER_HZ of Linux's proc interface); zeros elsewhere.
fn cpu_times() -> (String, String) {
    let ticks = std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the parenthesised command name; utime and stime are
            // the 14th and 15th fields of the whole line.
            let rest = &s[s.rfind(')')? + 1..];
            let mut fields = rest.split_ascii_whitespace().skip(11);
            let user: u64 = fields.next()?.parse().ok()?;
            let system: u64 = fields.next()?.parse().ok()?;
            Some((user, system))
        });
    let (user, system) = ticks.unwrap_or((0, 0));
    let fmt = |t: u64| format!("{}.{:06}", t / 100, (t % 100) * 10_000);
    (fmt(user), fmt(system))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Report, Error> {
        Stats::parse(&Tokens::split(line.as_bytes()))
            .map(|s| s.report)
            .map_err(|e| e.error)
    }

    #[test]
    fn subcommands() {
        assert_eq!(parse("stats"), Ok(Report::General));
        assert_eq!(parse("stats settings"), Ok(Report::Settings));
        assert_eq!(parse("stats reset"), Ok(Report::Reset));
        assert_eq!(parse("stats detail on"), Ok(Report::DetailOn));
        assert_eq!(parse("stats detail dump"), Ok(Report::DetailDump));
        assert_eq!(parse("stats detail"), Err(Error::StatsDetailUsage));
        assert_eq!(parse("stats detail x"), Err(Error::StatsDetailUsage));
        assert_eq!(parse("stats foo"), Err(Error::UnknownCommand));
        assert_eq!(
            parse("stats cachedump 3 10"),
            Ok(Report::CacheDump {
                class: 3,
                limit: 10
            })
        );
        assert_eq!(parse("stats cachedump 3"), Err(Error::BadCommandLine));
        assert_eq!(parse("stats cachedump x 1"), Err(Error::BadFormat));
        assert_eq!(parse("stats cachedump 1 -1"), Err(Error::BadFormat));
        assert_eq!(parse("stats cachedump 64 1"), Err(Error::IllegalSlabId));
    }

    #[test]
    fn cpu_times_are_formatted_like_memcached() {
        let (user, system) = cpu_times();
        for t in [user, system] {
            let (secs, micros) = t.split_once('.').unwrap();
            assert!(secs.parse::<u64>().is_ok());
            assert_eq!(micros.len(), 6);
        }
    }
}
