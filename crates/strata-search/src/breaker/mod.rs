//! Circuit breakers, as Elasticsearch's: estimates of the memory requests
//! are about to use are added to a breaker before the memory is taken, and
//! a request that would pass a limit is refused with 429
//! `circuit_breaking_exception` instead of growing the process.
//!
//! - the `request` breaker (`indices.breaker.request.limit`, default 60%)
//!   holds what searches, bulk items and documents build while they run:
//!   parsed bodies, query expansions, aggregation results, hits, replies;
//! - the `in_flight_requests` breaker
//!   (`network.breaker.inflight_requests.limit`, default 100%, overhead 2)
//!   holds the HTTP bodies of the requests in flight;
//! - the `parent` (`indices.breaker.total.limit`, default 70%) bounds the
//!   sum of both, each child's bytes counted times its overhead.
//!
//! Percentages are of the node's memory base ([`memory_base`]): what
//! Elasticsearch calls the heap. Strata's parent counts reservations only
//! (Elasticsearch's `indices.breaker.total.use_real_memory: false`, hence
//! the 70% default): the process's resident memory also holds the
//! key-value store and `dram` indices, which are bounded by their own
//! limits, and would trip searches for data the operator chose to keep.
//!
//! Reservations are held by [`MemoryAccount`]s, which give their bytes
//! back when dropped, so a request that fails, trips or panics cannot
//! leak its estimate.
//!
//! - `kind`: [`Breaker`], which child breaker (a leaf).
//! - `breakers`: [`CircuitBreakers`], the node's children and parent.
//! - `account`: [`MemoryAccount`], a request's reservations on one breaker.
//! - `byte_size`: sizes as Elasticsearch prints and parses them.
//! - `estimate`: what JSON bodies cost once parsed.

pub mod account;
mod breakers;
pub mod byte_size;
pub mod estimate;
mod kind;
pub mod settings;

pub use account::MemoryAccount;
pub use breakers::CircuitBreakers;
pub use byte_size::MemorySize;
pub use kind::Breaker;
pub use settings::BreakerSettings;

/// The node's memory base, the "heap" breaker percentages apply to: half
/// the memory of the host (or of its cgroup, when that is smaller), at
/// most 31 GiB, as Elasticsearch sizes its default heap; 1 GiB when
/// neither can be read.
pub fn memory_base() -> u64 {
    let host = host_memory();
    let cgroup = cgroup_memory_limit();
    let total = match (host, cgroup) {
        (Some(h), Some(c)) => h.min(c),
        (h, c) => h.or(c).unwrap_or(2 << 30),
    };
    (total / 2).min(31 << 30)
}

fn host_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// cgroup v2's `memory.max` (or v1's limit) of this process, if set.
fn cgroup_memory_limit() -> Option<u64> {
    [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .filter_map(|p| std::fs::read_to_string(p).ok())
    .filter_map(|t| t.trim().parse::<u64>().ok())
    // v1 reports "no limit" as a huge page-aligned number.
    .find(|&limit| limit < (1 << 60))
}

#[cfg(test)]
mod tests;
