//! The hook itself: the [`Journal`] trait the command log implements,
//! why it may refuse a change ([`Refusal`]), and the per-thread LSN of the
//! last append ([`take_written_lsn`]). A leaf: the keyspace's context
//! holds the journal; nothing here knows the keyspace.
use std::cell::Cell;

/// Why a journal takes no new change; the text is shown to clients whose
/// writes are refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// It failed for good: nothing appended from now on becomes durable.
    Failed(String),
    /// It cannot write now (no space left): what was appended is kept and
    /// retried; new changes wait until it can write again.
    Stalled(String),
}

/// Where the keyspace's change records go (the command log).
pub trait Journal: Send + Sync + 'static {
    /// `Ok` while a new change may be applied: its record can become
    /// durable soon. Otherwise why not.
    fn check(&self) -> Result<(), Refusal>;

    /// Whether appended records can still become durable (true while the
    /// journal is only stalled): changes the keyspace makes on its own
    /// (expiry, eviction) are recorded then.
    fn accepts(&self) -> bool {
        self.check().is_ok()
    }

    /// Appends one record and returns its LSN, or the failure's cause.
    /// Called with shard locks held: it must not call back into the keyspace.
    fn append(&self, body: &[u8]) -> Result<u64, String>;
}

/// What [`take_written_lsn`] returns when an append on this thread failed:
/// the write was applied in memory but can never become durable.
pub const APPEND_FAILED: u64 = u64::MAX;

thread_local! {
    /// Highest LSN appended by this thread since the last take (0: none).
    static WRITTEN: Cell<u64> = const { Cell::new(0) };
}

/// The highest LSN appended on this thread since the previous call (or
/// [`APPEND_FAILED`]), and resets it; 0 when nothing was appended. A front
/// end in `sync` mode waits for this LSN to be durable before replying.
pub fn take_written_lsn() -> u64 {
    WRITTEN.with(|w| w.replace(0))
}

/// Appends `body` (if not empty) and records the LSN for this thread.
pub(crate) fn append(journal: &dyn Journal, body: &mut Vec<u8>) {
    if body.is_empty() {
        return;
    }
    let lsn = match journal.append(body) {
        Ok(lsn) => lsn,
        Err(cause) => {
            tracing::error!(%cause, "a change could not be written to the journal");
            APPEND_FAILED
        }
    };
    WRITTEN.with(|w| w.set(w.get().max(lsn)));
    body.clear();
    if body.capacity() > 64 * 1024 {
        body.shrink_to(4096);
    }
}
