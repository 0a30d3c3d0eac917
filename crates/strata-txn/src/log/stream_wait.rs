//! Waiting for one stream's record to become durable without waiting
//! through a full device: the command log keeps retrying a write the
//! filesystem refused for lack of space (a stall), and a blocking wait
//! would hold the epoch thread until space is freed, perhaps for ever.

use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;
use std::time::Duration;

use strata_log::{CommandLog, LogError};

/// How often a pending wait looks at the stall flag.
const STALL_CHECK: Duration = Duration::from_millis(1);

/// What became of a wait.
pub(crate) enum StreamWait {
    /// The record is durable.
    Durable,
    /// The device is full; the record is kept and retried.
    Stalled(Arc<LogError>),
    /// The stream failed for good.
    Failed(LogError),
}

struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Waits until record `lsn` of `log` is durable, the stream fails, or it
/// is stalled on a full device.
pub(crate) fn wait_unless_stalled(log: &CommandLog, lsn: u64) -> StreamWait {
    let mut durable = Box::pin(log.durable(lsn));
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        match durable.as_mut().poll(&mut cx) {
            Poll::Ready(Ok(())) => return StreamWait::Durable,
            Poll::Ready(Err(e)) => return StreamWait::Failed(e),
            Poll::Pending => {}
        }
        if let Some(cause) = log.write_stalled() {
            return StreamWait::Stalled(cause);
        }
        std::thread::park_timeout(STALL_CHECK);
    }
}
