//! [`WriterSlot`]: a shard's tantivy writer, created on the shard's first
//! write and closed when the index has gone idle, so a shard nobody
//! writes to holds no writer: no indexing worker, merge and
//! segment-updater threads, no document channel (tantivy's holds 10,000
//! slots), no indexing arena. An empty index costs its metadata and its
//! reader only.
//!
//! Closing waits for the writer's merges on a thread of its own (they may
//! take seconds); a writer wanted again meanwhile waits for that close,
//! since tantivy allows one writer per index.

use std::thread::JoinHandle;

use parking_lot::{MappedMutexGuard, Mutex, MutexGuard};
use tantivy::{Index, IndexWriter};

use super::in_flight::{InFlight, QueuedDoc, MAX_QUEUED};
use super::priority::IndexingPriority;
use crate::error::{Result, SearchError};

/// The memory budget of a shard's indexing worker: its arena grows to
/// this before a segment is written (a refresh writes one sooner). Chosen
/// by measurement (eventdata, 500,000 documents, 2 shards, refresh 1 s,
/// Strata alone, 3 alternated rounds): 24 MiB peaks 0.93x the resident
/// memory of 32 MiB, indexes as fast, with the dashboards' p99 within the
/// rounds' spread; 16 MiB peaks 0.86x but leaves half again as many
/// segments, and `content_issues`'s p99 rose a third.
const WRITER_MEMORY: usize = 24 << 20;

enum Slot {
    Closed,
    /// Boxed: the writer is large and the slot is mostly closed.
    Open(Box<IndexWriter<QueuedDoc>>),
    /// Waiting for its merges, on this thread.
    Closing(JoinHandle<tantivy::Result<()>>),
}

/// See the module docs.
pub(super) struct WriterSlot {
    index: Index,
    priority: IndexingPriority,
    slot: Mutex<Slot>,
    /// Documents handed to the writer and not yet taken.
    in_flight: InFlight,
}

impl WriterSlot {
    /// A closed slot for `index`, whose writer's threads run at `priority`.
    pub(super) fn new(index: Index, priority: IndexingPriority) -> WriterSlot {
        WriterSlot {
            index,
            priority,
            slot: Mutex::new(Slot::Closed),
            in_flight: InFlight::new(MAX_QUEUED),
        }
    }

    /// The bound on documents handed to the writer and not yet taken.
    pub(super) fn in_flight(&self) -> &InFlight {
        &self.in_flight
    }

    /// The writer, created first if there is none. Creating one also
    /// collects the files no commit references (a crash can leave some
    /// that replaying the translog would write again).
    pub(super) fn lock(&self) -> Result<MappedMutexGuard<'_, IndexWriter<QueuedDoc>>> {
        let mut slot = self.slot.lock();
        if let Slot::Closing(_) = &*slot {
            if let Slot::Closing(handle) = std::mem::replace(&mut *slot, Slot::Closed) {
                join(handle)?;
            }
        }
        if let Slot::Closed = &*slot {
            // tantivy starts the writer's threads at its creation: they
            // take the priority of the thread creating it.
            let writer: IndexWriter<QueuedDoc> = self
                .priority
                .run(|| self.index.writer_with_num_threads(1, WRITER_MEMORY))??;
            writer.garbage_collect_files().wait()?;
            *slot = Slot::Open(Box::new(writer));
        }
        MutexGuard::try_map(slot, |slot| match slot {
            Slot::Open(writer) => Some(&mut **writer),
            _ => None,
        })
        .map_err(|_| SearchError::illegal("the shard's writer could not be opened"))
    }

    /// Whether a writer is open (one closing, which takes no more
    /// operations, does not count).
    pub(super) fn is_open(&self) -> bool {
        let mut slot = self.slot.lock();
        if let Slot::Closing(handle) = &*slot {
            if handle.is_finished() {
                if let Slot::Closing(handle) = std::mem::replace(&mut *slot, Slot::Closed) {
                    if let Err(e) = join(handle) {
                        tracing::warn!(error = %e, "closing an idle shard's writer failed");
                    }
                }
            }
        }
        matches!(&*slot, Slot::Open(_))
    }

    /// Starts closing the writer, if open. The caller guarantees that
    /// everything handed to it is committed.
    pub(super) fn close_in_background(&self) -> Result<()> {
        let mut slot = self.slot.lock();
        match std::mem::replace(&mut *slot, Slot::Closed) {
            Slot::Open(writer) => {
                let handle = std::thread::Builder::new()
                    .name("strata-writer-close".into())
                    .spawn(move || writer.wait_merging_threads())
                    .map_err(|e| SearchError::io("start a writer-closing thread", e))?;
                *slot = Slot::Closing(handle);
            }
            other => *slot = other,
        }
        Ok(())
    }

    /// Closes the writer and waits for its merges (shutdown).
    pub(super) fn close(&self) -> Result<()> {
        let taken = std::mem::replace(&mut *self.slot.lock(), Slot::Closed);
        match taken {
            Slot::Closed => Ok(()),
            Slot::Open(writer) => Ok(writer.wait_merging_threads()?),
            Slot::Closing(handle) => join(handle),
        }
    }
}

impl Drop for WriterSlot {
    /// A writer still closing holds the index's writer lock: wait for it,
    /// so the shard can be opened again as soon as it is dropped.
    fn drop(&mut self) {
        if let Slot::Closing(handle) = std::mem::replace(self.slot.get_mut(), Slot::Closed) {
            let _ = join(handle);
        }
    }
}

fn join(handle: JoinHandle<tantivy::Result<()>>) -> Result<()> {
    handle
        .join()
        .map_err(|_| SearchError::illegal("closing a shard's writer panicked"))??;
    Ok(())
}
