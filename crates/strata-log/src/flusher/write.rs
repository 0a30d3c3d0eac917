//! One round of the flusher on the device: the batch written to the
//! current segment (split at a rotation, refused bytes handed back), the
//! zeros preallocated ahead of the records, the sync, and the rotation to
//! a new segment.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use super::syncer::{Request, Synced, Syncer};
use super::{Flusher, Work};
use crate::config::Durability;
use crate::record::{encoded_len, encoded_lsn};
use crate::segment::{self, SegmentMeta, SEGMENT_HEADER_LEN};
use crate::stall::Failure;
use crate::LogError;

impl Flusher {
    pub(super) fn perform(&mut self, work: &Work) -> Result<(), Failure> {
        self.collect_synced()?;
        if !work.batch.is_empty() {
            self.write_batch(&work.batch)?;
            self.last_write = Instant::now();
        }
        if work.rotate.is_some() && self.segment_records > 0 {
            let whole = work.batch.len();
            self.rotate(self.written_lsn + 1)
                .map_err(|f| f.after(whole))?;
        }
        let (sync_due, background) = match work.durability {
            Durability::Sync => (true, false),
            Durability::OnDemand => (false, false),
            // A sync someone asked for runs here; the interval's, beside.
            Durability::Async { sync_interval } => (
                work.interval_sync || self.last_sync.elapsed() >= sync_interval,
                !work.sync,
            ),
        };
        if background {
            if sync_due && self.written_lsn > self.requested_lsn {
                self.sync_in_background()?;
            }
        } else if (work.sync || sync_due) && self.written_lsn > self.synced_lsn {
            self.sync()?;
            self.group.synced(work.records);
        }
        if let Some(n) = work.rotate {
            let mut p = self.shared.pending.lock();
            p.rotate_done = p.rotate_done.max(n);
            p.rotated_at = self.segment.first_lsn;
            self.shared.progress.notify_all();
        }
        Ok(())
    }

    /// Writes `batch` (whole encoded records), rotating where a segment
    /// fills up. A failure says how many bytes of `batch` were written.
    fn write_batch(&mut self, batch: &[u8]) -> Result<(), Failure> {
        let mut rest = batch;
        while !rest.is_empty() {
            let done = batch.len() - rest.len();
            let room = self
                .shared
                .config
                .segment_size
                .saturating_sub(self.segment_len);
            let (take, records) = fitting_prefix(rest, room, self.segment_records == 0);
            if take == 0 {
                self.rotate(encoded_lsn(rest)).map_err(|f| f.after(done))?;
                continue;
            }
            let (chunk, tail) = rest.split_at(take);
            match self.preallocate(self.segment_len + take as u64) {
                // Short of space for the zeros ahead, the records may
                // still fit: write them.
                Err(e) if crate::stall::is_no_space(&e) => {}
                Err(e) => return Err(Failure::Fatal(e)),
                Ok(()) => {}
            }
            self.device
                .write_all_at(chunk, self.segment_len)
                .map_err(|e| {
                    let what = format!(
                        "write {} bytes to {} at offset {}",
                        chunk.len(),
                        self.segment.name,
                        self.segment_len
                    );
                    Failure::of_write(LogError::io(what, e)).after(done)
                })?;
            self.segment_len += take as u64;
            // Records written past a failed preallocation extend the file:
            // zeros written ahead later must start after them.
            self.file_len = self.file_len.max(self.segment_len);
            self.segment_records += records;
            self.written_lsn += records;
            rest = tail;
        }
        Ok(())
    }

    /// Makes sure the segment file holds written bytes up to at least `end`
    /// (zeros past the records), growing it a preallocation step at a time
    /// but not past the segment size unless `end` is beyond it.
    fn preallocate(&mut self, end: u64) -> Result<(), LogError> {
        if self.zeros.is_empty() || end <= self.file_len {
            return Ok(());
        }
        let step = self.shared.config.preallocate;
        let target = (self.file_len + step)
            .min(self.shared.config.segment_size)
            .max(end);
        while self.file_len < target {
            let n = (target - self.file_len).min(self.zeros.len() as u64) as usize;
            self.device
                .write_all_at(&self.zeros[..n], self.file_len)
                .map_err(|e| {
                    let what = format!(
                        "preallocate {n} bytes of {} at offset {}",
                        self.segment.name, self.file_len
                    );
                    LogError::io(what, e)
                })?;
            self.file_len += n as u64;
        }
        Ok(())
    }

