//! What the database, its workers, transactions, checkpoints and the epoch
//! thread share: the table and index ids and [`Shared`], the tables with
//! the epochs, the retired records and the log. A leaf below all of them.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use parking_lot::Mutex;

use crate::epoch::Epochs;
use crate::error::TxnError;
use crate::log::streams::LogSet;
use crate::storage::garbage::Retired;
use crate::storage::Table;

/// A table, by position in the definition list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TableId(pub(crate) u32);

/// An ordered index of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IndexId {
    pub(crate) table: TableId,
    pub(crate) index: u32,
}

/// What every worker and the epoch thread share.
pub(crate) struct Shared {
    pub tables: Vec<Table>,
    pub names: HashMap<String, u32>,
    pub epochs: Epochs,
    pub retired: Retired,
    pub log: Option<LogSet>,
    pub checkpoints: Mutex<u64>,
    pub checkpoint_parts: usize,
    pub stop: AtomicBool,
}

/// Threads beyond the workers that may hold an epoch slot (checkpoint
/// parts).
pub(crate) const INTERNAL_SLOTS: usize = 8;

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
