//! [`Waiters`]: every blocked connection, by key and by client, with the
//! push counters that make a missed wake-up impossible (see the parent
//! module), and `CLIENT UNBLOCK`'s way in.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;
use rustc_hash::FxHasher;
use tokio::sync::Notify;

use super::serve::ServeSlot;
use super::wait::{BlockWait, Unblock};

/// One blocked connection's wake-up.
#[derive(Debug, Default)]
struct Waiter {
    notify: Notify,
    /// Its slot when a push may hand it an element (see [`ServeSlot`]).
    serve: Option<Arc<ServeSlot>>,
    /// Woken, timed out or gone: skipped by later pushes.
    done: AtomicBool,
    /// Woken by a push (not by its deadline).
    woken: AtomicBool,
    /// The wait ended and the request runs again.
    finished: AtomicBool,
}

/// Stripes of the push counter (a power of two).
const STRIPES: usize = 64;

/// Every blocked connection, by key (one per front end).
#[derive(Debug)]
pub struct Waiters {
    /// Each blocked client's waiter and unblock cell, for `CLIENT UNBLOCK`
    /// (taken after `by_key` when both are).
    by_client: Mutex<HashMap<u64, ByClient>>,
    /// Pushes so far, per stripe of keys (by hash); only ever grow.
    pushes: [AtomicU64; STRIPES],
    /// Connections registered and not yet gone: pushes skip the lock at 0.
    waiting: AtomicUsize,
    by_key: Mutex<ByKey>,
}

/// A blocked client's waiter and the cell `CLIENT UNBLOCK` marks.
type ByClient = (Arc<Waiter>, Arc<AtomicU8>);

/// Each key's waiters, oldest first.
type ByKey = HashMap<Box<[u8]>, VecDeque<Arc<Waiter>>>;

impl Default for Waiters {
    fn default() -> Waiters {
        Waiters {
            by_client: Mutex::default(),
            pushes: std::array::from_fn(|_| AtomicU64::new(0)),
            waiting: AtomicUsize::new(0),
            by_key: Mutex::default(),
        }
    }
}

impl Waiters {
    fn stripe(&self, key: &[u8]) -> &AtomicU64 {
        let hash = BuildHasherDefault::<FxHasher>::default().hash_one(key);
        // The stripe count is a power of two: the mask keeps any hash in range.
        &self.pushes[hash as usize & (STRIPES - 1)]
    }

