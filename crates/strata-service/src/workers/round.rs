//! [`Round`]: a worker's replies held until it has run every connection
//! that was ready, then released together, as Redis writes all replies in
//! `beforeSleep`.
//!
//! A round ends when the worker's run queue is empty and it is about to
//! wait for I/O (tokio's `on_thread_park`): every connection that had
//! input has then been processed, and the held connections are woken to
//! send, back to back, before the worker polls for more input. A client
//! whose replies come in one burst wakes once for them, where replies sent
//! one per task as each connection is processed wake it once each (the
//! sender pays an inter-processor wake-up per reply on a virtual machine).
//!
//! The park hook wakes the held tasks from outside any task, so tokio
//! queues them on its injection queue; a one-worker runtime's worker is
//! its last searcher when it parks and checks that queue before it blocks,
//! so it runs them at once (the pool's tests would hang otherwise).
//! A thread that ran a blocking section (`workers::block_in_place`: DEBUG
//! DIGEST, a script behind another holder) or left its worker
//! (`workers::leave_worker`: a long script) may have handed the worker to
//! another thread, which can have parked already: the driver sends that
//! turn's replies at once and yields back onto the worker before holding
//! again (`handoff.rs`).
//! Which replies are held is `send_policy::SendPolicy`'s choice; the
//! round also remembers whether it or the last one held a pipelined
//! batch, which that policy reads.
//!
//! Invariants: a hold taken in a round is released when that round ends,
//! or sooner when the round has lasted [`STALE_AFTER`] (a connection that
//! keeps the worker busy without replying, such as a large upload, cannot
//! stall the others' replies); the round number only grows, under the
//! lock that guards the waiting list, so a hold never misses its release.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// How long a hold may wait for its round to end before any connection
/// that runs on the worker releases it.
pub(crate) const STALE_AFTER: Duration = Duration::from_micros(200);

/// One worker's current round.
#[derive(Default)]
pub(crate) struct Round {
    waiting: Mutex<Waiting>,
    /// When the first hold of the round was taken, in nanoseconds after
    /// [`epoch`] (0 while none waits): read without the lock on every
    /// request, to release a stale round.
    first_hold: AtomicU64,
    /// Whether a pipelined batch was held: [`THIS_ROUND`] and
    /// [`LAST_ROUND`] bits.
    pipelined: AtomicU8,
}

const THIS_ROUND: u8 = 1;
const LAST_ROUND: u8 = 2;

#[derive(Default)]
struct Waiting {
    /// Rounds ended so far.
    number: u64,
    wakers: Vec<Waker>,
}

impl Round {
    /// Ends the round: every held connection is woken (the worker runs
    /// them before it polls for I/O again).
    pub(crate) fn end(&self) {
        let pipelined = self.pipelined.load(Ordering::Relaxed);
        if pipelined != 0 {
            let last = if pipelined & THIS_ROUND != 0 {
                LAST_ROUND
            } else {
                0
            };
            self.pipelined.store(last, Ordering::Relaxed);
        }
        let mut waiting = self.waiting.lock();
        if waiting.wakers.is_empty() {
            return;
        }
        waiting.number += 1;
        self.first_hold.store(0, Ordering::Relaxed);
        // Waking runs no task, so it cannot come back for the lock.
        for waker in waiting.wakers.drain(..) {
            waker.wake();
        }
    }

    /// Ends the round if its first hold has waited past [`STALE_AFTER`].
    pub(crate) fn end_if_stale(&self, now: Instant) {
        let first = self.first_hold.load(Ordering::Relaxed);
        if first != 0
            && nanos_since_epoch(now).saturating_sub(first) > STALE_AFTER.as_nanos() as u64
        {
            self.end();
        }
    }

    /// Records that a pipelined batch's replies are held this round.
    pub(crate) fn note_pipelined(&self) {
        if self.pipelined.load(Ordering::Relaxed) & THIS_ROUND == 0 {
            self.pipelined.fetch_or(THIS_ROUND, Ordering::Relaxed);
        }
    }

    /// Whether this round or the last one held a pipelined batch.
    pub(crate) fn pipelined_lately(&self) -> bool {
        self.pipelined.load(Ordering::Relaxed) != 0
    }

    /// A future that completes when the current round ends.
    pub(crate) fn hold(self: Arc<Self>) -> Hold {
        let started = self.waiting.lock().number;
        Hold {
            round: self,
            started,
            registered: false,
        }
    }
}

/// Waits for the end of the round it was taken in.
pub(crate) struct Hold {
    round: Arc<Round>,
    started: u64,
    registered: bool,
}

impl Future for Hold {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        let mut waiting = this.round.waiting.lock();
        if waiting.number != this.started {
            return Poll::Ready(());
        }
        if !this.registered {
            if waiting.wakers.is_empty() {
                let now = nanos_since_epoch(Instant::now()).max(1);
                this.round.first_hold.store(now, Ordering::Relaxed);
            }
            waiting.wakers.push(cx.waker().clone());
            this.registered = true;
        }
        Poll::Pending
    }
}

/// The instant hold times are counted from.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn nanos_since_epoch(at: Instant) -> u64 {
    at.saturating_duration_since(epoch()).as_nanos() as u64
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::{Wake, Waker};

    use super::*;

    struct Count(AtomicUsize);

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn poll(hold: &mut Hold, waker: &Waker) -> Poll<()> {
        Pin::new(hold).poll(&mut Context::from_waker(waker))
    }

    #[test]
    fn a_hold_waits_for_the_end_of_its_round_and_is_woken_once() {
        let round = Arc::new(Round::default());
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut hold = round.clone().hold();
        assert!(poll(&mut hold, &waker).is_pending());
        // A second poll before the end registers nothing more.
        assert!(poll(&mut hold, &waker).is_pending());
        round.end();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert!(poll(&mut hold, &waker).is_ready());
        // A round with nothing held ends nothing: a hold taken after it
        // still waits for the next end.
        round.end();
        let mut next = round.clone().hold();
        assert!(poll(&mut next, &waker).is_pending());
        round.end();
        assert!(poll(&mut next, &waker).is_ready());
    }

    #[test]
    fn a_pipelined_batch_is_remembered_for_one_more_round() {
        let round = Round::default();
        assert!(!round.pipelined_lately());
        round.note_pipelined();
        assert!(round.pipelined_lately());
        round.end();
        assert!(round.pipelined_lately(), "the last round had one");
        round.end();
        assert!(!round.pipelined_lately(), "two rounds without");
    }

    #[test]
    fn a_stale_round_is_ended_by_whoever_runs_next() {
        let round = Arc::new(Round::default());
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut hold = round.clone().hold();
        assert!(poll(&mut hold, &waker).is_pending());
        let taken = Instant::now();
        round.end_if_stale(taken);
        assert!(poll(&mut hold, &waker).is_pending(), "not stale yet");
        round.end_if_stale(taken + STALE_AFTER * 2);
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert!(poll(&mut hold, &waker).is_ready());
    }
}
