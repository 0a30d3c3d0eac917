//! Loading a checkpoint: the meta snapshot, then the parts in parallel.

use std::sync::Arc;

use strata_device::Directory;
use strata_snapshot::SnapshotReader;

use crate::checkpoint::{part_dir, Meta};
use crate::error::TxnError;
use crate::log::LogRoot;
use crate::storage::{RecPtr, Table};

/// Reads the meta item of checkpoint `name`.
pub(crate) fn read_meta(dir: &dyn Directory, name: &str) -> Result<Meta, TxnError> {
    let bad = |e: String| TxnError::storage(format!("checkpoint meta {name}: {e}"));
    let mut reader = SnapshotReader::open(dir, name).map_err(|e| bad(e.to_string()))?;
    let mut meta = None;
    reader.for_each(|item| -> Result<(), TxnError> {
        if item.key != Meta::key() {
            return Err(bad("an item that is not the meta record".into()));
        }
        meta =
            Some(Meta::decode(item.value).ok_or_else(|| bad("an unreadable meta record".into()))?);
        Ok(())
    })?;
    meta.ok_or_else(|| bad("no meta record".into()))
}

/// Loads every part of checkpoint `name`, one thread each; returns rows.
pub(crate) fn load_parts(
    root: &Arc<dyn LogRoot>,
    name: &str,
    meta: &Meta,
    tables: &[Table],
) -> Result<u64, TxnError> {
    let place = root.describe();
    let results: Vec<Result<u64, TxnError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..meta.parts as usize)
            .map(|k| {
                let place = &place;
                scope.spawn(move || {
                    let dir = root.open(&part_dir(k)).map_err(|e| {
                        TxnError::storage(format!("checkpoint part {k} at {place}: {e}"))
                    })?;
                    load_part(
                        &*dir,
                        name,
                        tables,
                        &format!("{place}/{}/{name}", part_dir(k)),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("loader thread"))
            .collect()
    });
    results.into_iter().sum()
}

fn load_part(
    dir: &dyn Directory,
    name: &str,
    tables: &[Table],
    what: &str,
) -> Result<u64, TxnError> {
    let mut reader =
        SnapshotReader::open(dir, name).map_err(|e| TxnError::storage(format!("{what}: {e}")))?;
    let mut rows = 0;
    let bad = |reason: String| TxnError::storage(format!("{what}: {reason}"));
    reader.for_each(|item| -> Result<(), TxnError> {
        let key: [u8; 12] = item
            .key
            .try_into()
            .map_err(|_| bad(format!("a key of {} bytes", item.key.len())))?;
        let table = u32::from_le_bytes(key[..4].try_into().expect("4"));
        let pk = u64::from_le_bytes(key[4..].try_into().expect("8"));
        let t = tables
            .get(table as usize)
            .ok_or_else(|| bad(format!("a row of table #{table}, which does not exist")))?;
        if item.value.len() != t.schema.row_bytes {
            return Err(bad(format!(
                "a row of {} bytes in table {:?}",
                item.value.len(),
                t.schema.name
            )));
        }
        let rec = RecPtr::alloc(t.id, pk, t.width, item.cas, 0);
        rec.write_row(item.value);
        if let Err(existing) = t.publish(rec) {
            rec.free();
            let _ = existing;
            return Err(bad(format!("row {pk} of table {:?} twice", t.schema.name)));
        }
        rows += 1;
        Ok(())
    })?;
    Ok(rows)
}