    /// The push counter of `keys`, read before an attempt looks at them:
    /// the sum of their stripes, which changes exactly when one of them
    /// grows (they only grow).
    pub fn seq<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>) -> u64 {
        keys.into_iter().fold(0u64, |sum, key| {
            sum.wrapping_add(self.stripe(key).load(Ordering::SeqCst))
        })
    }

    /// Connections waiting now (`INFO`'s `blocked_clients`).
    pub fn blocked(&self) -> usize {
        self.waiting.load(Ordering::Relaxed)
    }

    /// Whether any connection waits (a cheap check before work that only
    /// matters to waiters).
    pub fn any_waiting(&self) -> bool {
        self.waiting.load(Ordering::SeqCst) > 0
    }

    /// An entry was added to the stream at `key`: wakes every connection
    /// blocked on it (readers of a stream do not consume what they read,
    /// so each may have something; those that find nothing wait again).
    pub fn pushed_all(&self, key: &[u8]) {
        self.stripe(key).fetch_add(1, Ordering::SeqCst);
        if !self.any_waiting() {
            return;
        }
        let mut by_key = self.by_key.lock();
        let Some(queue) = by_key.remove(key) else {
            return;
        };
        for waiter in queue {
            if !waiter.done.swap(true, Ordering::AcqRel) {
                waiter.woken.store(true, Ordering::Release);
                waiter.notify.notify_one();
            }
        }
    }

    /// Something was pushed to `key` (or is left there after a blocked
    /// client's pop): wakes the oldest connection blocked on it.
    pub fn pushed(&self, key: &[u8]) {
        self.stripe(key).fetch_add(1, Ordering::SeqCst);
        if !self.any_waiting() {
            return;
        }
        let mut by_key = self.by_key.lock();
        let Some(queue) = by_key.get_mut(key) else {
            return;
        };
        while let Some(waiter) = queue.pop_front() {
            if !waiter.done.swap(true, Ordering::AcqRel) {
                waiter.woken.store(true, Ordering::Release);
                waiter.notify.notify_one();
                break;
            }
        }
        if queue.is_empty() {
            by_key.remove(key);
        }
    }

    /// A push of one `element` to `key`, which holds nothing: hands it
    /// (answered once the log is durable through `after_lsn`) to
    /// the oldest connection blocked on `key` if that one takes elements
    /// handed over (its [`ServeSlot`] is open) and wakes it. `Some` of that
    /// pop's end (`true`: left) when it did; `None` when nobody waits or
    /// the oldest waiter pops for itself (`BLMOVE`, `BLMPOP`, a sorted-set
    /// pop, ...): the caller then pushes and wakes as usual. The caller
    /// holds the key's shard, so the key stays empty meanwhile.
    pub fn hand_over(&self, key: &[u8], element: &[u8], after_lsn: u64) -> Option<bool> {
        if !self.any_waiting() {
            return None;
        }
        let mut by_key = self.by_key.lock();
        let queue = by_key.get_mut(key)?;
        let mut served = None;
        while let Some(waiter) = queue.pop_front() {
            if waiter.done.load(Ordering::Acquire) {
                continue;
            }
            let Some(slot) = waiter.serve.as_ref() else {
                // It pops for itself: it stays first in line.
                queue.push_front(waiter);
                break;
            };
            // Claimed here: no other push, nor CLIENT UNBLOCK, ends it now.
            if waiter.done.swap(true, Ordering::AcqRel) {
                continue;
            }
            // A closed slot: its attempt ran already (it ended meanwhile).
            if let Some(from_left) = slot.fill(key, element, after_lsn) {
                waiter.notify.notify_one();
                served = Some(from_left);
                break;
            }
        }
        if queue.is_empty() {
            by_key.remove(key);
        }
        served
    }

    /// `CLIENT UNBLOCK`: ends the wait of `client` if it is blocked and
    /// not already woken, marking how; true when it was.
    pub fn unblock(&self, client: u64, how: Unblock) -> bool {
        let by_client = self.by_client.lock();
        let Some((waiter, cell)) = by_client.get(&client) else {
            return false;
        };
        if waiter.done.swap(true, Ordering::AcqRel) {
            return false;
        }
        cell.store(how as u8, Ordering::Release);
        waiter.notify.notify_one();
        true
    }

    /// Registers `wait` and returns the future the driver awaits: it ends
    /// on a push to one of the keys, at the deadline, or at once if a push
    /// to one of them happened since the attempt read [`Waiters::seq`].
    pub fn wait(
        self: &Arc<Self>,
        wait: BlockWait,
        client: u64,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'static>> {
        let waiter = Arc::new(Waiter {
            serve: wait.serve.clone(),
            ..Waiter::default()
        });
        let registered = {
            let mut by_key = self.by_key.lock();
            self.waiting.fetch_add(1, Ordering::SeqCst);
            if self.seq(wait.keys.iter().map(|k| &k[..])) != wait.seq {
                self.waiting.fetch_sub(1, Ordering::SeqCst);
                waiter.done.store(true, Ordering::Release);
                waiter.notify.notify_one();
                false
            } else {
                for key in &wait.keys {
                    by_key
                        .entry(key.clone())
                        .or_default()
                        .push_back(Arc::clone(&waiter));
                }
                let cell = Arc::clone(&wait.unblocked);
                self.by_client
                    .lock()
                    .insert(client, (Arc::clone(&waiter), cell));
                true
            }
        };
        let guard = Registered {
            waiters: Arc::clone(self),
            waiter: Arc::clone(&waiter),
            keys: wait.keys,
            client,
            registered,
        };
        Box::pin(async move {
            let guard = guard;
            match wait.deadline {
                Some(at) => {
                    let at = tokio::time::Instant::from_std(at);
                    let _ = tokio::time::timeout_at(at, waiter.notify.notified()).await;
                }
                None => waiter.notify.notified().await,
            }
            guard.waiter.finished.store(true, Ordering::Release);
        })
    }
}

/// Removes a waiter from its keys' queues when its wait ends (woken, timed
/// out, or the connection closed), so queues hold only live waiters.
struct Registered {
    waiters: Arc<Waiters>,
    waiter: Arc<Waiter>,
    keys: Vec<Box<[u8]>>,
    client: u64,
    /// Counted in [`Waiters::waiting`] (not when woken at registration).
    registered: bool,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.waiter.done.store(true, Ordering::Release);
        if self.registered {
            let mut by_key = self.waiters.by_key.lock();
            for key in &self.keys {
                if let Some(queue) = by_key.get_mut(key) {
                    queue.retain(|w| !Arc::ptr_eq(w, &self.waiter));
                    if queue.is_empty() {
                        by_key.remove(key);
                    }
                }
            }
            self.waiters.waiting.fetch_sub(1, Ordering::SeqCst);
            let mut by_client = self.waiters.by_client.lock();
            // Only this wait's entry: a client waits for one request at a time.
            if by_client
                .get(&self.client)
                .is_some_and(|(w, _)| Arc::ptr_eq(w, &self.waiter))
            {
                by_client.remove(&self.client);
            }
        }
        let woken = self.waiter.woken.load(Ordering::Acquire);
        if woken && !self.waiter.finished.load(Ordering::Acquire) {
            // Woken, but its connection went away: the push is not lost.
            for key in &self.keys {
                self.waiters.pushed(key);
            }
        }
    }
}

#[cfg(test)]
#[path = "waiters_tests.rs"]
mod tests;
