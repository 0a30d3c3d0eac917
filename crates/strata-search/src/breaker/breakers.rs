//! [`CircuitBreakers`]: the node's two child breakers and their parent,
//! with their limits (from [`BreakerSettings`]), what each holds, and
//! how often each refused; [`BreakerStats`] as `_nodes/stats` shows them.
//!
//! Below `account` (a [`MemoryAccount`](super::MemoryAccount) reserves on
//! these) and above `kind` and `settings`; it names no account.

use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use super::byte_size;
use super::kind::Breaker;
use super::settings::BreakerSettings;
use crate::error::{Result, SearchError};

#[derive(Debug, Default)]
struct Child {
    used: AtomicU64,
    limit: AtomicU64,
    /// `f64` bits.
    overhead: AtomicU64,
    tripped: AtomicU64,
}

impl Child {
    fn overhead(&self) -> f64 {
        f64::from_bits(self.overhead.load(Ordering::Relaxed))
    }

    /// Bytes counted against the parent: used times the overhead.
    fn weighed(&self) -> u64 {
        (self.used.load(Ordering::Acquire) as f64 * self.overhead()) as u64
    }
}

/// One breaker's figures, as `_nodes/stats/breaker` reports them.
#[derive(Debug, Clone, PartialEq)]
pub struct BreakerStats {
    /// `request`, `in_flight_requests` or `parent`.
    pub name: &'static str,
    /// The limit in bytes.
    pub limit: u64,
    /// Bytes reserved now (times the overhead for children).
    pub estimated: u64,
    /// The overhead factor.
    pub overhead: f64,
    /// How many times it refused a reservation.
    pub tripped: u64,
}

/// The node's breakers: two children and their parent.
#[derive(Debug)]
pub struct CircuitBreakers {
    base: u64,
    children: [Child; 2],
    parent_limit: AtomicU64,
    parent_tripped: AtomicU64,
    /// Held while settings are put in force, so two changes never mix.
    applying: Mutex<()>,
}

impl CircuitBreakers {
    /// Breakers with the default settings over a memory base of `base`
    /// bytes (see [`memory_base`](super::memory_base)).
    pub fn new(base: u64) -> CircuitBreakers {
        let breakers = CircuitBreakers {
            base,
            children: Default::default(),
            parent_limit: AtomicU64::new(0),
            parent_tripped: AtomicU64::new(0),
            applying: Mutex::new(()),
        };
        breakers.apply(BreakerSettings::default());
        breakers
    }

    /// Puts `settings` in force. Reservations already held stay; a lower
    /// limit refuses new ones until enough are released.
    pub fn apply(&self, settings: BreakerSettings) {
        let _applying = self.applying.lock();
        self.parent_limit
            .store(settings.total.resolve(self.base), Ordering::Relaxed);
        for breaker in Breaker::ALL {
            let (limit, overhead) = settings.child(breaker);
            let child = &self.children[breaker.slot()];
            child
                .limit
                .store(limit.resolve(self.base), Ordering::Relaxed);
            child.overhead.store(overhead.to_bits(), Ordering::Relaxed);
        }
    }

