//! [`Database`]: the tables, the epochs and the epoch thread; hands out
//! [`Worker`]s.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crate::cc::ConcurrencyControl;
use crate::epoch::Epochs;
use crate::error::TxnError;
use crate::row::Row;
use crate::schema::TableSchema;
use crate::storage::garbage::Retired;
use crate::storage::Table;
use crate::worker::Worker;

/// A table, by position in the definition list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableId(pub(crate) u32);

/// An ordered index of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IndexId {
    pub(crate) table: TableId,
    pub(crate) index: u32,
}

/// How a database runs.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// Most workers at once.
    pub max_workers: usize,
    /// How often the global epoch advances (`None`: only when
    /// [`Database::advance_epoch`] is called, for tests).
    pub epoch_interval: Option<Duration>,
    /// Expected rows per table (sizes the primary indexes up front).
    pub capacity_hint: usize,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            max_workers: 64,
            epoch_interval: Some(Duration::from_millis(40)),
            capacity_hint: 1024,
        }
    }
}

impl Options {
    /// Sets the number of worker slots.
    pub fn with_max_workers(mut self, n: usize) -> Options {
        self.max_workers = n;
        self
    }

    /// Sets the epoch interval (`None`: manual).
    pub fn with_epoch_interval(mut self, interval: Option<Duration>) -> Options {
        self.epoch_interval = interval;
        self
    }

    /// Sets the expected rows per table.
    pub fn with_capacity_hint(mut self, rows: usize) -> Options {
        self.capacity_hint = rows;
        self
    }
}

/// What every worker and the epoch thread share.
pub(crate) struct Shared {
    pub tables: Vec<Table>,
    names: HashMap<String, u32>,
    pub epochs: Epochs,
    pub retired: Retired,
    stop: AtomicBool,
}

impl Shared {
    pub fn table(&self, id: TableId) -> Result<&Table, TxnError> {
        self.tables
            .get(id.0 as usize)
            .ok_or_else(|| TxnError::UnknownTable(format!("#{}", id.0)))
    }

    pub fn index(&self, table: TableId, name: &str) -> Result<IndexId, TxnError> {
        let t = self.table(table)?;
        let index = t.schema.index_position(name)? as u32;
        Ok(IndexId { table, index })
    }
}

/// An in-memory database of typed tables under concurrency control `C`.
pub struct Database<C: ConcurrencyControl> {
    shared: Arc<Shared>,
    epoch_thread: Option<JoinHandle<()>>,
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
        let shared = Arc::new(Shared {
            tables: built,
            names,
            // One slot beyond the workers for internal readers.
            epochs: Epochs::new(options.max_workers + 1, 1),
            retired: Retired::default(),
            stop: AtomicBool::new(false),
        });
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
        let workers = self.shared.epochs.slots() - 1;
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

    /// The highest epoch in which no transaction can commit any more.
    pub fn closed_epoch(&self) -> u64 {
        self.shared.epochs.closed_through()
    }

    /// The name of the concurrency control.
    pub fn cc_name(&self) -> &'static str {
        C::NAME
    }

    /// Present rows of `table` (a full pass; for checks and reports).
    pub fn row_count(&self, table: TableId) -> Result<usize, TxnError> {
        let t = self.shared.table(table)?;
        let mut n = 0;
        t.for_each(|rec| {
            if rec.tid().load(Ordering::Acquire) & crate::tid::ABSENT == 0 {
                n += 1;
            }
        });
        Ok(n)
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
        shared.epochs.try_advance();
    }
}
