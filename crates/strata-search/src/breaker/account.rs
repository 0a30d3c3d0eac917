//! [`MemoryAccount`]: the bytes one request (or one part of it) holds on
//! a breaker. Clones share the account; the bytes go back to the breaker
//! when the last clone is dropped, whether the request succeeded, failed,
//! tripped a breaker or panicked (drops run while a panic unwinds).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::breakers::CircuitBreakers;
use super::kind::Breaker;
use crate::error::{Result, SearchError};

struct Held {
    breakers: Arc<CircuitBreakers>,
    breaker: Breaker,
    bytes: AtomicU64,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.breakers.release(self.breaker, *self.bytes.get_mut());
    }
}

/// Reservations on one breaker, released together when dropped. An
/// unaccounted account ([`MemoryAccount::unaccounted`], the default)
/// takes anything and holds nothing: for engine callers without a node
/// (tests, tools, recovery).
#[derive(Clone, Default)]
pub struct MemoryAccount {
    held: Option<Arc<Held>>,
}

impl fmt::Debug for MemoryAccount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.held {
            None => f.write_str("MemoryAccount(unaccounted)"),
            Some(h) => write!(
                f,
                "MemoryAccount({}: {} bytes)",
                h.breaker.name(),
                h.bytes.load(Ordering::Relaxed)
            ),
        }
    }
}

impl MemoryAccount {
    /// An account that counts nothing.
    pub const fn unaccounted() -> MemoryAccount {
        MemoryAccount { held: None }
    }

    /// An empty account on `breaker` of `breakers`.
    pub fn new(breakers: &Arc<CircuitBreakers>, breaker: Breaker) -> MemoryAccount {
        MemoryAccount {
            held: Some(Arc::new(Held {
                breakers: Arc::clone(breakers),
                breaker,
                bytes: AtomicU64::new(0),
            })),
        }
    }

    /// A new, empty account on the same breaker, released on its own
    /// (a part of a request whose memory goes before the request's).
    pub fn part(&self) -> MemoryAccount {
        match &self.held {
            None => MemoryAccount::unaccounted(),
            Some(h) => MemoryAccount::new(&h.breakers, h.breaker),
        }
    }

    /// Reserves `bytes` more, or fails with the breaker's
    /// `circuit_breaking_exception` and reserves nothing.
    pub fn reserve(&self, bytes: u64, label: &str) -> Result<()> {
        let Some(h) = &self.held else { return Ok(()) };
        h.breakers.add(h.breaker, bytes, label)?;
        h.bytes.fetch_add(bytes, Ordering::AcqRel);
        Ok(())
    }

    /// The error for `bytes` more that a component found no room for
    /// (see [`CircuitBreakers::refusal`]); unaccounted: an
    /// `illegal_argument_exception` naming `label`.
    pub(crate) fn refusal(&self, bytes: u64, label: &str) -> SearchError {
        match &self.held {
            Some(h) => h.breakers.refusal(h.breaker, bytes, label),
            None => SearchError::illegal(format!(
                "[{label}] needs more memory than allowed ({bytes} bytes)"
            )),
        }
    }

    /// Bytes it could still reserve now (`u64::MAX` when unaccounted).
    pub(crate) fn room(&self) -> u64 {
        self.held
            .as_ref()
            .map_or(u64::MAX, |h| h.breakers.room(h.breaker))
    }

    /// Whether reservations are counted.
    pub(crate) fn is_accounted(&self) -> bool {
        self.held.is_some()
    }
}
