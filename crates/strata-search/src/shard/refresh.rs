//! Refresh (a tantivy commit that makes writes searchable), flush, forced
//! merges and closing.
//!
//! A tantivy commit needs the writer to itself and waits for the writer's
//! indexing thread to finish its segment: hundreds of milliseconds under a
//! bulk load. It therefore runs without the shard's lock. Under the lock,
//! a refresh only reads what the commit will cover (every operation so
//! far, and the translog LSN) and sets `committing`; writes made while the
//! commit runs are held in order and handed to the writer, still under
//! the lock, when it ends. Commits of one shard run one at a time, and
//! never while a flush persists the segment files.

use std::time::Duration;

use serde_json::json;

use super::{CommitPoint, Shard};
use crate::error::Result;
use crate::store::Persisted;

/// How many merges a forced merge may lose to background merges before it
/// gives up, and how long it waits before reading the segments again.
const FORCE_MERGE_RACES: u32 = 20;
const FORCE_MERGE_BACKOFF: Duration = Duration::from_millis(50);

impl Shard {
    /// Makes the writes so far searchable (a tantivy commit to DRAM, no
    /// fsync); returns whether it committed. `covered_lsn` is the
    /// translog's last LSN read under no lock; `force` commits even
    /// without changes (to move the payload).
    pub(crate) fn refresh(&self, covered_lsn: impl FnOnce() -> u64, force: bool) -> Result<bool> {
        // A refresh that waits here for another's commit returns after it,
        // and finds clean whatever that commit covered.
        let _one_commit = self.committer.lock();
        self.refresh_alone(covered_lsn, force)
    }

    /// [`refresh`](Self::refresh) with the commit lock held by the caller.
    fn refresh_alone(&self, covered_lsn: impl FnOnce() -> u64, force: bool) -> Result<bool> {
        let (payload, covers) = {
            let mut state = self.write.lock();
            if !state.dirty && (!force || !self.writer.is_open()) {
                // Without a writer nothing is uncommitted: its last
                // commit (made before it was closed) stands.
                return Ok(false);
            }
            let covers = state.next_seq_no;
            let payload = json!({"lsn": covered_lsn(), "next_seq_no": covers}).to_string();
            state.committing = true;
            state.dirty = false;
            (payload, covers)
        };
        let committed = self.commit(&payload);
        let handed = {
            let mut state = self.write.lock();
            let held = std::mem::take(&mut state.held);
            let handed = match held.is_empty() {
                true => Ok(()),
                false => self.writer.lock().and_then(|writer| {
                    let in_flight = self.writer.in_flight();
                    held.into_iter()
                        .try_for_each(|op| op.apply(&writer, in_flight))
                }),
            };
            state.committing = false;
            if committed.is_err() {
                // The writes stay uncommitted: the next refresh tries again.
                state.dirty = true;
            }
            self.commit_ended.notify_all();
            handed
        };
        committed?;
        handed?;
        self.reload_reader()?;
        // The reader now answers for what the commit covered; later writes
        // stay in the live map until a commit covers them.
        let mut state = self.write.lock();
        state.live.retain(|_, live| live.version.seq_no >= covers);
        Ok(true)
    }

    /// Whether a refresh now would commit or wait for a commit: writes
    /// since the last commit started, or a refresh, flush or merge
    /// running (a commit in flight may cover writes the caller made and
    /// not be visible yet).
    pub(crate) fn has_pending(&self) -> bool {
        self.committer.is_locked() || {
            let state = self.write.lock();
            state.dirty || state.committing
        }
    }

    /// Commits at the shard's indexing priority: tantivy starts the next
    /// indexing worker on the committing thread.
    fn commit(&self, payload: &str) -> Result<()> {
        self.priority.run(|| {
            // Every document this commit holds was shaped before it
            // started: its shape is saved before `meta.json` names it.
            self.save_source_shapes()?;
            let mut writer = self.writer.lock()?;
            let mut prepared = writer.prepare_commit()?;
            prepared.set_payload(payload);
            prepared.commit()?;
            Ok(())
        })?
    }

    /// Commits and persists the newest commit to disk (Elasticsearch's
    /// flush); returns the durable commit point and what was copied.
    /// The commit lock is held throughout: no commit runs while the
    /// segment files are persisted. The copy runs at the indexing
    /// priority, like the commit: it is background work, and copying the
    /// segments a bulk load merged is hundreds of megabytes.
    pub(crate) fn flush(
        &self,
        covered_lsn: impl FnOnce() -> u64,
    ) -> Result<(CommitPoint, Persisted)> {
        let _one_commit = self.committer.lock();
        self.refresh_alone(covered_lsn, true)?;
        let persisted = self.priority.run(|| self.dir.persist())??;
        // Reopen the segments just persisted from disk, as the placement
        // reads them, so the fresh copies are freed once searches in
        // flight end (else they would stay until the next refresh).
        if persisted.files > 0 {
            self.reload_reader()?;
        }
        persisted.forget_fresh_columns();
        let point = match &persisted.payload {
            Some(p) => CommitPoint::parse(Some(p)),
            None => CommitPoint::parse(self.index.load_metas()?.payload.as_deref()),
        };
        Ok((point, persisted))
    }

    /// Merges segments down to at most `max_segments` and waits for it.
    /// A background merge may take some of the same segments between our
    /// reading their ids and tantivy ending our merge; tantivy then refuses
    /// ours (`InvalidArgument`), and the ids are read again and the merge
    /// retried, a bounded number of times.
    pub(crate) fn force_merge(&self, max_segments: usize) -> Result<()> {
        let mut lost_races = 0;
        loop {
            let ids = self.index.searchable_segment_ids()?;
            if ids.len() <= max_segments.max(1) {
                break;
            }
            let merge = {
                let _one_commit = self.committer.lock();
                self.writer.lock()?.merge(&ids)
            };
            match merge.wait() {
                Ok(_) => break,
                Err(tantivy::TantivyError::InvalidArgument(_))
                    if lost_races < FORCE_MERGE_RACES =>
                {
                    lost_races += 1;
                    std::thread::sleep(FORCE_MERGE_BACKOFF);
                }
                Err(e) => return Err(e.into()),
            }
        }
        self.reload_reader()?;
        Ok(())
    }

    /// Stops the writer's threads (merges finish first).
    pub(crate) fn close(self) -> Result<()> {
        self.writer.close()
    }
}
