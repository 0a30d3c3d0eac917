//! The log's segments as a checkpoint sees them: [`CommandLog::rotate`]
//! starts a new segment (done by the flusher, which owns the files), and
//! [`CommandLog::remove_segments_before`] removes the oldest ones, oldest
//! first, each removal durable before the next, so the survivors are
//! always a suffix of the log.

use std::sync::atomic::Ordering;

use super::CommandLog;
use crate::LogError;

impl CommandLog {
    /// Starts a new segment now (unless the current one holds no record)
    /// and returns its first LSN: every record below it is in older, synced
    /// segments. A checkpoint uses it to cut the log cleanly.
    pub fn rotate(&self) -> Result<u64, LogError> {
        let shared = &*self.shared;
        let mut p = shared.pending.lock();
        p.rotate_requested += 1;
        let ticket = p.rotate_requested;
        if p.flusher_waiting {
            shared.work.notify_one();
        }
        while p.rotate_done < ticket {
            if let Some(err) = shared.poisoned() {
                return Err(err);
            }
            if shared.stopped.load(Ordering::Acquire) {
                return Err(LogError::Closed);
            }
            shared.progress.wait(&mut p);
        }
        Ok(p.rotated_at)
    }

    /// Removes the segments all of whose records have an LSN below `lsn`
    /// (never the current segment), oldest first, making each removal
    /// durable before the next so that the survivors are always a suffix of
    /// the log. Returns how many were removed.
    ///
    /// The caller guarantees that a durable snapshot covers every record
    /// below `lsn`.
    pub fn remove_segments_before(&self, lsn: u64) -> Result<usize, LogError> {
        let shared = &*self.shared;
        let _one_at_a_time = shared.removal.lock();
        let victims: Vec<_> = {
            let segments = shared.segments.lock();
            segments
                .windows(2)
                .take_while(|pair| pair[1].first_lsn <= lsn)
                .map(|pair| pair[0].clone())
                .collect()
        };
        for victim in &victims {
            shared
                .dir
                .remove(&victim.name)
                .map_err(|e| LogError::io(format!("remove {}", victim.name), e))?;
            let remaining_first = {
                let mut segments = shared.segments.lock();
                debug_assert_eq!(segments[0], *victim);
                segments.remove(0);
                segments[0].first_lsn
            };
            shared
                .pending
                .lock()
                .positions
                .forget_before(remaining_first);
            shared.dir.sync_names().map_err(|e| {
                LogError::io(
                    format!("sync the log directory after removing {}", victim.name),
                    e,
                )
            })?;
        }
        Ok(victims.len())
    }
}
