//! `MEMORY STATS` and `MEMORY DOCTOR`: Redis's `getMemoryOverheadData`
//! and `getMemoryDoctorReport` over Strata's figures.
//!
//! How Strata's figures map onto Redis's:
//! - `total.allocated` is `INFO`'s `used_memory`: what the keyspace holds
//!   against `maxmemory` (records as written, live and superseded ones not
//!   yet compacted, and index slots). `peak.allocated` is the highest it
//!   has been (the engine tracks it as shards publish their usage);
//!   `startup.allocated` what an empty keyspace holds (each shard's index
//!   at its smallest), as Redis's is measured before loading data.
//! - The keyspace's overhead is its index: `db.0`'s
//!   `overhead.hashtable.main` is the index past its startup size
//!   (expiries live in the records: no `expires` table; no cluster: no
//!   slot-to-keys map). `overhead.total` is the overhead inside
//!   `total.allocated` (startup and index), so `dataset.bytes` (total
//!   less overhead) is exactly the arena's written record bytes.
//! - `clients.normal` (every client's `tot-mem`), `lua.caches` and
//!   `functions.caches` are the front end's own memory, measured apart
//!   from the keyspace: reported, but, unlike in Redis, not part of
//!   `total.allocated` nor of `overhead.total`.
//! - No replication, cluster links or AOF buffer of this front end's:
//!   `replication.backlog`, `clients.slaves`, `cluster.links` and
//!   `aof.buffer` are 0, as Redis reports them when the feature is off
//!   (the command log's buffer belongs to the persistence layer, which
//!   does not publish its size to front ends).
//! - The allocator's own figures are not read (the crate does not know
//!   which allocator the process runs on, and the binary's jemalloc is
//!   built without statistics): the `allocator.*`, `allocator-*` and
//!   `rss-overhead.*` fields take Redis's fallback for an allocator
//!   without statistics (allocated = `total.allocated`, active = resident
//!   = the process's resident set).

use crate::client_line::client_memory;
use crate::process::resident_bytes;
use crate::shared::Shared;
use crate::writer::ReplyWriter;

/// What an instance under this is "empty" to the doctor (Redis's 5 MiB).
const EMPTY_BELOW: u64 = 5 << 20;
/// Average client memory past which the doctor warns (Redis's 200 KiB).
const BIG_CLIENT: u64 = 200 << 10;
/// Cached scripts past which the doctor warns.
const MANY_SCRIPTS: usize = 1000;

/// Redis's `redisMemOverhead`, from Strata's figures.
#[derive(Debug, Clone, PartialEq)]
pub struct Overhead {
    pub peak_allocated: u64,
    pub total_allocated: u64,
    pub startup_allocated: u64,
    pub clients_normal: u64,
    pub lua_caches: u64,
    pub functions_caches: u64,
    /// The index past its startup size (`db.0` `overhead.hashtable.main`).
    pub hashtable_main: u64,
    pub overhead_total: u64,
    pub total_keys: u64,
    pub bytes_per_key: u64,
    pub dataset: u64,
    pub dataset_perc: f32,
    pub peak_perc: f32,
    /// The process's resident set (0 where it cannot be read).
    pub rss: u64,
    /// Connected clients and cached scripts (for the doctor).
    pub clients: u64,
    pub scripts: usize,
}

impl Overhead {
    /// The figures now.
    pub fn measure(shared: &Shared) -> Self {
        let ks = shared.keyspace.stats();
        let total = ks.used_memory;
        let startup = ks.used_memory_startup.min(total);
        let hashtable_main = ks.index_bytes.saturating_sub(startup);
        let overhead_total = startup + hashtable_main;
        let peers = shared.peers.lock().clone();
        let clients = shared.clients.list();
        let clients_normal = clients
            .iter()
            .map(|c| client_memory(c, peers.get(&c.id).map(|p| &**p)))
            .sum();
        let (scripts, lua_caches) = shared.scripts.cached();
        // Redis divides by 1 when nothing was added since start.
        let net_usage = total.checked_sub(startup).filter(|&n| n > 0).unwrap_or(1);
        let dataset = total.saturating_sub(overhead_total);
        let peak = ks.used_memory_peak.max(total);
        Self {
            peak_allocated: peak,
            total_allocated: total,
            startup_allocated: startup,
            clients_normal,
            lua_caches: lua_caches as u64,
            functions_caches: shared.functions.bytes() as u64,
            hashtable_main,
            overhead_total,
            total_keys: ks.items,
            bytes_per_key: net_usage.checked_div(ks.items).unwrap_or(0),
            dataset,
            dataset_perc: dataset as f32 * 100.0 / net_usage as f32,
            peak_perc: total as f32 * 100.0 / peak.max(1) as f32,
            rss: resident_bytes().unwrap_or(0),
            clients: clients.len() as u64,
            scripts,
        }
    }

