//! [`Worker`]: one thread's handle on the database: its epoch slot, its
//! reusable transaction buffers, its statistics and (with a log) its log
//! stream. [`Worker::run`] retries conflicts with a randomized back-off.

use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::cc::ConcurrencyControl;
use crate::error::{AbortCause, TxnError};
use crate::shared::Shared;
use crate::txn::{Commit, Transaction};

mod state;

pub(crate) use state::WorkerState;
pub use state::WorkerStats;

/// How [`Worker::run`] waits before retrying an aborted attempt: a random
/// time in `[0, base * 2^(retries-1))`, capped, as DBx1000's abort buffer
/// delays a restarted transaction by a random penalty.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    /// The first retry's bound.
    pub base: Duration,
    /// The longest wait.
    pub max: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            base: Duration::from_micros(2),
            max: Duration::from_micros(200),
        }
    }
}

/// One thread's handle; create one per thread with
/// [`Database::worker`](crate::Database::worker).
pub struct Worker<C: ConcurrencyControl> {
    shared: Arc<Shared>,
    state: WorkerState,
    backoff: Backoff,
    rng: SmallRng,
    _cc: PhantomData<C>,
}

impl<C: ConcurrencyControl> Worker<C> {
    pub(crate) fn new(shared: Arc<Shared>, slot: usize) -> Worker<C> {
        Worker {
            shared,
            state: WorkerState::new(slot),
            backoff: Backoff::default(),
            rng: SmallRng::seed_from_u64(0x5eed ^ slot as u64),
            _cc: PhantomData,
        }
    }

    /// Begins a transaction.
    pub fn begin(&mut self) -> Transaction<'_, C> {
        self.state.set.clear();
        self.state.serial += 1;
        self.shared.epochs.enter(self.state.slot);
        Transaction {
            shared: &self.shared,
            st: &mut self.state,
            finished: false,
            _cc: PhantomData,
        }
    }

    /// Runs `body` in a transaction and commits it, retrying after a
    /// randomized back-off while attempts abort on conflicts. Any other
    /// error (including [`TxnError::UserAbort`], which rolls back) is
    /// returned, unless what the attempt read was already stale (then the
    /// error came from an inconsistent view, and the attempt is retried).
    pub fn run<T>(
        &mut self,
        mut body: impl FnMut(&mut Transaction<'_, C>) -> Result<T, TxnError>,
    ) -> Result<(T, Commit), TxnError> {
        let mut retries = 0u32;
        loop {
            let outcome = {
                let mut txn = self.begin();
                match body(&mut txn) {
                    Ok(value) => txn.commit().map(|commit| (value, commit)),
                    Err(err) => match err.conflict() {
                        Some(cause) => {
                            txn.abort(cause);
                            Err(err)
                        }
                        // An optimistic attempt may fail on reads that were
                        // already stale: that is a conflict, not the answer.
                        None => match txn.check_reads() {
                            Err(cause) => {
                                txn.abort(cause);
                                Err(TxnError::Conflict(cause))
                            }
                            Ok(()) => {
                                txn.abort(AbortCause::UserRollback);
                                Err(err)
                            }
                        },
                    },
                }
            };
            match outcome {
                Err(TxnError::Conflict(_)) => {
                    retries += 1;
                    self.back_off(retries);
                }
                other => return other,
            }
        }
    }

    fn back_off(&mut self, retries: u32) {
        let bound = self
            .backoff
            .base
            .saturating_mul(1 << retries.min(16).saturating_sub(1))
            .min(self.backoff.max);
        let wait = self.rng.gen_range(Duration::ZERO..=bound);
        let until = std::time::Instant::now() + wait;
        while std::time::Instant::now() < until {
            std::hint::spin_loop();
        }
    }

    /// Sets the retry back-off.
    pub fn set_backoff(&mut self, backoff: Backoff) {
        self.backoff = backoff;
    }

    /// This worker's counters.
    pub fn stats(&self) -> WorkerStats {
        self.state.stats
    }

    /// Resets this worker's counters (after a warm-up).
    pub fn reset_stats(&mut self) {
        self.state.stats = WorkerStats::default();
    }

    /// The worker's slot (and log stream) number.
    pub fn slot(&self) -> usize {
        self.state.slot
    }
}

impl<C: ConcurrencyControl> Drop for Worker<C> {
    fn drop(&mut self) {
        self.state.candidates.collect(
            &self.shared.tables,
            &self.shared.epochs,
            &self.shared.retired,
        );
        self.shared.epochs.release(self.state.slot);
    }
}
