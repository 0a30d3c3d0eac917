//! Scans of an ordered index inside one partition.
//!
//! The scan reads the partition's word through the concurrency control
//! (NO_WAIT: a shared lock; Silo: a read validated at commit), which is
//! what protects it against phantoms: every insert or delete of an entry
//! in the partition writes that word. It returns primary keys of present
//! rows (and of the transaction's own inserts) in key order; the caller
//! reads the rows it needs, through the concurrency control as usual.

use std::ops::Bound;
use std::sync::atomic::Ordering;

use crate::cc::ConcurrencyControl;
use crate::error::TxnError;
use crate::schema::key::{put_value, successor};
use crate::schema::KeyValue;
use crate::shared::IndexId;
use crate::tid::ABSENT;
use crate::txn::access::WriteKind;
use crate::txn::transaction::Transaction;

/// The order of a scan's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanOrder {
    /// Smallest key first.
    Ascending,
    /// Largest key first.
    Descending,
}

impl<C: ConcurrencyControl> Transaction<'_, C> {
    /// Appends to `out` the primary keys of at most `limit` rows of the
    /// partition `prefix` (values of the index's partition columns) whose
    /// remaining index columns lie between `lower` and `upper` (tuples of
    /// leading remaining columns; a shorter tuple bounds every key that
    /// starts with it), in index order.
    #[allow(clippy::too_many_arguments)]
    pub fn scan(
        &mut self,
        index: IndexId,
        prefix: &[KeyValue<'_>],
        lower: Bound<&[KeyValue<'_>]>,
        upper: Bound<&[KeyValue<'_>]>,
        order: ScanOrder,
        limit: usize,
        out: &mut Vec<u64>,
    ) -> Result<(), TxnError> {
        let shared = self.shared;
        let t = shared.table(index.table)?;
        let idx = t
            .ordered
            .get(index.index as usize)
            .ok_or_else(|| TxnError::UnknownIndex {
                table: t.schema.name.clone(),
                index: format!("#{}", index.index),
            })?;
        let bad = |reason: String| TxnError::BadScan {
            index: idx.schema.name.clone(),
            reason,
        };
        let parts = idx.schema.partition_columns;
        if prefix.len() != parts {
            return Err(bad(format!(
                "{} partition values given, the index has {parts}",
                prefix.len()
            )));
        }
        let rest = idx.schema.columns.len() - parts;
        let encode =
            |values: &[KeyValue<'_>], skip: usize, out: &mut Vec<u8>| -> Result<(), TxnError> {
                if values.len() > idx.schema.columns.len() - skip {
                    return Err(bad(format!(
                        "a bound has {} values, at most {rest} fit",
                        values.len()
                    )));
                }
                for (value, &col) in values.iter().zip(&idx.schema.columns[skip..]) {
                    let c = &t.schema.columns[col];
                    put_value(out, c.ty, value, &c.name)?;
                }
                Ok(())
            };
        let mut p = Vec::new();
        encode(prefix, 0, &mut p)?;
        let with = |values: &[KeyValue<'_>]| -> Result<Vec<u8>, TxnError> {
            let mut key = p.clone();
            encode(values, parts, &mut key)?;
            Ok(key)
        };
        let lo = match lower {
            Bound::Unbounded => Some(p.clone()),
            Bound::Included(v) => Some(with(v)?),
            Bound::Excluded(v) => successor(&with(v)?),
        };
        let hi = match upper {
            Bound::Unbounded => successor(&p),
            Bound::Included(v) => successor(&with(v)?),
            Bound::Excluded(v) => Some(with(v)?),
        };
        // Protect the partition first, then look.
        let word = idx.partition(&p);
        let a = self.st.set.get_or_add(word);
        if self.st.set.accesses[a as usize].write.is_none() {
            C::read(&mut self.st.set.accesses[a as usize], None)?;
        }
        let Some(lo) = lo else { return Ok(()) };
        if limit == 0 {
            return Ok(());
        }
        let set = &self.st.set;
        let mut found = 0;
        idx.range(&lo, hi.as_deref(), order == ScanOrder::Descending, |rec| {
            let present = match set.find(rec).and_then(|a| set.accesses[a as usize].write) {
                Some(w) => set.writes[w as usize].kind != WriteKind::Delete,
                None => rec.tid().load(Ordering::Acquire) & ABSENT == 0,
            };
            if present {
                out.push(rec.head().key);
                found += 1;
            }
            found < limit
        });
        Ok(())
    }
}