    /// `MEMORY STATS`, in Redis's order.
    pub fn write_stats(&self, out: &mut ReplyWriter<'_>) {
        let dbs = usize::from(self.total_keys > 0);
        out.map(27 + dbs);
        let int = |out: &mut ReplyWriter<'_>, name: &str, n: u64| {
            out.bulk(name.as_bytes());
            out.integer(i64::try_from(n).unwrap_or(i64::MAX));
        };
        let signed = |out: &mut ReplyWriter<'_>, name: &str, n: i64| {
            out.bulk(name.as_bytes());
            out.integer(n);
        };
        // Redis's ratios are `float`s, written as the double they widen to.
        let ratio = |out: &mut ReplyWriter<'_>, name: &str, r: f32| {
            out.bulk(name.as_bytes());
            out.double(f64::from(r));
        };
        int(out, "peak.allocated", self.peak_allocated);
        int(out, "total.allocated", self.total_allocated);
        int(out, "startup.allocated", self.startup_allocated);
        int(out, "replication.backlog", 0);
        int(out, "clients.slaves", 0);
        int(out, "clients.normal", self.clients_normal);
        int(out, "cluster.links", 0);
        int(out, "aof.buffer", 0);
        int(out, "lua.caches", self.lua_caches);
        int(out, "functions.caches", self.functions_caches);
        if dbs > 0 {
            out.bulk(b"db.0");
            out.map(3);
            int(out, "overhead.hashtable.main", self.hashtable_main);
            int(out, "overhead.hashtable.expires", 0);
            int(out, "overhead.hashtable.slot-to-keys", 0);
        }
        int(out, "overhead.total", self.overhead_total);
        int(out, "keys.count", self.total_keys);
        int(out, "keys.bytes-per-key", self.bytes_per_key);
        int(out, "dataset.bytes", self.dataset);
        ratio(out, "dataset.percentage", self.dataset_perc);
        ratio(out, "peak.percentage", self.peak_perc);
        // No allocator statistics: Redis's fallback, allocated being what
        // the server counts and active and resident the resident set.
        let (allocated, resident) = (self.total_allocated, self.rss);
        int(out, "allocator.allocated", allocated);
        int(out, "allocator.active", resident);
        int(out, "allocator.resident", resident);
        ratio(
            out,
            "allocator-fragmentation.ratio",
            quotient(resident, allocated),
        );
        signed(
            out,
            "allocator-fragmentation.bytes",
            difference(resident, allocated),
        );
        ratio(out, "allocator-rss.ratio", quotient(resident, resident));
        signed(out, "allocator-rss.bytes", 0);
        ratio(out, "rss-overhead.ratio", quotient(self.rss, resident));
        signed(out, "rss-overhead.bytes", difference(self.rss, resident));
        ratio(
            out,
            "fragmentation",
            quotient(self.rss, self.total_allocated),
        );
        signed(
            out,
            "fragmentation.bytes",
            difference(self.rss, self.total_allocated),
        );
    }

    /// `MEMORY DOCTOR`: Redis's report for the cases Strata's figures can
    /// judge: an empty instance, a past peak over 150% of the memory used
    /// now, clients holding over 200 KiB each on average, over 1,000
    /// cached scripts. Redis's fragmentation and RSS warnings compare the
    /// resident set with everything the allocator handed out; Strata's
    /// `total.allocated` counts the keyspace only (the other front ends,
    /// Lua states and thread stacks are resident too), so their ratio is
    /// not fragmentation and they are not judged. No replicas: never the
    /// replica-buffer warning.
    pub fn doctor(&self) -> String {
        let mut issues: Vec<&str> = Vec::new();
        if self.total_allocated < EMPTY_BELOW {
            return EMPTY.into();
        }
        if self.peak_allocated as f32 / self.total_allocated as f32 > 1.5 {
            issues.push(BIG_PEAK);
        }
        if self.clients_normal / self.clients.max(1) > BIG_CLIENT {
            issues.push(BIG_CLIENT_BUFFERS);
        }
        if self.scripts > MANY_SCRIPTS {
            issues.push(MANY_SCRIPTS_TEXT);
        }
        if issues.is_empty() {
            return ALL_FINE.into();
        }
        let mut report = String::from(
            "Sam, I detected a few issues in this Redis instance memory implants:\n\n",
        );
        for issue in issues {
            report.push_str(issue);
            report.push_str("\n\n");
        }
        report.push_str("I'm here to keep you safe, Sam. I want to help you.\n");
        report
    }
}

