//! Batched reads through io_uring: one ring per submitting thread, every
//! read of a batch in flight at once, submitted with one system call and
//! reaped as they complete ([`BlockDevice::read_batch`](crate::BlockDevice::read_batch)).
//!
//! Soundness rests on one rule: [`read_batch`] never returns while the
//! kernel may still write into a buffer it was given. Every entry the
//! kernel consumed is reaped before returning, also when the ring fails;
//! entries it did not consume stay in a ring that is then dropped without
//! another `io_uring_enter`, so they are never submitted.
//!
//! Whatever the ring does not finish (a short read, `EINTR`/`EAGAIN`, a
//! batch larger than the ring, a broken or missing ring) is read again
//! with `pread`, so each request ends with exactly the outcome a lone
//! [`AlignedFile::read_exact_at`] gives.

use std::cell::RefCell;
use std::io;
use std::os::fd::AsRawFd;

use io_uring::{opcode, types, IoUring};

use super::outcome::{outcome, retry};
use super::probe::uring_available;
use crate::core::{AlignedFile, ReadReq};

/// Entries of each ring: a larger batch is submitted in rounds of this.
const RING_ENTRIES: u32 = 128;

/// This thread's ring: not made yet, made, or refused by the kernel.
enum Ring {
    Untried,
    Ready(Box<IoUring>),
    Unavailable,
}

thread_local! {
    static RING: RefCell<Ring> = const { RefCell::new(Ring::Untried) };
}

/// Reads every request of `reqs` whose `result` is `Ok` on entry (the
/// caller checked it; the others keep their error) from `file`, setting
/// each `result`.
pub(crate) fn read_batch(file: &AlignedFile, reqs: &mut [ReadReq<'_>]) {
    let todo: Vec<usize> = (0..reqs.len())
        .filter(|&i| reqs[i].result.is_ok())
        .collect();
    let mut done = vec![false; reqs.len()];
    RING.with(|cell| {
        // Not re-entered; if it ever were, the inner call reads by pread.
        let Ok(mut slot) = cell.try_borrow_mut() else {
            return;
        };
        if matches!(*slot, Ring::Untried) {
            *slot = match uring_available()
                .and_then(|()| IoUring::new(RING_ENTRIES).map_err(|e| e.to_string()))
            {
                Ok(ring) => Ring::Ready(Box::new(ring)),
                Err(_) => Ring::Unavailable,
            };
        }
        let Ring::Ready(ring) = &mut *slot else {
            return;
        };
        for chunk in todo.chunks(RING_ENTRIES as usize) {
            if read_chunk(ring, file, reqs, chunk, &mut done).is_err() {
                // Drained of everything the kernel took: drop it, with the
                // entries it did not take; this thread reads by pread now.
                *slot = Ring::Unavailable;
                return;
            }
        }
    });
    for i in todo {
        if !done[i] {
            let req = &mut reqs[i];
            req.result = file.read_exact_at(req.buf, req.offset);
        }
    }
}

/// Submits the reads `chunk` (indices into `reqs`, at most the ring's
/// size) together and reaps them, marking in `done` those finished. An
/// error when the ring failed; everything it had taken is reaped even then.
fn read_chunk(
    ring: &mut IoUring,
    file: &AlignedFile,
    reqs: &mut [ReadReq<'_>],
    chunk: &[usize],
    done: &mut [bool],
) -> io::Result<()> {
    let fd = types::Fd(file.file().as_raw_fd());
    let mut pushed = 0;
    {
        let mut queue = ring.submission();
        for (k, &i) in chunk.iter().enumerate() {
            let req = &mut reqs[i];
            let Ok(len) = u32::try_from(req.buf.len()) else {
                continue; // left to pread
            };
            let entry = opcode::Read::new(fd, req.buf.as_mut_ptr(), len)
                .offset(req.offset)
                .build()
                .user_data(k as u64);
            // SAFETY: `req.buf` is a `&mut` borrow that outlives this call,
            // and this call reaps every entry the kernel consumes before it
            // returns (below, also on error), so the memory stays alive,
            // unmoved and unaliased while the kernel may write it; `len` is
            // its length, and `fd` is kept open by `file` for the call.
            if unsafe { queue.push(&entry) }.is_err() {
                break; // full (not at the ring's size): the rest by pread
            }
            pushed += 1;
        }
    }
    let mut reaped = 0;
    while reaped < pushed {
        match ring.submit_and_wait(1) {
            Ok(_) => {}
            Err(e) if retry(e.raw_os_error()) => {}
            Err(e) => {
                // The kernel took `pushed - unconsumed` entries; wait for
                // those without entering the ring again (completions are
                // posted on any return to user mode, which a yield is).
                let taken = pushed - ring.submission().len();
                while reaped < taken {
                    std::thread::yield_now();
                    reaped += reap(ring, reqs, chunk, done);
                }
                return Err(e);
            }
        }
        reaped += reap(ring, reqs, chunk, done);
    }
    Ok(())
}

/// Takes every completion waiting, recording each request's outcome:
/// whole reads and errors are done; short reads and `EINTR`/`EAGAIN` are
/// left for pread, which reads on or reports the end exactly as
/// [`AlignedFile::read_exact_at`] does. Returns how many were reaped.
fn reap(ring: &mut IoUring, reqs: &mut [ReadReq<'_>], chunk: &[usize], done: &mut [bool]) -> usize {
    let mut reaped = 0;
    for cqe in ring.completion() {
        reaped += 1;
        let index = usize::try_from(cqe.user_data())
            .ok()
            .and_then(|k| chunk.get(k));
        let Some(&i) = index else {
            continue; // not ours (cannot happen: the ring is this thread's)
        };
        let req = &mut reqs[i];
        if let Some(result) = outcome(cqe.result(), req.buf.len()) {
            req.result = result;
            done[i] = true;
        }
    }
    reaped
}
