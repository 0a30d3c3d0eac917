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
//! on.
//!
//! A missed wake-up is impossible: an attempt reads [`Waiters::seq`] of its
//! keys before it looks at them, and the registration reads it again under
//! the registry's lock, waking at once if a push to one of them happened in
//! between. The push counters are striped by key hash, so pushes to other
//! keys do not wake a waiter for nothing, and a push takes no lock while
//! nobody waits: the pusher bumps its stripe, then reads the count of
//! waiting connections; a registration counts itself, then re-reads the
//! stripes (all `SeqCst`): whichever comes second sees the other.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, BuildHasherDefault};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use rustc_hash::FxHasher;
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

/// Stripes of the push counter (a power of two).
const STRIPES: usize = 64;

/// Every blocked connection, by key (one per front end).
#[derive(Debug)]
pub struct Waiters {
    /// Pushes so far, per stripe of keys (by hash); only ever grow.
    pushes: [AtomicU64; STRIPES],
    /// Connections registered and not yet gone: pushes skip the lock at 0.
    waiting: AtomicUsize,
    by_key: Mutex<ByKey>,
}

/// Each key's waiters, oldest first.
type ByKey = HashMap<Box<[u8]>, VecDeque<Arc<Waiter>>>;

impl Default for Waiters {
    fn default() -> Waiters {
        Waiters {
            pushes: std::array::from_fn(|_| AtomicU64::new(0)),
            waiting: AtomicUsize::new(0),
            by_key: Mutex::default(),
        }
    }
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
    /// The identifiers a blocked `XREAD` waits past, fixed at its first
    /// attempt (Redis rewrites `$` to the stream's last identifier then).
    pub stream_ids: Option<Vec<crate::stream::StreamId>>,
}

impl BlockState {
    /// The blocking request at the front of the input is done (answered or
    /// timed out): the next one starts afresh.
    pub fn finish(&mut self) {
        self.deadline = None;
        self.stream_ids = None;
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

    /// Registers `wait` and returns the future the driver awaits: it ends
    /// on a push to one of the keys, at the deadline, or at once if a push
    /// to one of them happened since the attempt read [`Waiters::seq`].
    pub fn wait(
        self: &Arc<Self>,
        wait: BlockWait,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send + 'static>> {
        let waiter = Arc::new(Waiter::default());
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
                true
            }
        };
        let guard = Registered {
            waiters: Arc::clone(self),
            waiter: Arc::clone(&waiter),
            keys: wait.keys,
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

/// Parses a timeout in milliseconds (an integer, 0: forever) as Redis's
/// `getTimeoutFromObjectOrReply` does for `XREAD BLOCK` and `WAIT`.
pub fn parse_timeout_ms(arg: &[u8]) -> Result<Option<Duration>, RespError> {
    let ms = crate::number::parse_i64(arg).ok_or(CollectionError::TimeoutNotInteger)?;
    let ms = u64::try_from(ms).map_err(|_| CollectionError::NegativeTimeout)?;
    Ok((ms > 0).then(|| Duration::from_millis(ms)))
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
        state.finish();
        return Outcome::TimedOut;
    }
    state.wait = Some(BlockWait {
        keys: keys.collect(),
        deadline,
        seq,
    });
    Outcome::Blocked
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use super::{BlockWait, Waiters};

    fn wait_on(key: &[u8], seq: u64) -> BlockWait {
        BlockWait {
            keys: vec![Box::from(key)],
            deadline: Some(Instant::now() + Duration::from_millis(300)),
            seq,
        }
    }

    /// Whether the wait ended before its deadline.
    fn woken_early(fut: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>) -> bool {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap();
        let started = Instant::now();
        rt.block_on(fut);
        started.elapsed() < Duration::from_millis(250)
    }

    #[test]
    fn a_push_to_another_key_does_not_wake_a_waiter() {
        let waiters = Arc::new(Waiters::default());
        let seq = waiters.seq([&b"q"[..]]);
        // Another key in another stripe: pushed between the look and the
        // registration, it must not count as a push to "q".
        let other = (0..1000u32)
            .map(|i| format!("other{i}").into_bytes())
            .find(|k| !std::ptr::eq(waiters.stripe(k), waiters.stripe(b"q")))
            .unwrap();
        waiters.pushed(&other);
        assert_eq!(waiters.seq([&b"q"[..]]), seq);
        let fut = waiters.wait(wait_on(b"q", seq));
        assert!(waiters.any_waiting());
        assert!(!woken_early(fut), "woken by a push to another key");
        assert!(
            !waiters.any_waiting(),
            "a finished wait is no longer counted"
        );
    }

    #[test]
    fn a_push_between_the_look_and_the_registration_wakes_at_once() {
        let waiters = Arc::new(Waiters::default());
        let seq = waiters.seq([&b"q"[..], &b"r"[..]]);
        waiters.pushed(b"r");
        let wait = BlockWait {
            keys: vec![Box::from(&b"q"[..]), Box::from(&b"r"[..])],
            deadline: Some(Instant::now() + Duration::from_secs(5)),
            seq,
        };
        let fut = waiters.wait(wait);
        assert!(!waiters.any_waiting(), "woken at registration: not counted");
        assert!(woken_early(fut));
    }

    #[test]
    fn a_push_wakes_the_oldest_waiter_only() {
        let waiters = Arc::new(Waiters::default());
        let seq = waiters.seq([&b"q"[..]]);
        let first = waiters.wait(wait_on(b"q", seq));
        let second = waiters.wait(wait_on(b"q", seq));
        waiters.pushed(b"q");
        assert!(woken_early(first));
        assert!(!woken_early(second), "the second waiter was woken too");
        assert!(!waiters.any_waiting());
    }
}
