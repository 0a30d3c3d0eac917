//! [`DurableWait`]: the future a caller awaits until its record is durable
//! (or the log failed), registered with the waiters (`waiters.rs`) of the
//! log's shared state.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use parking_lot::Mutex;

use crate::shared::Shared;
use crate::waiters::Slot;
use crate::LogError;

/// The future returned by [`CommandLog::durable`](crate::CommandLog::durable).
pub(crate) struct DurableWait {
    shared: Arc<Shared>,
    lsn: u64,
    /// An error known before waiting (an LSN never assigned).
    early: Option<LogError>,
    slot: Option<Arc<Slot>>,
}

impl DurableWait {
    pub fn new(shared: Arc<Shared>, lsn: u64, early: Option<LogError>) -> DurableWait {
        DurableWait {
            shared,
            lsn,
            early,
            slot: None,
        }
    }
}

impl Future for DurableWait {
    type Output = Result<(), LogError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Some(err) = this.early.take() {
            return Poll::Ready(Err(err));
        }
        if let Some(outcome) = this.shared.durable_outcome(this.lsn) {
            return Poll::Ready(outcome);
        }
        match &this.slot {
            Some(slot) => *slot.waker.lock() = Some(cx.waker().clone()),
            None => {
                let slot = Arc::new(Slot {
                    waker: Mutex::new(Some(cx.waker().clone())),
                });
                this.shared.waiters.register(this.lsn, Arc::clone(&slot));
                this.slot = Some(slot);
            }
        }
        // A publication between the first check and the registration may
        // have drained before the slot was in: look again (see the module
        // docs). A slot left behind is dropped at the next publication.
        match this.shared.durable_outcome(this.lsn) {
            Some(outcome) => Poll::Ready(outcome),
            None => Poll::Pending,
        }
    }
}
