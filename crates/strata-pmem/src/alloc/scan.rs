//! One pass over the persistent chunk table: the runs whose head word is
//! published, the orphaned continuation words a crash left behind, and the
//! free chunks. The table is the truth; everything volatile is derived here.

use std::sync::atomic::Ordering;

use super::extents::FreeExtents;
use super::run::ChunkRun;
use super::state::ChunkState;
use crate::backing::Backing;
use crate::error::{PmemError, Result};
use crate::header::layout::Geometry;

/// What the table holds.
pub(super) struct TableScan {
    /// Published runs, by first chunk.
    pub(super) runs: Vec<ChunkRun>,
    /// Continuation words with no head claiming them: the remains of an
    /// allocation whose head was never published, or of a free whose head
    /// was already cleared. Counted as free in `free`.
    pub(super) orphans: Vec<u64>,
    /// Free chunks (orphans included).
    pub(super) free: FreeExtents,
}

/// Reads the whole table. A head whose run leaves the table or whose
/// continuations are not exactly its own, and any invalid word, are
/// corruption: no crash under the allocator's ordering produces them.
pub(super) fn scan(backing: &Backing, geometry: &Geometry) -> Result<TableScan> {
    let file = backing.file_name();
    let word = |index: u64| -> Result<ChunkState> {
        let raw = backing.atomic_u64(geometry.state_offset(index))?;
        Ok(ChunkState::decode(raw.load(Ordering::Acquire)))
    };
    let mut scan = TableScan {
        runs: Vec::new(),
        orphans: Vec::new(),
        free: FreeExtents::default(),
    };
    let mut index = 0;
    while index < geometry.chunk_count {
        match word(index)? {
            ChunkState::Free => scan.free.give(index, 1),
            ChunkState::Continuation { .. } => {
                scan.orphans.push(index);
                scan.free.give(index, 1);
            }
            ChunkState::Head { owner, count } => {
                if count > geometry.chunk_count - index {
                    return Err(PmemError::corrupt(
                        file,
                        format!("chunk {index} heads a run of {count} chunks past the end"),
                    ));
                }
                for back in 1..count {
                    let expected = ChunkState::Continuation { owner, back };
                    let found = word(index + back)?;
                    if found != expected {
                        return Err(PmemError::corrupt(
                            file,
                            format!(
                                "chunk {} in the run of chunk {index} holds {found:?}, not {expected:?}",
                                index + back
                            ),
                        ));
                    }
                }
                scan.runs.push(ChunkRun::new(geometry, index, count, owner));
                index += count;
                continue;
            }
            ChunkState::Invalid(raw) => {
                return Err(PmemError::corrupt(
                    file,
                    format!("chunk {index} has the invalid state word {raw:#018x}"),
                ));
            }
        }
        index += 1;
    }
    Ok(scan)
}

/// Frees the orphaned continuation words of `scan` (store 0, then persist
/// the span they lie in). Idempotent, so a crash here is harmless.
pub(super) fn sweep_orphans(backing: &Backing, geometry: &Geometry, orphans: &[u64]) -> Result<()> {
    let (Some(first), Some(last)) = (orphans.first(), orphans.last()) else {
        return Ok(());
    };
    for index in orphans {
        backing
            .atomic_u64(geometry.state_offset(*index))?
            .store(0, Ordering::Release);
    }
    tracing::info!(
        file = backing.file_name(),
        orphans = orphans.len(),
        "freed chunks of allocations or frees interrupted by a crash"
    );
    let start = geometry.state_offset(*first);
    backing.persist(start, geometry.state_offset(*last) + 8 - start)
}
