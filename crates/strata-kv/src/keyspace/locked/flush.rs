//! Flushing the whole keyspace: now (every shard locked, one journal
//! record) or after a delay (memcached `flush_all <delay>`, run by
//! maintenance or the next flush call when it falls due).

use std::sync::atomic::Ordering;

use super::LockedShards;
use crate::journal::change;
use crate::keyspace::core::Keyspace;
use crate::KvError;

impl Keyspace {
    /// Removes every item now, with every shard locked.
    pub(crate) fn flush_now(&self) -> Result<(), KvError> {
        self.lock((0..self.shard_count()).collect()).clear()
    }

    /// Removes every item `delay_ms` from now (memcached `flush_all <delay>`);
    /// 0 flushes now. A later call replaces a pending one.
    ///
    /// A delayed flush is journaled when it runs, not when it is asked for:
    /// a restart before it falls due forgets it (as memcached does).
    pub fn flush_after(&self, delay_ms: u64) -> Result<(), KvError> {
        self.ctx.check_journal()?;
        // A flush that already fell due happened before this call.
        self.run_due_flush();
        if delay_ms == 0 {
            self.flush_deadline.store(0, Ordering::Relaxed);
            self.flush_now()?;
        } else {
            self.flush_deadline
                .store(self.now_ms().saturating_add(delay_ms), Ordering::Relaxed);
        }
        Ok(())
    }

    /// Runs a pending delayed flush if its time has come.
    pub(crate) fn run_due_flush(&self) {
        let due = self.flush_deadline.load(Ordering::Relaxed);
        if due != 0
            && self.now_ms() >= due
            && self
                .flush_deadline
                .compare_exchange(due, 0, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            if let Err(e) = self.flush_now() {
                tracing::error!(error = %e, "a delayed flush failed");
            }
        }
    }
}

impl LockedShards<'_> {
    /// Removes every item; every shard must be locked. Journaled unless
    /// the journal failed (callers refuse a client's flush first; a delayed
    /// flush that falls due still runs in memory). Refused, with nothing
    /// changed, when the SSD tier cannot record the flush.
    pub fn clear(&mut self) -> Result<(), KvError> {
        debug_assert_eq!(self.guards.len(), self.ks.shard_count());
        let ctx = &self.ks.ctx;
        // Changes made before the flush stay before it in the record.
        self.collect();
        if let Some(tier) = &ctx.tier {
            // Everything of the old epoch is garbage from here on, even if
            // a crash stops the clearing half way.
            if let Err(e) = tier.begin_flush() {
                tracing::error!(error = %e, "starting a persistent flush failed");
            }
        }
        if let Some(ssd) = &ctx.ssd {
            // The marker shadows every entry before it at a rebuild, so the
            // entries may be released. Without it, nothing may be.
            if let Err(e) = ssd.begin_flush() {
                tracing::error!(error = %e, "flush refused: the SSD tier cannot record it");
                return Err(e);
            }
        }
        for guard in &mut self.guards {
            guard.clear(ctx);
        }
        ctx.changes.flushed();
        if ctx.journaling() {
            change::encode_flush(&mut self.batch);
        }
        Ok(())
    }
}
