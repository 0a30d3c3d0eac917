//! What a worker keeps between transactions and lends to each one
//! ([`WorkerState`]): its buffers, ids, garbage candidates and counters
//! ([`WorkerStats`]). Below `txn` and `worker`, which both use it.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::AbortCause;
use crate::shared::Shared;
use crate::storage::garbage::Candidates;
use crate::txn::access::AccessSet;

/// Counters of one worker.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Committed transactions.
    pub commits: u64,
    /// Aborted attempts by cause (indexed by `AbortCause as usize`).
    pub aborts: [u64; 3],
}

impl WorkerStats {
    /// Aborted attempts of one cause.
    pub fn aborts_of(&self, cause: AbortCause) -> u64 {
        self.aborts[cause as usize]
    }

    /// Every aborted attempt.
    pub fn total_aborts(&self) -> u64 {
        self.aborts.iter().sum()
    }

    /// Adds another worker's counters.
    pub fn add(&mut self, other: &WorkerStats) {
        self.commits += other.commits;
        for (a, b) in self.aborts.iter_mut().zip(other.aborts) {
            *a += b;
        }
    }
}

/// The next worker's process-wide id (0 is no worker: see `ReadOrigin`).
static NEXT_WORKER_ID: AtomicU64 = AtomicU64::new(1);

/// Per-worker state a transaction borrows.
pub(crate) struct WorkerState {
    pub slot: usize,
    /// Unique among every worker of every database in the process.
    pub id: u64,
    pub set: AccessSet,
    pub order: Vec<u32>,
    pub key: Vec<u8>,
    pub scratch: Vec<u8>,
    pub last_tid: u64,
    /// Counts transactions begun; with `id`, names a transaction (rows
    /// remember which one read them).
    pub serial: u64,
    pub candidates: Candidates,
    pub stats: WorkerStats,
    /// The encoded log record of the committing transaction.
    pub log_buf: Vec<u8>,
    commits_since_collect: u32,
}

impl WorkerState {
    /// Fresh state for the worker of epoch slot `slot`, with a new
    /// process-wide id.
    pub fn new(slot: usize) -> WorkerState {
        WorkerState {
            slot,
            id: NEXT_WORKER_ID.fetch_add(1, Ordering::Relaxed),
            set: AccessSet::default(),
            order: Vec::new(),
            key: Vec::new(),
            scratch: Vec::new(),
            last_tid: 0,
            serial: 0,
            candidates: Candidates::default(),
            stats: WorkerStats::default(),
            log_buf: Vec::new(),
            commits_since_collect: 0,
        }
    }

    /// Housekeeping after a commit: every so often, collect garbage.
    pub fn after_commit(&mut self, shared: &Shared) {
        self.commits_since_collect += 1;
        if self.commits_since_collect >= 256 && self.candidates.len() > 0 {
            self.commits_since_collect = 0;
            self.candidates
                .collect(&shared.tables, &shared.epochs, &shared.retired);
        }
    }
}