/// `a / b` as Redis's `float`s divide (0 when `b` is 0 rather than a
/// division by zero).
fn quotient(a: u64, b: u64) -> f32 {
    match b {
        0 => 0.0,
        b => a as f32 / b as f32,
    }
}

/// `a - b` as Redis reports it (a `size_t` difference read as signed).
fn difference(a: u64, b: u64) -> i64 {
    a.wrapping_sub(b) as i64
}

const ALL_FINE: &str = "Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs on this base.\n";
const EMPTY: &str = "Hi Sam, this instance is empty or is using very little memory, my issues detector can't be used in these conditions. Please, leave for your mission on Earth and fill it with some data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n";
const BIG_PEAK: &str = " * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.";
const BIG_CLIENT_BUFFERS: &str = " * Big client buffers: The clients output buffers in this instance are greater than 200K per client (on average). This may result from different causes, like Pub/Sub clients subscribed to channels bot not receiving data fast enough, so that data piles on the Redis instance output buffer, or clients sending commands with large replies or very large sequences of commands in the same pipeline. Please use the CLIENT LIST command in order to investigate the issue if it causes problems in your instance, or to understand better why certain clients are using a big amount of memory.";
const MANY_SCRIPTS_TEXT: &str = " * Many scripts: There seem to be many cached scripts in this instance (more than 1000). This may be because scripts are generated and `EVAL`ed, instead of being parameterized (with KEYS and ARGV), `SCRIPT LOAD`ed and `EVALSHA`ed. Unless `SCRIPT FLUSH` is called periodically, the scripts' caches may end up consuming most of your memory.";

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(total: u64, peak: u64) -> Overhead {
        Overhead {
            peak_allocated: peak,
            total_allocated: total,
            startup_allocated: 1000,
            clients_normal: 0,
            lua_caches: 0,
            functions_caches: 0,
            hashtable_main: 0,
            overhead_total: 1000,
            total_keys: 1,
            bytes_per_key: 0,
            dataset: total - 1000,
            dataset_perc: 0.0,
            peak_perc: 0.0,
            rss: 0,
            clients: 1,
            scripts: 0,
        }
    }

    #[test]
    fn the_doctor_judges_what_it_can() {
        assert_eq!(figures(4 << 20, 100 << 20).doctor(), EMPTY);
        assert_eq!(figures(6 << 20, 9 << 20).doctor(), ALL_FINE);
        let report = figures(6 << 20, 10 << 20).doctor();
        assert!(
            report.starts_with("Sam, I detected a few issues"),
            "{report}"
        );
        assert!(report.contains(BIG_PEAK));
        assert!(report.ends_with("\n\nI'm here to keep you safe, Sam. I want to help you.\n"));
        let mut busy = figures(6 << 20, 6 << 20);
        busy.clients = 2;
        busy.clients_normal = 2 * (200 << 10) + 2;
        busy.scripts = 1001;
        let report = busy.doctor();
        assert!(!report.contains(BIG_PEAK));
        assert!(report.contains(&format!("{BIG_CLIENT_BUFFERS}\n\n{MANY_SCRIPTS_TEXT}\n\n")));
    }

    #[test]
    fn ratios_are_redis_floats() {
        assert_eq!(quotient(1, 0), 0.0);
        assert_eq!(f64::from(quotient(3, 2)), 1.5);
        assert_eq!(difference(1, 3), -2);
    }
}
