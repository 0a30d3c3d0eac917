//! Waking a [`UringReader`](super::UringReader) that waits in the kernel
//! for completions, so that an item queued for it meanwhile is submitted
//! at once instead of after the next completion: an `eventfd` whose
//! 8-byte read the reader keeps in its ring; [`RingWaker::wake`] writes
//! it, only while the reader waits.

use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use io_uring::{opcode, types, IoUring};

use super::outcome::retry;

/// The `user_data` of the wake read (slots are numbered from 0 up).
pub(super) const WAKE_DATA: u64 = u64::MAX;

/// The eventfd and whether the reader waits on it.
struct Bell {
    eventfd: File,
    waiting: AtomicBool,
}

impl Bell {
    fn ring(&self) {
        // Only fails if the counter is near 2^64: it is read back to 0
        // at every wake, so never; a lost wake only delays a submission.
        let _ = (&self.eventfd).write(&1u64.to_ne_bytes());
    }
}

/// Wakes one reader (any thread may hold a clone).
#[derive(Clone)]
pub struct RingWaker(Arc<Bell>);

impl RingWaker {
    /// Makes the reader's wait return if it is waiting in the kernel (one
    /// `eventfd` write, only then), so that it takes what was queued.
    pub fn wake(&self) {
        if self.0.waiting.swap(false, Ordering::AcqRel) {
            self.0.ring();
        }
    }
}

/// A new eventfd (close-on-exec, plus `flags`).
pub(super) fn new_eventfd(flags: libc::c_int) -> std::io::Result<OwnedFd> {
    // SAFETY: `eventfd` takes no pointers; a non-negative result is a new
    // descriptor that nothing else owns, so `OwnedFd` may own it.
    unsafe {
        let fd = libc::eventfd(0, libc::EFD_CLOEXEC | flags);
        match fd >= 0 {
            true => Ok(OwnedFd::from_raw_fd(fd)),
            false => Err(std::io::Error::last_os_error()),
        }
    }
}

/// The reader's side: the wake read and its 8-byte buffer.
pub(super) struct WakeRead {
    bell: Arc<Bell>,
    /// Owned here, freed only when no read of it is in the ring (the
    /// reader's `Drop` drains it first).
    buf: Box<[u8; 8]>,
    /// Pushed into the ring and not reaped yet.
    armed: bool,
    /// False once the wake read failed: waits then end by completions only.
    usable: bool,
}

impl WakeRead {
    /// A new eventfd (blocking, so that the ring polls it rather than
    /// failing the read with `EAGAIN`); `None` where it cannot be made.
    pub(super) fn new() -> Option<WakeRead> {
        let eventfd = new_eventfd(0).ok()?;
        Some(WakeRead {
            bell: Arc::new(Bell {
                eventfd: File::from(eventfd),
                waiting: AtomicBool::new(false),
            }),
            buf: Box::new([0; 8]),
            armed: false,
            usable: true,
        })
    }

    /// A waker of this reader.
    pub(super) fn waker(&self) -> RingWaker {
        RingWaker(self.bell.clone())
    }

    /// Whether the wake read is in the ring.
    pub(super) fn armed(&self) -> bool {
        self.armed
    }

    /// Before a wait in the kernel: puts the wake read in `ring` if it is
    /// not there, and says the reader waits.
    pub(super) fn before_wait(&mut self, ring: &mut IoUring) {
        if !self.armed && self.usable {
            let entry = opcode::Read::new(
                types::Fd(self.bell.eventfd.as_raw_fd()),
                self.buf.as_mut_ptr(),
                8,
            )
            .build()
            .user_data(WAKE_DATA);
            // SAFETY: `buf` is 8 bytes on the heap owned by `self`, which
            // the reader drops only after this read's completion is reaped
            // or the ring is gone with the entry unconsumed (its `Drop` and
            // `break_ring` call `release` and drain); nothing else touches
            // `buf`. The eventfd stays open as long as `self.bell`.
            self.armed = unsafe { ring.submission().push(&entry) }.is_ok();
        }
        if self.armed {
            self.bell.waiting.store(true, Ordering::Release);
        }
    }

    /// After the wait: wakes are not needed until the next one.
    pub(super) fn after_wait(&self) {
        self.bell.waiting.store(false, Ordering::Release);
    }

    /// The wake read completed with `res`.
    pub(super) fn completed(&mut self, res: i32) {
        self.armed = false;
        if res < 0 && !retry(Some(-res)) {
            self.usable = false;
        }
    }

    /// Makes an armed wake read complete (before draining the ring).
    pub(super) fn release(&self) {
        if self.armed {
            self.bell.ring();
        }
    }

    /// The ring was dropped without entering it again: a read still armed
    /// was never consumed, so the buffer is free; no more wake reads.
    pub(super) fn ring_gone(&mut self) {
        self.armed = false;
        self.usable = false;
    }
}
