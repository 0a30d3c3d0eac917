//! Blocking list and sorted-set pops (`BLPOP`, `BRPOP`, `BLMOVE`,
//! `BRPOPLPUSH`, `BZPOPMIN`, `BZPOPMAX`) without blocking a worker thread.
//!
//! A blocking command that finds nothing to pop writes no reply and leaves
//! a [`BlockWait`] on its connection; the session then leaves the request
//! in the input (as a deferred SSD read does) and hands the driver a future
//! ([`Waiters::wait`]) that resolves when one of the keys is pushed to or
//! the deadline passes; the driver awaits it off the worker thread and runs
//! the request again. The deadline is fixed at the first attempt
//! ([`BlockState::deadline`]) so re-runs never extend it; the attempt that
//! finds the deadline passed replies null.
//!
//! Arrival order: each key keeps a FIFO of waiters. A push wakes only the
//! first live waiter; when it has popped and elements remain, it wakes the
//! next ([`Waiters::pushed`] again), so waiters pop one after the other in
//! the order they came, as Redis serves them. A woken waiter whose wait is
//! dropped before it could run (its connection closed) passes the wake-up
//! on. A missed wake-up is impossible: an
//! attempt reads [`Waiters::seq`] before it looks at the keys, and the
//! registration compares it under the registry's lock, waking at once if a
//! push happened in between.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use tokio::sync::Notify;

use crate::number::parse_f64;
use crate::reply::{CollectionError, RespError};

/// One blocked connection's wake-up.
#[derive(Debug, Default)]
struct Waiter {
    notify: Notify,
    /// Woken, timed out or gone: skipped by later pushes.
    done: AtomicBool,
    /// Woken by a push (not by its deadline).
    woken: AtomicBool,
    /// The wait ended and the request runs again.
    finished: AtomicBool,
}

#[derive(Debug, Default)]
struct Registry {
    /// Pushes so far (any key).
    seq: u64,
    by_key: HashMap<Box<[u8]>, VecDeque<Arc<Waiter>>>,
}

/// Every blocked connection, by key (one per front end).
#[derive(Debug, Default)]
pub struct Waiters {
    registry: Mutex<Registry>,
}

/// What a blocking command that found nothing asks the session to wait for.
#[derive(Debug, Clone)]
pub struct BlockWait {
    /// The keys whose pushes wake it.
    pub keys: Vec<Box<[u8]>>,
    /// When it gives up (`None`: never).
    pub deadline: Option<Instant>,
    /// [`Waiters::seq`] read before the attempt looked at the keys.
    pub seq: u64,
}

/// A connection's blocking state.
#[derive(Debug, Default)]
pub struct BlockState {
    /// The deadline of the blocking request at the front of the input,
    /// fixed at its first attempt (`Some(None)`: waits forever).
    pub deadline: Option<Option<Instant>>,
    /// Set by an attempt that found nothing: the session waits.
    pub wait: Option<BlockWait>,
}

impl Waiters {
    /// The push counter, read before an attempt looks at its keys.
    pub fn seq(&self) -> u64 {
        self.registry.lock().seq
    }

    /// Something was pushed to `key` (or is left there after a blocked
    /// client's pop): wakes the oldest connection blocked on it.
    pub fn pushed(&self, key: &[u8]) {
        let mut registry = self.registry.lock();
        registry.seq += 1;
        let Some(queue) = registry.by_key.get_mut(key) else {
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
            registry.by_key.remove(key);
        }
    }

    /// Registers `wait` and returns the future the driver awaits: it ends
    /// on a push to one of the keys, at the deadline, or at once if a push
    /// happened since the attempt read the counter.
    pub fn wait(
        self: &Arc<Self>,
        wait: BlockWait,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'static>> {
        let waiter = Arc::new(Waiter::default());
        {
            let mut registry = self.registry.lock();
            if registry.seq != wait.seq {
                waiter.done.store(true, Ordering::Release);
                waiter.notify.notify_one();
            } else {
                for key in &wait.keys {
                    registry
                        .by_key
                        .entry(key.clone())
                        .or_default()
                        .push_back(Arc::clone(&waiter));
                }
            }
        }
        let guard = Registered {
            waiters: Arc::clone(self),
            waiter: Arc::clone(&waiter),
            keys: wait.keys,
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
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.waiter.done.store(true, Ordering::Release);
        {
            let mut registry = self.waiters.registry.lock();
            for key in &self.keys {
                if let Some(queue) = registry.by_key.get_mut(key) {
                    queue.retain(|w| !Arc::ptr_eq(w, &self.waiter));
                    if queue.is_empty() {
                        registry.by_key.remove(key);
                    }
                }
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

/// Parses a blocking command's timeout in seconds (fractions allowed, 0:
/// forever) as Redis does.
pub fn parse_timeout(arg: &[u8]) -> Result<Option<Duration>, RespError> {
    let secs = parse_f64(arg).ok_or(CollectionError::TimeoutNotFloat)?;
    if secs < 0.0 {
        return Err(CollectionError::NegativeTimeout.into());
    }
    if secs == 0.0 {
        return Ok(None);
    }
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| d.as_secs() < 1 << 40)
        .map(Some)
        .ok_or(CollectionError::TimeoutOutOfRange.into())
}

/// What an attempt that found nothing does next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Reply null: the deadline passed (or waiting is impossible here).
    TimedOut,
    /// The session waits; no reply was written.
    Blocked,
}

/// Called by a blocking command whose attempt found nothing: blocks the
/// connection on `keys` until the deadline fixed at the first attempt, or
/// says it timed out. `can_wait` is false inside `EXEC` (Redis answers as
/// if the timeout passed).
pub fn block_on(
    state: &mut BlockState,
    keys: impl Iterator<Item = Box<[u8]>>,
    timeout: Option<Duration>,
    seq: u64,
    can_wait: bool,
) -> Outcome {
    let now = Instant::now();
    let deadline = *state
        .deadline
        .get_or_insert_with(|| timeout.and_then(|t| now.checked_add(t)));
    if !can_wait || deadline.is_some_and(|at| at <= now) {
        state.deadline = None;
        return Outcome::TimedOut;
    }
    state.wait = Some(BlockWait {
        keys: keys.collect(),
        deadline,
        seq,
    });
    Outcome::Blocked
}
