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
//! Handing over: a push of one element to an empty list whose oldest
//! waiter is a `BLPOP`/`BRPOP` gives the element to that waiter's
//! [`ServeSlot`] instead of writing the list, and wakes it; its next
//! attempt answers with the element without running again (Redis serves a
//! blocked client inside the push too). The list is never written, so the
//! push and the pop cost no record and no log entry; the key's watchers
//! and the push's and pop's events see both. An element handed to a
//! connection that closes before its answer goes back to the list.
//!
//! A missed wake-up is impossible: an attempt reads [`Waiters::seq`] of its
//! keys before it looks at them, and the registration reads it again under
//! the registry's lock, waking at once if a push to one of them happened in
//! between. The push counters are striped by key hash, so pushes to other
//! keys do not wake a waiter for nothing, and a push takes no lock while
//! nobody waits: the pusher bumps its stripe, then reads the count of
//! waiting connections; a registration counts itself, then re-reads the
//! stripes (all `SeqCst`): whichever comes second sees the other.

mod serve;
mod wait;
mod waiters;

pub use serve::{ServeSlot, Served};
pub use wait::{BlockWait, Unblock};
pub use waiters::Waiters;

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::reply::{ClientError, CollectionError, RespError};

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
    /// Set by `CLIENT UNBLOCK` (an [`Unblock`] as a byte, 0: not) while the
    /// connection waits; read and cleared by the attempt that follows.
    pub unblocked: Arc<AtomicU8>,
    /// Where a push hands an element to a blocked `BLPOP`/`BRPOP`.
    pub slot: Arc<ServeSlot>,
}

impl BlockState {
    /// The attempt that just blocked takes an element a push hands it
    /// (from the left end or the right), instead of being woken to pop.
    pub fn take_handed(&mut self, from_left: bool) {
        if let Some(wait) = self.wait.as_mut() {
            self.slot.open(from_left);
            wait.serve = Some(Arc::clone(&self.slot));
        }
    }

    /// Before a blocked request's next attempt: closes the slot, giving
    /// the element a push handed over, if one did (the request is then
    /// answered with it and does not run again).
    pub fn take_served(&mut self) -> Option<Served> {
        match self.deadline {
            Some(_) => self.slot.take(),
            None => None,
        }
    }

    /// The blocking request at the front of the input is done (answered or
    /// timed out): the next one starts afresh.
    pub fn finish(&mut self) {
        self.deadline = None;
        self.stream_ids = None;
        self.unblocked.store(0, Ordering::Relaxed);
    }
}

/// Timeouts beyond this many seconds (about 35,000 years) wait forever:
/// an `Instant` that far ahead may not be representable.
const FOREVER_SECS: u64 = 1 << 40;

/// Parses a blocking command's timeout in seconds (fractions allowed, 0:
/// forever) as Redis does (`strata_float::timeout_millis`): rounded up to
/// whole milliseconds, so `0.0001` waits 1 ms and `-0.0001` forever;
/// beyond the 64-bit range it is negative; past what the clock can add to
/// now, out of range.
pub fn parse_timeout(arg: &[u8]) -> Result<Option<Duration>, RespError> {
    let ms = strata_float::timeout_millis(arg).ok_or(CollectionError::TimeoutNotFloat)?;
    let ms = u64::try_from(ms).map_err(|_| CollectionError::NegativeTimeout)?;
    if ms == 0 {
        return Ok(None);
    }
    // The batch's reading (Redis checks against `commandTimeSnapshot`).
    let now_ms = strata_kv::Clock::now_ms(&strata_kv::SystemClock);
    if ms > i64::MAX as u64 - now_ms {
        return Err(CollectionError::TimeoutOutOfRange.into());
    }
    let timeout = Duration::from_millis(ms);
    Ok((timeout.as_secs() < FOREVER_SECS).then_some(timeout))
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
/// if the timeout passed). A wait that `CLIENT UNBLOCK` ended answers as
/// timed out, or with `-UNBLOCKED` (an element that arrived meanwhile is
/// served instead, as if its push had come first).
pub fn block_on(
    state: &mut BlockState,
    keys: impl Iterator<Item = Box<[u8]>>,
    timeout: Option<Duration>,
    seq: u64,
    can_wait: bool,
) -> Result<Outcome, RespError> {
    let unblocked = state.unblocked.swap(0, Ordering::AcqRel);
    if unblocked != 0 {
        state.finish();
        return match unblocked {
            u if u == Unblock::Error as u8 => Err(RespError::Client(ClientError::Unblocked)),
            _ => Ok(Outcome::TimedOut),
        };
    }
    let now = Instant::now();
    let deadline = *state
        .deadline
        .get_or_insert_with(|| timeout.and_then(|t| now.checked_add(t)));
    if !can_wait || deadline.is_some_and(|at| at <= now) {
        state.finish();
        return Ok(Outcome::TimedOut);
    }
    state.wait = Some(BlockWait {
        keys: keys.collect(),
        deadline,
        seq,
        unblocked: Arc::clone(&state.unblocked),
        durable: None,
        serve: None,
    });
    Ok(Outcome::Blocked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_read_as_redis_reads_them() {
        let error = |text: &str| parse_timeout(text.as_bytes()).unwrap_err().to_string();
        assert_eq!(parse_timeout(b"0").unwrap(), None, "0 waits forever");
        assert_eq!(parse_timeout(b"2").unwrap(), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_timeout(b"0.25").unwrap(),
            Some(Duration::from_millis(250))
        );
        assert_eq!(error("-1"), "ERR timeout is negative");
        assert_eq!(error("x"), "ERR timeout is not a float or out of range");
        // Past i64::MAX milliseconds counted from now: Redis 7.2's check (7.0.15
        // blocks on it, its deadline overflowing).
        assert_eq!(error("9223372036854775"), "ERR timeout is out of range");
        let _now = strata_kv::hold_now();
        assert_eq!(error("9223372036854775"), "ERR timeout is out of range");
    }
}
