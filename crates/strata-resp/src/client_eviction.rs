//! Client eviction, Redis 7's `maxmemory-clients`: when this port's
//! clients together hold at least the limit (buffers, `MULTI` queues,
//! watched keys, subscriptions, waiting messages: [`BufferStats::memory`]),
//! the clients holding most are disconnected, largest first, until the
//! rest hold less. Clients with `CLIENT NO-EVICT on` count towards the
//! total but are never chosen.
//!
//! The limit is off (0), a byte count, or a percentage of `maxmemory`
//! (off while `maxmemory` is 0); a limit under 128 KiB is raised to it, so
//! a bad setting cannot cut every client off, as in Redis.
//!
//! Checked before each command and once per batch of input (Redis checks
//! before each command and before it sleeps): the registry's running total
//! makes the check one load; only a total at the limit walks the clients.
//! A leaf over the client registry and the connections' views.
//!
//! [`BufferStats::memory`]: strata_service::BufferStats::memory

use std::collections::HashMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use strata_service::Clients;

use crate::connection::PeerView;
use crate::number::{parse_i64, parse_memory};

/// The least limit enforced, as Redis's.
const MIN_LIMIT: u64 = 128 * 1024;

/// The `maxmemory-clients` setting and the count of clients it evicted.
#[derive(Debug, Default)]
pub struct ClientEviction {
    /// 0: off; above 0: bytes; below 0: minus a percentage of `maxmemory`
    /// (Redis's encoding).
    setting: AtomicI64,
    evicted: AtomicU64,
}

impl ClientEviction {
    /// Parses a `CONFIG SET maxmemory-clients` value as Redis does: a
    /// memory value (`1mb`), or a percentage from `0%` to `100%`. The
    /// error is Redis's reason text.
    pub fn parse(value: &[u8]) -> Result<i64, &'static str> {
        if let Some(bytes) = parse_memory(value) {
            return i64::try_from(bytes)
                .map_err(|_| "argument must be between -100 and 9223372036854775807 inclusive");
        }
        let percent = match value.split_last() {
            Some((b'%', digits)) if !digits.is_empty() => parse_i64(digits).filter(|&p| p >= 0),
            _ => None,
        };
        match percent {
            Some(p) if p > 100 => Err("percentage argument must be less or equal to 100"),
            Some(p) => Ok(-p),
            None => Err("argument must be a memory or percent value"),
        }
    }

    /// The setting as `CONFIG GET` shows it (`0`, bytes, or `N%`).
    pub fn shown(&self) -> String {
        match self.setting.load(Ordering::Relaxed) {
            p if p < 0 => format!("{}%", -p),
            n => n.to_string(),
        }
    }

    /// False while `maxmemory-clients` is 0 (one relaxed load).
    pub fn is_on(&self) -> bool {
        self.setting.load(Ordering::Relaxed) != 0
    }

    /// Applies a value [`parse`](Self::parse) accepted.
    pub fn set(&self, setting: i64) {
        self.setting.store(setting, Ordering::Relaxed);
    }

    /// Clients evicted since start (`INFO stats`' `evicted_clients`).
    pub fn evicted(&self) -> u64 {
        self.evicted.load(Ordering::Relaxed)
    }

    /// The limit in bytes under `maxmemory`, or `None` when off.
    pub fn limit(&self, maxmemory: u64) -> Option<u64> {
        let bytes = match self.setting.load(Ordering::Relaxed) {
            0 => return None,
            p if p < 0 => {
                if maxmemory == 0 {
                    return None;
                }
                (maxmemory as f64 * (-p) as f64 / 100.0) as u64
            }
            n => n as u64,
        };
        Some(bytes.max(MIN_LIMIT))
    }

    /// Disconnects clients, largest first, until those left (closing ones
    /// aside) hold less than the limit; a no-op while off or under it.
    pub fn enforce(&self, maxmemory: u64, clients: &Clients, peers: &Mutex<PeerMap>) {
        let Some(limit) = self.limit(maxmemory) else {
            return;
        };
        if clients.memory() < limit {
            return;
        }
        // The running total still counts clients closed but not yet gone:
        // the walk counts only those left, so nobody is evicted for them.
        let peers = peers.lock().clone();
        let mut total = 0;
        let mut candidates = Vec::new();
        for client in clients.list() {
            if client.is_closing() {
                continue;
            }
            let bytes = client.buffers.memory();
            total += bytes;
            let protected = peers.get(&client.id).is_some_and(|p| p.no_evict());
            if !protected {
                candidates.push((bytes, client));
            }
        }
        candidates.sort_by_key(|(bytes, _)| std::cmp::Reverse(*bytes));
        for (bytes, client) in candidates {
            if total < limit {
                break;
            }
            tracing::info!(
                client = client.id,
                addr = %client.addr,
                bytes,
                limit,
                "evicting a client: clients hold more than maxmemory-clients"
            );
            client.close();
            total -= bytes;
            self.evicted.fetch_add(1, Ordering::Relaxed);
        }
        if total >= limit {
            tracing::warn!(
                total,
                limit,
                "clients hold more than maxmemory-clients after evicting every evictable one"
            );
        }
    }
}

/// The connections' views by client id (`Shared::peers`).
pub type PeerMap = HashMap<u64, Arc<PeerView>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_show_as_redis() {
        let e = ClientEviction::default();
        for (text, shown) in [
            ("0", "0"),
            ("1mb", "1048576"),
            ("10%", "10%"),
            ("0%", "0"),
            ("100", "100"),
        ] {
            e.set(ClientEviction::parse(text.as_bytes()).unwrap());
            assert_eq!(e.shown(), shown, "{text}");
        }
        assert_eq!(
            ClientEviction::parse(b"101%"),
            Err("percentage argument must be less or equal to 100")
        );
        for bad in ["-1", "abc", "%", "-5%", "1.5%", ""] {
            assert_eq!(
                ClientEviction::parse(bad.as_bytes()),
                Err("argument must be a memory or percent value"),
                "{bad}"
            );
        }
    }

    #[test]
    fn limits_follow_maxmemory_and_never_go_under_128_kib() {
        let e = ClientEviction::default();
        assert_eq!(e.limit(1 << 30), None);
        e.set(-7);
        assert_eq!(e.limit(0), None, "a percentage of no maxmemory is off");
        assert_eq!(e.limit(6 << 20), Some(440_401));
        e.set(100);
        assert_eq!(e.limit(0), Some(MIN_LIMIT));
        e.set(3_000_000);
        assert_eq!(e.limit(0), Some(3_000_000));
    }
}
