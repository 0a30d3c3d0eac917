//! [`CacheLedger`]: the node's DRAM caches by user (the KV records of the
//! SSD tier, search's file blocks; next, transaction checkpoints and
//! analytics spill) and what each holds, as one report that `INFO cache`
//! and `_nodes/stats` (`strata_cache`) both render, so the two agree.
//!
//! Each user's figures are its own counters in the cache it draws from
//! (`strata_cache::CacheStats`), asked for at report time. A user has a
//! cache of its own (`dram_cache_size`, `search_cache_size`) or a share of
//! the node's one shared cache (`cache_size`, docs/design/tiers.md, *One
//! DRAM cache*); the total budget counts each own budget and the shared
//! one once.

use std::fmt;
use std::sync::{Arc, RwLock};

/// What one user of the DRAM caches holds and how it is served.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheUsage {
    /// Bytes held now.
    pub bytes: u64,
    /// The bytes it may hold.
    pub budget: u64,
    /// Entries (records, blocks) held now.
    pub entries: u64,
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that had to read the device.
    pub misses: u64,
    /// Entries put in.
    pub insertions: u64,
    /// Entries evicted to stay within the budget (by any user's inserts,
    /// when the budget is shared).
    pub evictions: u64,
    /// True when `budget` is the node's shared cache's, which every
    /// shared user reports and the total counts once.
    pub shared: bool,
    /// Bytes of the user's records the shared cache's eviction spares
    /// while another user holds more than its own floor (0: none).
    pub floor: u64,
    /// Bytes of records the user may hold at most: its ceiling in the
    /// shared cache, else its budget.
    pub ceiling: u64,
}

impl From<strata_cache::CacheStats> for CacheUsage {
    fn from(s: strata_cache::CacheStats) -> CacheUsage {
        CacheUsage {
            bytes: s.bytes,
            budget: s.budget,
            entries: s.entries,
            hits: s.hits,
            misses: s.misses,
            insertions: s.insertions,
            evictions: s.evictions,
            shared: s.shared,
            floor: s.floor,
            ceiling: s.ceiling.unwrap_or(s.budget),
        }
    }
}

type Source = Arc<dyn Fn() -> Option<CacheUsage> + Send + Sync>;

/// The registered users of the node's caches. Clones of the `Arc` share
/// it; registering and reporting may happen from any thread.
#[derive(Default)]
pub struct CacheLedger {
    users: RwLock<Vec<(String, Source)>>,
}

/// One report: each present user's figures, in registration order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheReport {
    /// `(user, usage)` pairs.
    pub users: Vec<(String, CacheUsage)>,
}

impl CacheReport {
    /// The sum over users; the shared budget is counted once (`shared`
    /// is set if any user shares it), the floors summed, the ceiling the
    /// total budget.
    pub fn total(&self) -> CacheUsage {
        let shared_budget = self
            .users
            .iter()
            .filter(|(_, u)| u.shared)
            .map(|(_, u)| u.budget)
            .max();
        let sum = self
            .users
            .iter()
            .fold(CacheUsage::default(), |sum, (_, u)| CacheUsage {
                bytes: sum.bytes + u.bytes,
                budget: sum.budget + if u.shared { 0 } else { u.budget },
                entries: sum.entries + u.entries,
                hits: sum.hits + u.hits,
                misses: sum.misses + u.misses,
                insertions: sum.insertions + u.insertions,
                evictions: sum.evictions + u.evictions,
                shared: false,
                floor: sum.floor + u.floor,
                ceiling: 0,
            });
        let budget = sum.budget + shared_budget.unwrap_or(0);
        CacheUsage {
            budget,
            shared: shared_budget.is_some(),
            ceiling: budget,
            ..sum
        }
    }
}

impl CacheLedger {
    /// A ledger with no users.
    pub fn new() -> CacheLedger {
        CacheLedger::default()
    }

    /// Adds (or replaces) the user `name`, whose figures `usage` gives at
    /// report time; `None` leaves it out of that report (a cache not in
    /// use, such as the record cache without the SSD tier). `usage` must
    /// be cheap and must not call back into the ledger.
    pub fn register(
        &self,
        name: impl Into<String>,
        usage: impl Fn() -> Option<CacheUsage> + Send + Sync + 'static,
    ) {
        let name = name.into();
        let mut users = self.users.write().unwrap_or_else(|e| e.into_inner());
        users.retain(|(n, _)| *n != name);
        users.push((name, Arc::new(usage)));
    }

    /// Every present user's figures now.
    pub fn report(&self) -> CacheReport {
        let sources: Vec<(String, Source)> =
            self.users.read().unwrap_or_else(|e| e.into_inner()).clone();
        let users = sources
            .into_iter()
            .filter_map(|(name, usage)| usage().map(|u| (name, u)))
            .collect();
        CacheReport { users }
    }
}

impl fmt::Debug for CacheLedger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let users = self.users.read().unwrap_or_else(|e| e.into_inner());
        let names: Vec<&str> = users.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("CacheLedger")
            .field("users", &names)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_present_users_in_order_and_sums_them() {
        let ledger = CacheLedger::new();
        let usage = |bytes| CacheUsage {
            bytes,
            budget: 100,
            entries: 1,
            hits: 2,
            misses: 3,
            ..CacheUsage::default()
        };
        ledger.register("kv_records", move || Some(usage(10)));
        ledger.register("absent", || None);
        ledger.register("search_blocks", move || Some(usage(20)));
        ledger.register("kv_records", move || Some(usage(11)));
        let report = ledger.report();
        let names: Vec<&str> = report.users.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["search_blocks", "kv_records"]);
        let total = report.total();
        assert_eq!((total.bytes, total.budget, total.hits), (31, 200, 4));
        assert_eq!(CacheLedger::new().report().total(), CacheUsage::default());
    }

    #[test]
    fn a_shared_budget_is_counted_once() {
        let ledger = CacheLedger::new();
        let shared = |bytes, evictions| CacheUsage {
            bytes,
            budget: 1000,
            evictions,
            shared: true,
            ..CacheUsage::default()
        };
        ledger.register("kv_records", move || Some(shared(300, 4)));
        ledger.register("search_blocks", move || Some(shared(500, 5)));
        let total = ledger.report().total();
        assert_eq!((total.bytes, total.budget, total.evictions), (800, 1000, 9));
        assert!(total.shared);
        ledger.register("other", || {
            Some(CacheUsage {
                budget: 50,
                ..CacheUsage::default()
            })
        });
        assert_eq!(ledger.report().total().budget, 1050);
    }

    #[test]
    fn a_users_floor_and_ceiling_come_from_its_cache_counters() {
        let stats = strata_cache::CacheStats {
            budget: 1000,
            floor: 100,
            ceiling: Some(600),
            shared: true,
            ..strata_cache::CacheStats::default()
        };
        let usage = CacheUsage::from(stats);
        assert_eq!((usage.floor, usage.ceiling), (100, 600));
        let own = CacheUsage::from(strata_cache::CacheStats {
            budget: 1000,
            ..strata_cache::CacheStats::default()
        });
        assert_eq!(
            (own.floor, own.ceiling),
            (0, 1000),
            "no ceiling: the budget"
        );
    }
}
