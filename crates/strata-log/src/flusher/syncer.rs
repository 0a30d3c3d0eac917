//! The background syncer of `Async` mode: a thread that runs the interval's
//! `fdatasync` while the flusher goes on writing.
//!
//! Why: in `Async` mode a process crash may lose only what is still in the
//! append buffer, since what the flusher wrote is in the page cache. A sync
//! run on the flusher's own thread kept it from writing for as long as the
//! device took: under I/O load an `fdatasync` of several hundred
//! milliseconds left that much acknowledged data in process memory, and a
//! `kill -9` lost it (the crash-loop test saw 1 s lost at a 100 ms
//! interval). So the interval's sync runs here and the flusher keeps
//! writing; one sync is in flight at a time.
//!
//! What stays on the flusher's thread: syncs someone waits for (`flush`,
//! close, `Sync` and `OnDemand` modes) and the sync before a rotation
//! (a segment is synced whole before the next one gets a record, so only
//! the last segment can end torn).
//!
//! A successful sync publishes its LSN (the durable LSN only grows, so a
//! late one never moves it back) and reports the synced length of its
//! segment to the flusher. A failed one poisons the log, as a sync failure
//! on the flusher's thread does; the flusher then stops.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};
use strata_device::Device;

use crate::shared::Shared;
use crate::LogError;

/// One sync to run: `device` covers records up to `lsn`, its first `len`
/// bytes, of the segment `segment` (by first LSN).
pub(super) struct Request {
    pub device: Arc<dyn Device>,
    pub segment: u64,
    pub name: String,
    pub lsn: u64,
    pub len: u64,
}

/// A finished sync: the segment (by first LSN), its synced length and LSN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Synced {
    pub segment: u64,
    pub len: u64,
    pub lsn: u64,
}

#[derive(Default)]
struct Slot {
    request: Option<Request>,
    busy: bool,
    done: Option<Synced>,
    /// A sync failed (the log is poisoned).
    failed: bool,
    stop: bool,
}

struct State {
    slot: Mutex<Slot>,
    cv: Condvar,
}

/// The syncer thread and its one-request slot.
pub(super) struct Syncer {
    state: Arc<State>,
    thread: Option<JoinHandle<()>>,
}

impl Syncer {
    /// Starts the thread.
    pub fn start(shared: Arc<Shared>) -> std::io::Result<Syncer> {
        let state = Arc::new(State {
            slot: Mutex::new(Slot::default()),
            cv: Condvar::new(),
        });
        let run = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name("strata-log-sync".into())
            .spawn(move || serve(&run, &shared))?;
        Ok(Syncer {
            state,
            thread: Some(thread),
        })
    }

    /// Whether a sync is queued or running.
    pub fn busy(&self) -> bool {
        let slot = self.state.slot.lock();
        slot.busy || slot.request.is_some()
    }

    /// Queues `request`; `false` (and nothing queued) while one is in flight.
    pub fn request(&self, request: Request) -> bool {
        let mut slot = self.state.slot.lock();
        if slot.busy || slot.request.is_some() {
            return false;
        }
        slot.request = Some(request);
        self.state.cv.notify_all();
        true
    }

    /// The last finished sync not yet taken; `Err` once one failed.
    pub fn take_done(&self) -> Result<Option<Synced>, ()> {
        let mut slot = self.state.slot.lock();
        match slot.failed {
            true => Err(()),
            false => Ok(slot.done.take()),
        }
    }
}

impl Syncer {
    /// Stops the thread once the sync in hand (if any) is done and
    /// returns what `take_done` would then.
    pub fn finish(mut self) -> Result<Option<Synced>, ()> {
        self.stop_and_join();
        self.take_done()
    }

    fn stop_and_join(&mut self) {
        self.state.slot.lock().stop = true;
        self.state.cv.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Syncer {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// The thread: runs each queued sync until told to stop (after the one in
/// hand, if any).
fn serve(state: &State, shared: &Shared) {
    loop {
        let request = {
            let mut slot = state.slot.lock();
            loop {
                if let Some(r) = slot.request.take() {
                    slot.busy = true;
                    break r;
                }
                if slot.stop {
                    return;
                }
                state.cv.wait(&mut slot);
            }
        };
        let result = request.device.sync();
        // Never call into the shared state holding the slot: the flusher
        // takes the slot under the shared state's lock (`busy`).
        match result {
            Ok(()) => {
                shared.syncs.fetch_add(1, Ordering::Relaxed);
                shared.publish_durable(request.lsn);
                let mut slot = state.slot.lock();
                slot.busy = false;
                // Results of one segment only grow; the flusher keeps the
                // larger of what it has and this.
                slot.done = Some(Synced {
                    segment: request.segment,
                    len: request.len,
                    lsn: request.lsn,
                });
            }
            Err(e) => {
                // Marked failed before the poison wakes the flusher, so
                // that it finds the failure when it looks.
                {
                    let mut slot = state.slot.lock();
                    slot.busy = false;
                    slot.failed = true;
                }
                let what = format!("sync {}", request.name);
                shared.poison(LogError::io(what, e));
            }
        }
        state.cv.notify_all();
        // The flusher does not wait for a sync while one runs: wake it
        // (under its lock, so that a flusher which saw this sync busy is
        // already waiting).
        let _pending = shared.pending.lock();
        shared.work.notify_one();
    }
}
