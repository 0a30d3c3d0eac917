//! With a persistent index (`index = pmem`, `data = ssd`): the records
//! kept on the device as some stub's fallback ([`Prior::Fallback`]) until
//! that stub's own record is durable, and the choice of each new stub's
//! [`Prior`].
//!
//! Why: a stub in persistent memory survives a crash at once, its record
//! only after the next SSD flush. If the record is lost, the restart
//! serves the key's newest record that reached the device instead (see
//! `open/ssd_adopt.rs`), so that record must still be there: a superseded
//! record that was durable when it was superseded is not released at
//! once but kept here, and released by the first flush that covers the
//! record superseding it.
//!
//! Flushes are numbered when they start; a kept record carries the number
//! of flushes started when its stub's record had been appended, and any
//! flush with a higher number (it took the store's writer lock after that
//! append) makes the stub's record durable.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use strata_ssd::{BlockLoc, Position, SsdStore};

use super::stub::{Prior, StubValue, ValueRef};

/// A record kept as a fallback.
struct Kept {
    len: u32,
    /// The key's hash (what its cached copy is filed under).
    hint: u64,
    /// Released by a completed flush numbered above this.
    until: u64,
}

/// See the module documentation.
#[derive(Default)]
pub(crate) struct Fallbacks {
    /// Flushes started so far.
    started: AtomicU64,
    /// By the record's packed location.
    kept: Mutex<HashMap<u64, Kept>>,
}

impl Fallbacks {
    /// The prior of a new stub of a key whose new record was just appended
    /// at `new` (its position `new_position`) and whose stub until now is
    /// `old` (`None`: the key was absent). The caller links the new stub
    /// and releases the old record unless the prior names it as its
    /// fallback (it is kept here then), or calls [`unkeep`](Self::unkeep)
    /// with it if the new stub is not linked after all.
    ///
    /// Decided under the lock that flushes release kept records under, so
    /// the synced position read here and the kept set agree.
    pub fn prior_for(
        &self,
        store: &SsdStore,
        old: Option<StubValue>,
        new_position: Position,
        hint: u64,
    ) -> Prior {
        let Some(old) = old else {
            return Prior::Since(new_position);
        };
        let mut kept = self.kept.lock();
        let started = self.started.load(Ordering::SeqCst);
        let synced = store.synced_position();
        let old_position = store.position(old.current.loc);
        if old_position.is_some_and(|p| p < synced) {
            // The old record is durable: it is the fallback now, and every
            // later record of the key will lie at or after `synced`.
            kept.insert(
                old.current.loc.pack(),
                Kept {
                    len: old.current.len,
                    hint,
                    until: started,
                },
            );
            return Prior::Fallback {
                record: old.current,
                since: synced,
            };
        }
        // The old record is not durable yet: the old stub's candidates
        // still stand, and its fallback is kept until this record is
        // durable too.
        match old.prior {
            Prior::Fallback { record, since } => match kept.get_mut(&record.loc.pack()) {
                Some(k) => {
                    k.until = k.until.max(started);
                    Prior::Fallback { record, since }
                }
                None => {
                    tracing::warn!(loc = %record.loc, "an SSD fallback record was released early");
                    Prior::Since(old_position.unwrap_or(new_position))
                }
            },
            Prior::Since(since) => Prior::Since(since),
            // A stub without candidates names a durable record (a
            // defragmenter's copy, a restart's repair): not reached.
            Prior::None => Prior::Since(old_position.unwrap_or(new_position)),
        }
    }

    /// Forgets `record` as kept (a stub whose prior named it was not
    /// linked): it is its key's current record again.
    pub fn unkeep(&self, record: &ValueRef) {
        self.kept.lock().remove(&record.loc.pack());
    }

    /// Flushes `store` (see [`SsdStore::flush`]) and releases the records
    /// whose stubs' records it made durable.
    pub fn flush(&self, store: &SsdStore) -> Result<(), strata_ssd::SsdError> {
        let number = self.started.fetch_add(1, Ordering::SeqCst) + 1;
        store.flush()?;
        let mut done = Vec::new();
        self.kept.lock().retain(|&packed, k| {
            let keep = k.until >= number;
            if !keep {
                done.push((BlockLoc::unpack(packed), k.len, k.hint));
            }
            keep
        });
        for (loc, len, hint) in done {
            if let Err(e) = store.release_hinted(loc, len as usize, hint) {
                tracing::error!(error = %e, %loc, "releasing a kept SSD record failed");
            }
        }
        Ok(())
    }

    /// Records kept now.
    pub fn count(&self) -> usize {
        self.kept.lock().len()
    }
}