    /// Adds `bytes` to `breaker`, or refuses them with a
    /// `circuit_breaking_exception` (the breaker's, or the parent's when
    /// the sum of all children would pass its limit) and adds nothing.
    /// `label` names what the memory is for in the message.
    pub(crate) fn add(&self, breaker: Breaker, bytes: u64, label: &str) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        let child = &self.children[breaker.slot()];
        let limit = child.limit.load(Ordering::Relaxed);
        let overhead = child.overhead();
        let mut used = child.used.load(Ordering::Acquire);
        loop {
            let next = used.saturating_add(bytes);
            let wanted = (next as f64 * overhead) as u64;
            if wanted > limit {
                child.tripped.fetch_add(1, Ordering::Relaxed);
                return Err(SearchError::CircuitBreaking {
                    reason: format!(
                        "[{}] Data too large, data for [{label}] would be [{}], which is larger than the limit of [{}]",
                        breaker.name(),
                        byte_size::both(wanted),
                        byte_size::both(limit)
                    ),
                    bytes_wanted: wanted,
                    bytes_limit: limit,
                });
            }
            match child
                .used
                .compare_exchange_weak(used, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => break,
                Err(now) => used = now,
            }
        }
        // The child took the bytes: now the parent, over every child.
        let total: u64 = self.children.iter().map(Child::weighed).sum();
        let parent_limit = self.parent_limit.load(Ordering::Relaxed);
        if total > parent_limit {
            self.parent_tripped.fetch_add(1, Ordering::Relaxed);
            // As Elasticsearch, the usages include the refused bytes;
            // they are taken back right after.
            let usages: Vec<String> = Breaker::ALL
                .iter()
                .map(|b| {
                    let weighed = self.children[b.slot()].weighed();
                    format!("{}={}", b.name(), byte_size::both(weighed))
                })
                .collect();
            child.used.fetch_sub(bytes, Ordering::AcqRel);
            return Err(SearchError::CircuitBreaking {
                reason: format!(
                    "[parent] Data too large, data for [{label}] would be [{}], which is larger than the limit of [{}], usages [{}]",
                    byte_size::both(total),
                    byte_size::both(parent_limit),
                    usages.join(", ")
                ),
                bytes_wanted: total,
                bytes_limit: parent_limit,
            });
        }
        Ok(())
    }

    /// The refusal of `bytes` more on `breaker` that a component
    /// measuring its own memory against [`room`](Self::room) ran into
    /// (tantivy's aggregation budget): the child's error, counted as a trip.
    pub(crate) fn refusal(&self, breaker: Breaker, bytes: u64, label: &str) -> SearchError {
        let child = &self.children[breaker.slot()];
        child.tripped.fetch_add(1, Ordering::Relaxed);
        let limit = child.limit.load(Ordering::Relaxed);
        let wanted = child
            .weighed()
            .saturating_add((bytes as f64 * child.overhead()) as u64)
            .max(limit.saturating_add(1));
        SearchError::CircuitBreaking {
            reason: format!(
                "[{}] Data too large, data for [{label}] would be [{}], which is larger than the limit of [{}]",
                breaker.name(),
                byte_size::both(wanted),
                byte_size::both(limit)
            ),
            bytes_wanted: wanted,
            bytes_limit: limit,
        }
    }

    /// Gives back `bytes` an earlier [`add`](Self::add) took.
    pub(crate) fn release(&self, breaker: Breaker, bytes: u64) {
        if bytes > 0 {
            self.children[breaker.slot()]
                .used
                .fetch_sub(bytes, Ordering::AcqRel);
        }
    }

    /// Bytes `breaker` could still take now without tripping it or the
    /// parent (before its overhead is applied).
    pub(crate) fn room(&self, breaker: Breaker) -> u64 {
        let child = &self.children[breaker.slot()];
        let overhead = child.overhead().max(f64::MIN_POSITIVE);
        let own = child
            .limit
            .load(Ordering::Relaxed)
            .saturating_sub(child.weighed());
        let total: u64 = self.children.iter().map(Child::weighed).sum();
        let parent = self
            .parent_limit
            .load(Ordering::Relaxed)
            .saturating_sub(total);
        (own.min(parent) as f64 / overhead) as u64
    }

    /// Every child's figures, then the parent's.
    pub fn stats(&self) -> Vec<BreakerStats> {
        let mut out: Vec<BreakerStats> = Breaker::ALL
            .iter()
            .map(|&b| {
                let child = &self.children[b.slot()];
                BreakerStats {
                    name: b.name(),
                    limit: child.limit.load(Ordering::Relaxed),
                    estimated: child.weighed(),
                    overhead: child.overhead(),
                    tripped: child.tripped.load(Ordering::Relaxed),
                }
            })
            .collect();
        out.push(BreakerStats {
            name: "parent",
            limit: self.parent_limit.load(Ordering::Relaxed),
            estimated: self.children.iter().map(Child::weighed).sum(),
            overhead: 1.0,
            tripped: self.parent_tripped.load(Ordering::Relaxed),
        });
        out
    }
}
