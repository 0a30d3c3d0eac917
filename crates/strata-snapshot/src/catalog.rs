//! The snapshots of a directory: listing them, choosing the one to recover
//! from, and removing those a newer complete snapshot made unnecessary.
//!
//! Only final names (`snapshot-<LSN>.snap`) are snapshots; temporary
//! `.tmp` files are never read, only removed.

use std::io;

use strata_device::Directory;

use crate::name::{is_temp, parse_snapshot_name};
use crate::reader::check_ends;
use crate::{SnapshotError, SnapshotInfo};

/// What [`newest_complete`] does when the newest snapshot is damaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fallback {
    /// Refuse: the damage is an error naming the file and offset.
    #[default]
    Strict,
    /// Operator escape hatch: skip damaged snapshots (with a warning) and
    /// take the newest older one that is complete. Only damage
    /// ([`SnapshotError::is_damage`]) is skipped: I/O errors and unsupported
    /// format versions are still errors.
    OlderGood,
}

/// The snapshot names in `dir`, oldest (lowest start LSN) first, complete or
/// not.
pub fn snapshots(dir: &dyn Directory) -> Result<Vec<String>, SnapshotError> {
    let mut found: Vec<(u64, String)> = dir
        .list()
        .map_err(|e| SnapshotError::io("list the snapshot directory", e))?
        .into_iter()
        .filter_map(|name| parse_snapshot_name(&name).map(|lsn| (lsn, name)))
        .collect();
    found.sort();
    Ok(found.into_iter().map(|(_, name)| name).collect())
}

/// Checks that `name` is complete, cheaply: its header verifies and a valid
/// trailer ends the file. Blocks are not read; damage inside them shows up
/// in [`SnapshotReader::for_each`](crate::SnapshotReader::for_each).
pub fn check_complete(dir: &dyn Directory, name: &str) -> Result<SnapshotInfo, SnapshotError> {
    check_ends(dir, name)
}

/// The newest snapshot of `dir` that is complete (see [`check_complete`]),
/// or `None` when there is none.
///
/// With [`Fallback::Strict`], a newest snapshot that is damaged is an error
/// naming the file and offset, even if older ones are fine: a snapshot only
/// gets its final name once complete and durable, so damage there means
/// lost or corrupted data, which the operator must see.
pub fn newest_complete(
    dir: &dyn Directory,
    fallback: Fallback,
) -> Result<Option<(String, SnapshotInfo)>, SnapshotError> {
    for name in snapshots(dir)?.into_iter().rev() {
        match check_ends(dir, &name) {
            Ok(info) => return Ok(Some((name, info))),
            Err(e) if e.is_damage() && fallback == Fallback::OlderGood => {
                tracing::warn!(error = %e, "skipping damaged snapshot {name} as asked (fallback to an older one)");
            }
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// Deletes every snapshot older than `name` (lower start LSN) and every
/// temporary snapshot file, then makes the removals durable. Returns the
/// names removed.
///
/// `name` must be a complete snapshot ([`check_complete`]), so that this
/// never leaves a directory without one. The caller guarantees that no
/// [`SnapshotWriter`](crate::SnapshotWriter) is writing into `dir` meanwhile
/// (its temporary file would go).
pub fn remove_older_than(dir: &dyn Directory, name: &str) -> Result<Vec<String>, SnapshotError> {
    let Some(keep) = parse_snapshot_name(name) else {
        return Err(SnapshotError::InvalidName {
            name: name.to_owned(),
            reason: "not a snapshot name".into(),
        });
    };
    check_ends(dir, name)?;
    let names = dir
        .list()
        .map_err(|e| SnapshotError::io("list the snapshot directory", e))?;
    let mut removed = Vec::new();
    for old in names {
        let older = parse_snapshot_name(&old).is_some_and(|lsn| lsn < keep);
        if !older && !is_temp(&old) {
            continue;
        }
        match dir.remove(&old) {
            Ok(()) => removed.push(old),
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(SnapshotError::io(format!("remove {old}"), e)),
        }
    }
    if !removed.is_empty() {
        dir.sync_names()
            .map_err(|e| SnapshotError::io("sync the snapshot directory", e))?;
    }
    Ok(removed)
}