    /// Takes what the background syncer finished; a failed sync there
    /// (which poisoned the log) ends the flusher as one here would.
    fn collect_synced(&mut self) -> Result<(), Failure> {
        let Some(syncer) = &self.syncer else {
            return Ok(());
        };
        match syncer.take_done() {
            Ok(None) => Ok(()),
            Ok(Some(done)) => {
                self.note_synced(done);
                Ok(())
            }
            Err(()) => {
                let cause = self.shared.poisoned().unwrap_or_else(|| {
                    LogError::io("background sync", std::io::Error::other("failed"))
                });
                Err(Failure::Fatal(cause))
            }
        }
    }

    /// Stops the syncer once its sync in hand is done and takes what it
    /// synced (a failure there has poisoned the log already).
    pub(super) fn settle_syncer(&mut self) {
        if let Some(Ok(Some(done))) = self.syncer.take().map(Syncer::finish) {
            self.note_synced(done);
        }
    }

    fn note_synced(&mut self, done: Synced) {
        self.synced_lsn = self.synced_lsn.max(done.lsn);
        if done.segment == self.segment.first_lsn {
            self.synced_len = self.synced_len.max(done.len);
        }
    }

    /// Hands the interval's sync of what is written to the syncer thread
    /// (started at the first), unless one is still running; the flusher
    /// goes on writing meanwhile. Without a thread, syncs here.
    fn sync_in_background(&mut self) -> Result<(), LogError> {
        if self.syncer.is_none() {
            match Syncer::start(Arc::clone(&self.shared)) {
                Ok(s) => self.syncer = Some(s),
                Err(e) => {
                    tracing::warn!(error = %e, "no log sync thread: syncing on the flusher's");
                    return self.sync();
                }
            }
        }
        let request = Request {
            device: Arc::clone(&self.device),
            segment: self.segment.first_lsn,
            name: self.segment.name.clone(),
            lsn: self.written_lsn,
            len: self.segment_len,
        };
        if self.syncer.as_ref().is_some_and(|s| s.request(request)) {
            self.requested_lsn = self.written_lsn;
            self.last_sync = Instant::now();
        }
        Ok(())
    }

    /// Syncs the current segment and publishes the durable LSN.
    fn sync(&mut self) -> Result<(), LogError> {
        self.device
            .sync()
            .map_err(|e| LogError::io(format!("sync {}", self.segment.name), e))?;
        self.shared.syncs.fetch_add(1, Ordering::Relaxed);
        self.last_sync = Instant::now();
        self.synced_lsn = self.written_lsn;
        self.requested_lsn = self.written_lsn;
        self.synced_len = self.segment_len;
        self.shared.publish_durable(self.synced_lsn);
        Ok(())
    }

    /// Closes the current segment (synced, so only the last segment can ever
    /// end torn) and starts one whose first record will be `first_lsn`.
    /// Creating the new file may fail for lack of space (retried then).
    fn rotate(&mut self, first_lsn: u64) -> Result<(), Failure> {
        if self.written_lsn > self.synced_lsn {
            self.sync()?;
        }
        let meta = SegmentMeta::new(first_lsn);
        self.device = Arc::from(segment::create(&*self.shared.dir, &meta)?);
        self.shared.syncs.fetch_add(1, Ordering::Relaxed);
        self.shared.segments.lock().push(meta.clone());
        self.segment = meta;
        self.segment_len = SEGMENT_HEADER_LEN as u64;
        self.synced_len = self.segment_len;
        self.file_len = self.segment_len;
        self.segment_records = 0;
        Ok(())
    }
}

/// The longest run of whole records at the start of `batch` that fits in
/// `room` bytes (at least one record when `take_one`): `(bytes, records)`.
fn fitting_prefix(batch: &[u8], room: u64, take_one: bool) -> (usize, u64) {
    let (mut at, mut records) = (0usize, 0u64);
    while at < batch.len() {
        let len = encoded_len(&batch[at..]);
        let fits = (at + len) as u64 <= room || (records == 0 && take_one);
        if !fits {
            break;
        }
        at += len;
        records += 1;
    }
    (at, records)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::encode_into;

    #[test]
    fn fitting_prefix_stops_at_record_boundaries() {
        let mut batch = Vec::new();
        for lsn in 1..=3 {
            encode_into(&mut batch, lsn, 0, &[0; 33]); // 50 bytes each
        }
        assert_eq!(fitting_prefix(&batch, 0, false), (0, 0));
        assert_eq!(fitting_prefix(&batch, 0, true), (50, 1));
        assert_eq!(fitting_prefix(&batch, 99, false), (50, 1));
        assert_eq!(fitting_prefix(&batch, 100, false), (100, 2));
        assert_eq!(fitting_prefix(&batch, 1000, false), (150, 3));
    }
}
