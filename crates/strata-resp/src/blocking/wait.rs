//! [`BlockWait`] and [`Unblock`]: what a blocked request waits for, and
//! how `CLIENT UNBLOCK` ends it. A leaf of `blocking`.

use std::sync::atomic::AtomicU8;
use std::sync::Arc;
use std::time::Instant;

use super::serve::ServeSlot;

/// What a blocking command that found nothing asks the session to wait for.
#[derive(Debug, Clone)]
pub struct BlockWait {
    /// The keys whose pushes wake it.
    pub keys: Vec<Box<[u8]>>,
    /// When it gives up (`None`: never).
    pub deadline: Option<Instant>,
    /// `Waiters::seq` read before the attempt looked at the keys.
    pub seq: u64,
    /// The connection's `BlockState::unblocked`, which `CLIENT UNBLOCK`
    /// sets before it wakes the wait.
    pub unblocked: Arc<AtomicU8>,
    /// Also ends once the command log is durable through this LSN
    /// (`WAITAOF` waiting for its connection's writes).
    pub durable: Option<u64>,
    /// The connection's slot, open, when a push may hand it an element
    /// instead of waking it (`BLPOP`, `BRPOP`).
    pub serve: Option<Arc<ServeSlot>>,
}

/// How `CLIENT UNBLOCK` ends a wait: as if the timeout passed, or with an
/// error reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unblock {
    /// `TIMEOUT` (the default): the command's timeout reply.
    Timeout = 1,
    /// `ERROR`: `-UNBLOCKED`.
    Error = 2,
}
