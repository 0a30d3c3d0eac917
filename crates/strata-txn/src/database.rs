//! [`Database`]: the tables, the epochs and the epoch thread; hands out
//! [`Worker`]s.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use parking_lot::Mutex;

use crate::cc::ConcurrencyControl;
use crate::checkpoint::{self, CheckpointReport};
use crate::epoch::Epochs;
use crate::error::TxnError;
use crate::log::streams::LogSet;
use crate::log::{LogDevice, LogStats};
use crate::options::Options;
use crate::recovery::{self, RecoveryReport};
use crate::row::Row;
use crate::schema::TableSchema;
use crate::shared::{IndexId, Shared, TableId, INTERNAL_SLOTS};
use crate::storage::garbage::Retired;
use crate::storage::Table;
use crate::worker::Worker;

/// An in-memory database of typed tables under concurrency control `C`.
pub struct Database<C: ConcurrencyControl> {
    shared: Arc<Shared>,
    epoch_thread: Option<JoinHandle<()>>,
    recovery: Option<RecoveryReport>,
    _cc: PhantomData<C>,
}

impl<C: ConcurrencyControl> Database<C> {
    /// Creates the tables (names must be distinct) and starts the epoch
    /// thread.
    pub fn open(options: Options, tables: Vec<TableSchema>) -> Result<Database<C>, TxnError> {
        if options.max_workers == 0 {
            return Err(TxnError::TooManyWorkers(0));
        }
        let mut names = HashMap::new();
        let mut built = Vec::with_capacity(tables.len());
        for (i, schema) in tables.into_iter().enumerate() {
            if names.insert(schema.name.clone(), i as u32).is_some() {
                return Err(TxnError::Schema {
                    table: schema.name.clone(),
                    reason: "two tables have this name".into(),
                });
            }
            built.push(Table::new(
                i as u32,
                Arc::new(schema),
                options.capacity_hint,
            ));
        }
        let root = options.log.root()?;
        let pmem = matches!(options.log, LogDevice::Pmem { .. });
        let parts = options.checkpoint_parts.clamp(1, INTERNAL_SLOTS);
        let (log, recovery, first_epoch, next_checkpoint) = match root {
            None => (None, None, 1, 1),
            Some(root) => {
                let recovered = recovery::recover(
                    &root,
                    &built,
                    options.max_workers,
                    pmem,
                    options.recovery_threads.max(1),
                )?;
                let durable = recovered.report.durable_epoch;
                let log = LogSet::open(root, recovered.streams, durable);
                (
                    Some(log),
                    Some(recovered.report),
                    durable + 1,
                    recovered.next_checkpoint,
                )
            }
        };
        let shared = Arc::new(Shared {
            tables: built,
            names,
            epochs: Epochs::new(options.max_workers + INTERNAL_SLOTS, first_epoch),
            retired: Retired::default(),
            log,
            checkpoints: Mutex::new(next_checkpoint),
            checkpoint_parts: parts,
            stop: AtomicBool::new(false),
        });
        if let (Some(log), Some(report)) = (&shared.log, &recovery) {
            // Start from a checkpoint of what was recovered, so that records
            // the log holds beyond the durable epoch (never acknowledged)
            // can never be replayed after new ones.
            let durable = report.durable_epoch;
            let mut next = shared.checkpoints.lock();
            checkpoint::write(&shared, log, *next, parts, &|_| Ok(durable))?;
            *next += 1;
        }
        let epoch_thread = match options.epoch_interval {
            None => None,
            Some(interval) => {
                let shared = Arc::clone(&shared);
                let handle = std::thread::Builder::new()
                    .name("strata-txn-epoch".into())
                    .spawn(move || epoch_loop(&shared, interval))
                    .map_err(|e| {
                        TxnError::storage(format!("cannot start the epoch thread: {e}"))
                    })?;
                Some(handle)
            }
        };
        Ok(Database {
            shared,
            epoch_thread,
            recovery,
            _cc: PhantomData,
        })
    }

