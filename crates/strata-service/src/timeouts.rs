//! The time bounds the driver puts on a connection:
//!
//! - [`IdleTimeout`]: a connection that sends nothing for this long is
//!   closed (Redis's `timeout`, memcached's `idle_timeout`; 0, the
//!   default, never closes one). It can change at run time (`CONFIG SET
//!   timeout`); connections waiting for input apply the new value at once,
//!   counted from their last activity (each connection is attached to the
//!   limit and woken through its [`Signal`](crate::signal::Signal)).
//! - The request bound ([`DriverConfig::request_timeout`](crate::DriverConfig)):
//!   once a request's first byte arrived, the request must be complete
//!   within it, and a batch of replies must be taken by the client within
//!   it, or the connection is closed. This is what closes a client that
//!   trickles a request a byte a second, whatever the idle timeout.
//!   [`RequestClock`] tracks when the request at the front of the input
//!   began.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

use crate::clients::ClientInfo;

/// Default request bound.
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// Seconds a connection may stay idle; 0 for no limit. Clones share the
/// value and the connections attached to it.
#[derive(Debug, Clone, Default)]
pub struct IdleTimeout {
    shared: Arc<IdleShared>,
}

#[derive(Debug, Default)]
struct IdleShared {
    secs: AtomicU64,
    /// The connections applying the limit, by client id, told when it
    /// changes (weak: a connection detaches as it ends).
    attached: Mutex<HashMap<u64, Weak<ClientInfo>>>,
}

impl IdleTimeout {
    /// An idle limit of `secs` seconds (0: none).
    pub fn new(secs: u64) -> Self {
        let out = Self::default();
        out.shared.secs.store(secs, Ordering::Relaxed);
        out
    }

    /// Changes the limit for every connection sharing it, including those
    /// waiting now.
    pub fn set(&self, secs: u64) {
        self.shared.secs.store(secs, Ordering::Release);
        for client in self.shared.attached.lock().values() {
            if let Some(client) = client.upgrade() {
                client.signal().recheck();
            }
        }
    }

    /// The limit in seconds (0: none).
    pub fn secs(&self) -> u64 {
        self.shared.secs.load(Ordering::Acquire)
    }

    /// The limit, `None` when there is none.
    pub(crate) fn limit(&self) -> Option<Duration> {
        let secs = self.secs();
        (secs > 0).then(|| Duration::from_secs(secs))
    }

    /// Attaches `client`'s connection until the guard is dropped: a change
    /// of the limit then wakes its wait for input (a
    /// [`Signal`](crate::signal::Signal) recheck).
    pub(crate) fn attach(&self, client: &Arc<ClientInfo>) -> Attached {
        self.shared
            .attached
            .lock()
            .insert(client.id, Arc::downgrade(client));
        Attached {
            shared: Arc::clone(&self.shared),
            id: client.id,
        }
    }
}

/// A connection attached to an [`IdleTimeout`]; detaches on drop.
pub(crate) struct Attached {
    shared: Arc<IdleShared>,
    id: u64,
}

impl Drop for Attached {
    fn drop(&mut self) {
        self.shared.attached.lock().remove(&self.id);
    }
}

/// When the request at the front of a connection's input began, so the
/// driver can bound the time it takes to arrive.
#[derive(Debug, Default)]
pub(crate) struct RequestClock {
    started: Option<Instant>,
    mid_request: bool,
}

impl RequestClock {
    /// Notes a `process` call that took the input from `before` to `after`
    /// bytes and left the session `mid_request` (in a request whose bytes
    /// it consumes as they come, like a refused oversized value) or not.
    ///
    /// The clock stops when nothing is pending, and restarts at `now`
    /// whenever a request was finished and another one is pending.
    pub(crate) fn after_process(
        &mut self,
        before: usize,
        after: usize,
        mid_request: bool,
        now: Instant,
    ) {
        let consumed = after < before;
        let pending = after > 0 || mid_request;
        // Consuming bytes of one request it is still in is not finishing it.
        let finished_one = consumed && !(self.mid_request && mid_request);
        if !pending {
            self.started = None;
        } else if self.started.is_none() || finished_one {
            self.started = Some(now);
        }
        self.mid_request = mid_request;
    }

    /// When the pending request must be complete, if one is pending.
    pub(crate) fn deadline(&self, bound: Duration) -> Option<Instant> {
        self.started.map(|start| start + bound)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUND: Duration = Duration::from_secs(30);

    #[test]
    fn a_trickled_request_keeps_its_first_bytes_time() {
        let t0 = Instant::now();
        let mut clock = RequestClock::default();
        assert_eq!(clock.deadline(BOUND), None);
        // "set k 0 0 5\r\nhel": nothing complete yet, a byte at a time.
        clock.after_process(1, 1, false, t0);
        for (i, len) in (2..20).enumerate() {
            clock.after_process(len, len, false, t0 + Duration::from_secs(i as u64 + 1));
        }
        assert_eq!(clock.deadline(BOUND), Some(t0 + BOUND));
        // Complete: nothing pending, no deadline.
        clock.after_process(21, 0, false, t0 + Duration::from_secs(21));
        assert_eq!(clock.deadline(BOUND), None);
    }

    #[test]
    fn a_finished_request_restarts_the_clock_for_the_next() {
        let t0 = Instant::now();
        let mut clock = RequestClock::default();
        clock.after_process(5, 5, false, t0);
        // The first request completes and a part of the next stays.
        let t1 = t0 + Duration::from_secs(10);
        clock.after_process(40, 7, false, t1);
        assert_eq!(clock.deadline(BOUND), Some(t1 + BOUND));
        // More bytes of the second, none consumed: same start.
        clock.after_process(9, 9, false, t1 + Duration::from_secs(5));
        assert_eq!(clock.deadline(BOUND), Some(t1 + BOUND));
    }

    #[test]
    fn a_value_discarded_as_it_comes_is_one_request() {
        let t0 = Instant::now();
        let mut clock = RequestClock::default();
        // The command line is consumed and the session discards the value
        // it refused: input empty, but the request is not over.
        clock.after_process(30, 0, true, t0);
        assert_eq!(clock.deadline(BOUND), Some(t0 + BOUND));
        for i in 1..100u64 {
            clock.after_process(1, 0, true, t0 + Duration::from_secs(i));
        }
        assert_eq!(clock.deadline(BOUND), Some(t0 + BOUND));
        // The value's end arrives with part of the next request.
        let t1 = t0 + Duration::from_secs(120);
        clock.after_process(10, 4, false, t1);
        assert_eq!(clock.deadline(BOUND), Some(t1 + BOUND));
    }
}
