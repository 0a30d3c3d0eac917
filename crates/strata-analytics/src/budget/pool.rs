//! [`BudgetPool`]: the one DataFusion memory pool of a job, bound to the
//! operator share of its DRAM budget ([`BudgetPlan::pool`](super::BudgetPlan)).
//!
//! Every operator (aggregation, sort, repartition, joins), the cached
//! dataset's resident part and the SSD tier's I/O buffers reserve from
//! it. Division among spilling operators is DataFusion's fair one
//! ([`FairSpillPool`]: each spiller may hold its fraction of what
//! non-spilling consumers left); this wrapper adds what a job reports: the
//! peak reserved and how often a reservation was refused (each refusal
//! makes an operator spill, the cached dataset stop growing, or the SSD
//! tier's read-ahead wait for a read to finish).

use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use datafusion::common::Result;
use datafusion::execution::memory_pool::{
    FairSpillPool, MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation, TrackConsumersPool,
    UnboundedMemoryPool,
};

/// A job's memory pool: bounded by the budget, or unbounded (no budget:
/// the comparison run that the kernel confines instead).
#[derive(Debug)]
pub struct BudgetPool {
    inner: Inner,
    peak: AtomicUsize,
    refusals: AtomicU64,
}

#[derive(Debug)]
enum Inner {
    /// Tracked: a refusal names the largest consumers.
    Bounded(TrackConsumersPool<FairSpillPool>),
    Unbounded(UnboundedMemoryPool),
}

impl Inner {
    fn pool(&self) -> &dyn MemoryPool {
        match self {
            Inner::Bounded(pool) => pool,
            Inner::Unbounded(pool) => pool,
        }
    }
}

impl BudgetPool {
    /// A pool of `limit` bytes; `None`: unbounded.
    pub fn new(limit: Option<usize>) -> BudgetPool {
        let inner = match limit {
            Some(limit) => Inner::Bounded(TrackConsumersPool::new(
                FairSpillPool::new(limit),
                std::num::NonZeroUsize::new(5).expect("5 is not zero"),
            )),
            None => Inner::Unbounded(UnboundedMemoryPool::default()),
        };
        BudgetPool {
            inner,
            peak: AtomicUsize::new(0),
            refusals: AtomicU64::new(0),
        }
    }

    /// The most ever reserved at once.
    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// Reservations refused so far.
    pub fn refusals(&self) -> u64 {
        self.refusals.load(Ordering::Relaxed)
    }

    /// The limit, if bounded.
    pub fn limit(&self) -> Option<usize> {
        match self.memory_limit() {
            MemoryLimit::Finite(limit) => Some(limit),
            _ => None,
        }
    }

    fn note_peak(&self) {
        self.peak
            .fetch_max(self.inner.pool().reserved(), Ordering::Relaxed);
    }
}

impl MemoryPool for BudgetPool {
    fn name(&self) -> &str {
        "strata-dram-budget"
    }

    fn register(&self, consumer: &MemoryConsumer) {
        self.inner.pool().register(consumer)
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        self.inner.pool().unregister(consumer)
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        self.inner.pool().grow(reservation, additional);
        self.note_peak();
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.inner.pool().shrink(reservation, shrink)
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        match self.inner.pool().try_grow(reservation, additional) {
            Ok(()) => {
                self.note_peak();
                Ok(())
            }
            Err(e) => {
                self.refusals.fetch_add(1, Ordering::Relaxed);
                Err(e)
            }
        }
    }

    fn reserved(&self) -> usize {
        self.inner.pool().reserved()
    }

    fn memory_limit(&self) -> MemoryLimit {
        match &self.inner {
            Inner::Bounded(pool) => pool.memory_limit(),
            Inner::Unbounded(_) => MemoryLimit::Infinite,
        }
    }
}

impl fmt::Display for BudgetPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} over {}", self.name(), self.inner.pool())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn bounded_pool_refuses_past_its_limit_and_records_the_peak() {
        let pool: Arc<dyn MemoryPool> = Arc::new(BudgetPool::new(Some(1000)));
        let a = MemoryConsumer::new("a").register(&pool);
        a.try_grow(600).unwrap();
        let b = MemoryConsumer::new("b").register(&pool);
        assert!(b.try_grow(500).is_err());
        b.try_grow(400).unwrap();
        drop(a);
        let budget = pool.downcast_ref::<BudgetPool>().unwrap();
        assert_eq!(budget.peak(), 1000);
        assert_eq!(budget.refusals(), 1);
        assert_eq!(pool.reserved(), 400);
        assert_eq!(budget.limit(), Some(1000));

        let unbounded = BudgetPool::new(None);
        assert_eq!(unbounded.limit(), None);
    }
}