    /// The id of table `name`.
    pub fn table(&self, name: &str) -> Result<TableId, TxnError> {
        self.shared
            .names
            .get(name)
            .map(|&i| TableId(i))
            .ok_or_else(|| TxnError::UnknownTable(name.to_owned()))
    }

    /// The id of index `name` of `table`.
    pub fn index(&self, table: TableId, name: &str) -> Result<IndexId, TxnError> {
        self.shared.index(table, name)
    }

    /// The schema of `table`.
    pub fn schema(&self, table: TableId) -> Result<&TableSchema, TxnError> {
        Ok(&self.shared.table(table)?.schema)
    }

    /// An empty row buffer for `table`.
    pub fn new_row(&self, table: TableId) -> Result<Row, TxnError> {
        let t = self.shared.table(table)?;
        Ok(Row::new(t.id, Arc::clone(&t.schema)))
    }

    /// A handle for one thread; [`TxnError::TooManyWorkers`] when every
    /// slot is taken.
    pub fn worker(&self) -> Result<Worker<C>, TxnError> {
        let workers = self.shared.epochs.slots() - INTERNAL_SLOTS;
        let slot = self
            .shared
            .epochs
            .claim()
            .filter(|&s| s < workers)
            .ok_or(TxnError::TooManyWorkers(workers))?;
        Ok(Worker::new(Arc::clone(&self.shared), slot))
    }

    /// Advances the global epoch if every active worker has seen it, and
    /// returns it.
    pub fn advance_epoch(&self) -> u64 {
        self.shared.epochs.try_advance()
    }

    /// The global epoch.
    pub fn epoch(&self) -> u64 {
        self.shared.epochs.global()
    }

    /// The durable epoch: every commit of this epoch or before survives a
    /// crash (`u64::MAX` without a log, where nothing is waited for).
    pub fn durable_epoch(&self) -> u64 {
        self.shared
            .log
            .as_ref()
            .map_or(u64::MAX, |log| log.durable())
    }

    /// Blocks until `commit` is durable (at once without a log); an error
    /// if the log failed first ([`TxnError::NotDurable`]: it never will
    /// be), or while the log device is full ([`TxnError::LogFull`]: not
    /// durable yet; it becomes so once space is freed, unless the process
    /// stops first).
    pub fn wait_durable(&self, commit: &crate::txn::Commit) -> Result<(), TxnError> {
        match &self.shared.log {
            None => Ok(()),
            Some(log) => log.wait(commit.epoch),
        }
    }

    /// Why the log failed, once it has (commits are refused from then on).
    pub fn log_failure(&self) -> Option<String> {
        self.shared.log.as_ref()?.failure().map(|f| f.to_string())
    }

    /// The log's counters.
    pub fn log_stats(&self) -> Option<LogStats> {
        self.shared.log.as_ref().map(|log| log.stats())
    }

    /// What recovery did at open (with a log).
    pub fn recovery_report(&self) -> Option<&RecoveryReport> {
        self.recovery.as_ref()
    }

    /// Writes a checkpoint while transactions run, then removes older ones
    /// and the log before it (see the `checkpoint` module). Needs a log.
    pub fn checkpoint(&self) -> Result<CheckpointReport, TxnError> {
        let shared = &*self.shared;
        let log = shared
            .log
            .as_ref()
            .ok_or_else(|| TxnError::storage("a checkpoint needs a log device"))?;
        let mut next = shared.checkpoints.lock();
        let wait = |epoch: u64| -> Result<u64, TxnError> {
            // Drive the epochs here too, so that this works without the
            // epoch thread.
            loop {
                if log.durable() >= epoch {
                    return Ok(epoch);
                }
                if let Some(failure) = log.failure() {
                    return Err(TxnError::NotDurable(failure));
                }
                if let Some(cause) = log.stall_cause() {
                    return Err(TxnError::LogFull(cause));
                }
                shared.epochs.try_advance();
                log.close_through(shared.epochs.closed_through());
                std::thread::sleep(Duration::from_millis(1));
            }
        };
        let report = checkpoint::write(shared, log, *next, shared.checkpoint_parts, &wait)?;
        *next += 1;
        Ok(report)
    }

