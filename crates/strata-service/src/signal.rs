//! [`Signal`]: what the outside tells one connection's driver, with one
//! lock-free waker: close now (`CLIENT KILL`, `ACL DELUSER`, a subscriber
//! over its output limit), stop reading (server shutdown), or re-read the
//! idle limit (`CONFIG SET timeout`).
//!
//! Why not a cancellation token and a watch channel per connection: the
//! driver waits on these around every read, and each of those registers a
//! waiter in a list under a mutex and unlinks it when the read completes;
//! at one request per read that was about 5% of the server's CPU. Here a
//! wait stores the task's waker in an [`AtomicWaker`] (a compare, no
//! allocation, when the same task waits again) and reads one flag word.
//!
//! Invariant: the waker is registered before the flags are read, and a
//! sender sets its flag before waking, so a flag set while a wait is being
//! set up is either seen by that wait or wakes it. Only one task (the
//! connection's driver) waits on a signal.

use std::sync::atomic::{AtomicU8, Ordering};
use std::task::{Context, Poll};

use atomic_waker::AtomicWaker;

/// Closed from outside: stop reading and stop waiting for the client to
/// take replies.
const CLOSE: u8 = 1;
/// The server shuts down: stop reading; replies already produced are
/// still sent.
const SHUTDOWN: u8 = 2;
/// The idle limit changed: the wait recomputes its deadline.
const RECHECK: u8 = 4;

/// What ended a wait on a [`Signal`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// Closed from outside.
    Closed,
    /// The server shuts down.
    Shutdown,
    /// The idle limit changed.
    Recheck,
}

/// One connection's signal.
#[derive(Debug, Default)]
pub struct Signal {
    flags: AtomicU8,
    waker: AtomicWaker,
}

impl Signal {
    fn raise(&self, flag: u8) {
        self.flags.fetch_or(flag, Ordering::AcqRel);
        self.waker.wake();
    }

    /// Closes the connection: replies already produced are sent if the
    /// socket takes them at once, no further input is read. Idempotent.
    pub fn close(&self) {
        self.raise(CLOSE);
    }

    /// The server shuts down: the connection reads no more input.
    pub(crate) fn shut_down(&self) {
        self.raise(SHUTDOWN);
    }

    /// The idle limit changed.
    pub(crate) fn recheck(&self) {
        self.raise(RECHECK);
    }

    /// True once [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.flags.load(Ordering::Acquire) & CLOSE != 0
    }

    /// True once the connection should read no more input (closed or
    /// shutting down).
    pub(crate) fn stops_reading(&self) -> bool {
        self.flags.load(Ordering::Acquire) & (CLOSE | SHUTDOWN) != 0
    }

    /// Ready with the first event pending (a recheck is consumed, closing
    /// and shutdown stay raised); registers the task's waker otherwise.
    pub(crate) fn poll_event(&self, cx: &mut Context<'_>) -> Poll<Event> {
        self.waker.register(cx.waker());
        let flags = self.flags.load(Ordering::Acquire);
        if flags & CLOSE != 0 {
            Poll::Ready(Event::Closed)
        } else if flags & SHUTDOWN != 0 {
            Poll::Ready(Event::Shutdown)
        } else if flags & RECHECK != 0 {
            self.flags.fetch_and(!RECHECK, Ordering::AcqRel);
            Poll::Ready(Event::Recheck)
        } else {
            Poll::Pending
        }
    }

    /// Resolves once the connection is closed from outside (a recheck or
    /// shutdown is left for the next [`poll_event`](Self::poll_event)).
    pub async fn closed(&self) {
        self.until(CLOSE).await
    }

    /// Resolves once the connection should read no more input.
    pub(crate) async fn reading_stopped(&self) {
        self.until(CLOSE | SHUTDOWN).await
    }

    /// Resolves once one of the flags `any` is raised.
    async fn until(&self, any: u8) {
        std::future::poll_fn(|cx| {
            self.waker.register(cx.waker());
            if self.flags.load(Ordering::Acquire) & any != 0 {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn an_event_raised_while_waiting_wakes_the_wait() {
        let signal = Arc::new(Signal::default());
        let waiting = signal.clone();
        let wait =
            tokio::spawn(async move { std::future::poll_fn(|cx| waiting.poll_event(cx)).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        signal.recheck();
        assert_eq!(wait.await.unwrap(), Event::Recheck);
        // A recheck is consumed; closing stays raised.
        signal.close();
        let seen = std::future::poll_fn(|cx| signal.poll_event(cx)).await;
        assert_eq!(seen, Event::Closed);
        assert!(signal.is_closed() && signal.stops_reading());
        signal.closed().await;
    }

    #[tokio::test]
    async fn shutdown_stops_reading_but_is_not_a_close() {
        let signal = Signal::default();
        signal.shut_down();
        assert!(signal.stops_reading() && !signal.is_closed());
        signal.reading_stopped().await;
        let closed = tokio::time::timeout(Duration::from_millis(20), signal.closed()).await;
        assert!(closed.is_err(), "shutdown must not end a wait for closing");
        let seen = std::future::poll_fn(|cx| signal.poll_event(cx)).await;
        assert_eq!(seen, Event::Shutdown);
    }
}
