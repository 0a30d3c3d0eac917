//! [`CompletionBell`]: how a task on a tokio runtime waits for a ring's
//! completions among the runtime's other events, instead of a thread
//! waiting in `io_uring_enter`: an eventfd registered with the ring (the
//! kernel signals it at each completion it posts) and with the runtime's
//! reactor.

use std::fs::File;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::panic::{catch_unwind, AssertUnwindSafe};

use tokio::io::unix::AsyncFd;

/// The eventfd a ring signals, registered with the current runtime.
pub struct CompletionBell {
    eventfd: AsyncFd<File>,
}

impl CompletionBell {
    /// Registers `eventfd` (non-blocking) with the current runtime's
    /// reactor. An error outside a runtime, or in one built without I/O.
    pub(super) fn new(eventfd: OwnedFd) -> io::Result<CompletionBell> {
        tokio::runtime::Handle::try_current().map_err(io::Error::other)?;
        let file = File::from(eventfd);
        // tokio panics (rather than failing) in a runtime without its I/O
        // driver; that panic is caught here and becomes the error.
        let registered = catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the `File` owns the descriptor and the `AsyncFd` owns
            // the `File`, so the descriptor stays open, and `as_raw_fd`
            // returns the same one, until the `AsyncFd` is dropped.
            unsafe { AsyncFd::register(file) }
        }));
        match registered {
            Ok(Ok(eventfd)) => Ok(CompletionBell { eventfd }),
            Ok(Err(refused)) => Err(refused.into_parts().1),
            Err(_) => Err(io::Error::other("the runtime has no I/O driver")),
        }
    }

    /// Waits until the ring posted a completion since the last wait ended
    /// (the count is read back to 0, so a completion posted after this
    /// returns signals again). An error where the reactor is gone.
    pub async fn ring(&self) -> io::Result<()> {
        let mut guard = self.eventfd.readable().await?;
        let mut eventfd: &File = guard.get_inner();
        // Nothing to read (already reset) is as good as a read.
        let _ = eventfd.read(&mut [0; 8]);
        guard.clear_ready();
        Ok(())
    }
}