    /// Closes every epoch that can be closed and makes it durable now
    /// (tests without the epoch thread; the thread does this every tick).
    pub fn sync_epochs(&self) -> u64 {
        self.shared.epochs.try_advance();
        if let Some(log) = &self.shared.log {
            log.close_through(self.shared.epochs.closed_through());
        }
        self.durable_epoch()
    }

    /// The highest epoch in which no transaction can commit any more.
    pub fn closed_epoch(&self) -> u64 {
        self.shared.epochs.closed_through()
    }

    /// The name of the concurrency control.
    pub fn cc_name(&self) -> &'static str {
        C::NAME
    }

    /// Finishes any incremental resize of the primary indexes (a pass over
    /// each), so that lookups search one array: after a bulk load that grew
    /// the tables, a workload without inserts would otherwise search the
    /// old and the new array of a half-migrated index on every lookup.
    pub fn settle_indexes(&self) {
        for t in &self.shared.tables {
            t.for_each(|_| {});
        }
    }

    /// Present rows of `table` (a full pass; for checks and reports).
    pub fn row_count(&self, table: TableId) -> Result<usize, TxnError> {
        let t = self.shared.table(table)?;
        let mut present = Vec::new();
        t.for_each(|rec| {
            if rec.tid().load(Ordering::Acquire) & crate::tid::ABSENT == 0 {
                present.push(rec.head().key);
            }
        });
        // An iteration may visit an entry twice.
        present.sort_unstable();
        present.dedup();
        Ok(present.len())
    }

    /// Calls `f` with the key and row of every present row of `table`, in
    /// no particular order. Not a transaction: the rows are each read
    /// consistently, but together they are a consistent state only when
    /// no transaction runs (checks after a run or a recovery).
    pub fn for_each_row(
        &self,
        table: TableId,
        mut f: impl FnMut(u64, &Row),
    ) -> Result<(), TxnError> {
        let t = self.shared.table(table)?;
        let mut keys = Vec::new();
        t.for_each(|rec| keys.push(rec.head().key));
        keys.sort_unstable();
        keys.dedup();
        let mut row = Row::new(t.id, Arc::clone(&t.schema));
        let slot = self
            .shared
            .epochs
            .claim()
            .ok_or_else(|| TxnError::storage("no epoch slot free to read a table"))?;
        for chunk in keys.chunks(1024) {
            self.shared.epochs.enter(slot);
            for &key in chunk {
                let Some(rec) = t.lookup(key) else { continue };
                if checkpoint::read_locked(rec, &mut row.bytes).is_some() {
                    f(key, &row);
                }
            }
            self.shared.epochs.exit(slot);
        }
        self.shared.epochs.release(slot);
        Ok(())
    }

    /// Present entries of an ordered index (for checks).
    pub fn index_len(&self, index: IndexId) -> Result<usize, TxnError> {
        let t = self.shared.table(index.table)?;
        Ok(t.ordered[index.index as usize].present_len())
    }
}

impl<C: ConcurrencyControl> Drop for Database<C> {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        if let Some(handle) = self.epoch_thread.take() {
            handle.thread().unpark();
            let _ = handle.join();
        }
    }
}

fn epoch_loop(shared: &Shared, interval: Duration) {
    while !shared.stop.load(Ordering::Acquire) {
        std::thread::park_timeout(interval);
        let now = shared.epochs.try_advance();
        if let Some(log) = &shared.log {
            // Running transactions move to the new epoch at their next
            // begin (microseconds): wait a little for the one just ended
            // to close, rather than a whole interval.
            let deadline = std::time::Instant::now() + Duration::from_millis(2);
            while shared.epochs.closed_through() + 1 < now && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_micros(50));
            }
            log.close_through(shared.epochs.closed_through());
        }
    }
}
