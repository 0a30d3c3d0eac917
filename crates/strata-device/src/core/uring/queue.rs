//! [`UringReader`]: a completion-driven reader, one ring owned by one
//! thread that keeps up to its depth of reads in flight. Items are
//! submitted as they arrive and each one is handed back as soon as ITS
//! read completed, not when some batch did.
//!
//! Soundness rests on one rule: while the kernel may write into an item's
//! buffer, the reader owns the item, keeps it in a slot that is never
//! moved (the slots are allocated once, at the depth) and never touches
//! it. An item leaves its slot only when its completion was reaped, or
//! when its entry provably never reached the kernel (the ring broke with
//! it still in the submission queue, and the ring is then dropped without
//! another `io_uring_enter`). Dropping the reader first waits for every
//! read in flight. Items are `'static`, so forgetting the reader
//! (`mem::forget`) leaks the items and their buffers but cannot free
//! memory the kernel still writes.
//!
//! Outcomes are exactly [`AlignedFile::read_exact_at`]'s: whatever the
//! ring does not finish whole (a short read, `EINTR`/`EAGAIN`, a ring that
//! broke) is read again with `pread` on the reader's thread. Memory is
//! bounded by the depth: the slots, and at most the depth of finished
//! items waiting to be handed back.

use std::io;
use std::os::fd::AsRawFd;

use io_uring::{opcode, types, IoUring};

use super::bell::CompletionBell;
use super::outcome::{outcome, retry};
use super::probe::uring_available;
use super::wake::{new_eventfd, RingWaker, WakeRead, WAKE_DATA};
use crate::core::AlignedFile;

/// The deepest ring a reader makes: deeper queues are clamped to it.
const MAX_DEPTH: usize = 4096;

/// Something a [`UringReader`] reads into.
pub trait ReadTarget: 'static {
    /// Called once, when the item is submitted: the buffer to fill (all of
    /// it) and the device offset, or `None` when the item needs no read
    /// (it comes back with `Ok`).
    fn target(&mut self) -> Option<(&mut [u8], u64)>;
}

/// A boxed item reads into what the box holds.
impl<T: ReadTarget + ?Sized> ReadTarget for Box<T> {
    fn target(&mut self) -> Option<(&mut [u8], u64)> {
        (**self).target()
    }
}

/// Checks a read before it is submitted (the device's contract); an
/// error ends the item with it, unread.
pub type ReadCheck = fn(buf: &[u8], offset: u64, capacity: u64) -> io::Result<()>;

/// Where an in-flight item's read goes: its buffer and device offset.
#[derive(Clone, Copy)]
struct Read {
    buf: *mut u8,
    len: usize,
    offset: u64,
}

/// A ring with up to `depth` reads of `file` in flight; see the module
/// doc. One thread uses it at a time (`&mut self`); it may move between
/// threads, as its items may.
pub struct UringReader<T: ReadTarget> {
    /// `None` once the ring broke: every read is then a `pread`.
    ring: Option<IoUring>,
    /// The reader's own descriptor of the file (a `dup`), open as long as
    /// the ring may read it.
    file: AlignedFile,
    capacity: u64,
    check: ReadCheck,
    /// Index = the entry's `user_data`; `Some` while its read is in
    /// flight (or being submitted). Allocated once: never moves.
    slots: Vec<Option<T>>,
    /// The read of each slot in flight, kept apart so that recording it
    /// never touches the item.
    reads: Vec<Read>,
    free: Vec<usize>,
    in_flight: usize,
    /// Items finished without the ring, handed back by the next
    /// [`complete`](Self::complete).
    ready: Vec<(T, io::Result<()>)>,
    /// Ends a wait early when [`RingWaker::wake`] is called; `None` where
    /// no eventfd could be made (waits then end by completions only).
    wake: Option<WakeRead>,
}

impl<T: ReadTarget> UringReader<T> {
    /// A reader of `file` (of `capacity` bytes, each read checked with
    /// `check`) keeping up to `depth` reads in flight (at least 1, at most
    /// 4096). An error where the kernel refuses io_uring.
    pub(crate) fn new(
        file: &AlignedFile,
        capacity: u64,
        check: ReadCheck,
        depth: usize,
    ) -> io::Result<UringReader<T>> {
        uring_available().map_err(io::Error::other)?;
        let file = file.try_clone()?;
        let depth = depth.clamp(1, MAX_DEPTH);
        // The completion queue is twice the submission queue, so with at
        // most `depth` reads in flight it never overflows.
        let entries = u32::try_from(depth.next_power_of_two()).unwrap_or(MAX_DEPTH as u32);
        let ring = IoUring::new(entries)?;
        Ok(UringReader {
            ring: Some(ring),
            file,
            capacity,
            check,
            slots: (0..depth).map(|_| None).collect(),
            reads: vec![
                Read {
                    buf: std::ptr::null_mut(),
                    len: 0,
                    offset: 0,
                };
                depth
            ],
            free: (0..depth).rev().collect(),
            in_flight: 0,
            ready: Vec::with_capacity(depth),
            wake: WakeRead::new(),
        })
    }

    /// A waker that makes a [`complete`](Self::complete) waiting in the
    /// kernel return, so that items queued elsewhere meanwhile are taken
    /// and submitted at once; `None` where the system gave no eventfd.
    pub fn waker(&self) -> Option<RingWaker> {
        self.wake.as_ref().map(WakeRead::waker)
    }

    /// Items submitted and not handed back yet.
    pub fn pending(&self) -> usize {
        self.in_flight + self.ready.len()
    }

    /// Whether [`submit`](Self::submit) would take another item.
    pub fn has_room(&self) -> bool {
        self.pending() < self.slots.len()
    }

    /// Takes `item`, asks it for its read once and puts the read in the
    /// submission queue (the next [`complete`](Self::complete) submits
    /// it). Gives the item back untouched when the reader is full.
    pub fn submit(&mut self, item: T) -> Result<(), T> {
        if !self.has_room() {
            return Err(item);
        }
        // Room means a free slot: `in_flight` <= `pending` < the slots.
        let Some(index) = self.free.pop() else {
            return Err(item);
        };
        // The item goes to its slot first and is asked for its buffer
        // there, so a buffer inside the item is where the kernel will
        // write: the slot does not move until the read ends.
        let placed = self.slots[index].insert(item);
        let capacity = self.capacity;
        let request = placed.target().map(|(buf, offset)| {
            let checked = (self.check)(buf, offset, capacity);
            (buf.as_mut_ptr(), buf.len(), offset, checked)
        });
        let (buf, len, offset) = match request {
            Some((buf, len, offset, Ok(()))) => (buf, len, offset),
            Some((.., Err(e))) => {
                self.end_unread(index, Err(e));
                return Ok(());
            }
            None => {
                self.end_unread(index, Ok(()));
                return Ok(());
            }
        };
        self.reads[index] = Read { buf, len, offset };
        let (Some(ring), Ok(len32)) = (self.ring.as_mut(), u32::try_from(len)) else {
            self.free.push(index);
            self.finish_by_pread(index);
            return Ok(());
        };
        let entry = opcode::Read::new(types::Fd(self.file.file().as_raw_fd()), buf, len32)
            .offset(offset)
            .build()
            .user_data(index as u64);
        // SAFETY: `buf`/`len32` are the buffer the item in slot `index`
        // gave for this read, from a `&mut` borrow of it there. The slot
        // is neither moved (the slots never reallocate) nor accessed until
        // the entry's completion (`user_data` = `index`) is reaped, or the
        // entry is known never to have reached the kernel (`break_ring`);
        // dropping the reader waits for that. Items are `'static`, so the
        // buffer cannot be a borrow that ends while the reader lives. The
        // fd is kept open by `self.file`, which the reader owns.
        let pushed = unsafe { ring.submission().push(&entry) };
        match pushed {
            Ok(()) => self.in_flight += 1,
            Err(_) => {
                // Cannot happen (at most `depth` entries wait, the queue
                // holds that many): read it here instead.
                self.free.push(index);
                self.finish_by_pread(index);
            }
        }
        Ok(())
    }

    /// Ends the item in slot `index`, which needs no read (or was refused
    /// one), with `read`.
    fn end_unread(&mut self, index: usize, read: io::Result<()>) {
        self.free.push(index);
        if let Some(item) = self.slots[index].take() {
            self.ready.push((item, read));
        }
    }

    /// Submits what [`submit`](Self::submit) queued and hands back, with
    /// `done`, every item finished: waits for at least one completion (or
    /// a [`RingWaker::wake`]) when reads are in flight and nothing else is
    /// finished; returns at once when nothing is pending.
    pub fn complete(&mut self, mut done: impl FnMut(T, io::Result<()>)) {
        if self.in_flight > 0 {
            let want = usize::from(self.ready.is_empty());
            if let (Some(wake), Some(ring), 1) = (&mut self.wake, &mut self.ring, want) {
                wake.before_wait(ring);
            }
            self.enter(want);
            if let Some(wake) = &self.wake {
                wake.after_wait();
            }
            self.reap();
        }
        for (item, read) in self.ready.drain(..) {
            done(item, read);
        }
    }

    /// Submits what [`submit`](Self::submit) queued, without waiting (no
    /// `io_uring_enter` when nothing is queued): for an owner that learns
    /// of completions from [`completion_fd`](Self::completion_fd) instead
    /// of waiting in the kernel.
    pub fn submit_queued(&mut self) {
        if let Some(false) = self.ring.as_mut().map(|r| r.submission().is_empty()) {
            self.enter(0);
        }
    }

    /// Hands back, with `done`, every item finished so far, without
    /// entering the kernel (completions are visible once posted).
    pub fn poll(&mut self, mut done: impl FnMut(T, io::Result<()>)) {
        self.reap();
        for (item, read) in self.ready.drain(..) {
            done(item, read);
        }
    }

    /// Whether items finished without the ring wait to be handed back.
    pub fn has_finished(&self) -> bool {
        !self.ready.is_empty()
    }

    /// A bell rung at each completion posted to this ring, for a task of
    /// the current tokio runtime to wait on and then [`poll`](Self::poll).
    /// An error outside a runtime with I/O, or where the kernel refuses.
    pub fn completion_bell(&mut self) -> io::Result<CompletionBell> {
        let Some(ring) = self.ring.as_ref() else {
            return Err(io::Error::other("the ring broke"));
        };
        let fd = new_eventfd(libc::EFD_NONBLOCK)?;
        ring.submitter().register_eventfd(fd.as_raw_fd())?;
        CompletionBell::new(fd)
    }

    /// One `io_uring_enter`: submits every queued entry and waits for
    /// `want` completions. A ring that fails for good is given up.
    fn enter(&mut self, want: usize) {
        let Some(ring) = self.ring.as_mut() else {
            return;
        };
        match ring.submit_and_wait(want) {
            Ok(_) => {}
            // Nothing lost: the next call enters again.
            Err(e) if retry(e.raw_os_error()) => {}
            Err(_) => self.break_ring(),
        }
    }

    /// Moves every completion waiting into `ready`, reading again with
    /// `pread` what the ring did not finish whole.
    fn reap(&mut self) {
        let Some(ring) = self.ring.as_mut() else {
            return;
        };
        let ended: Vec<(u64, i32)> = ring
            .completion()
            .map(|cqe| (cqe.user_data(), cqe.result()))
            .collect();
        for (user_data, res) in ended {
            if user_data == WAKE_DATA {
                if let Some(wake) = &mut self.wake {
                    wake.completed(res);
                }
                continue;
            }
            // Every entry carries its slot's index; a stray one is ignored.
            let Some(index) = usize::try_from(user_data)
                .ok()
                .filter(|&i| self.slots.get(i).is_some_and(Option::is_some))
            else {
                continue;
            };
            self.in_flight -= 1;
            self.free.push(index);
            match outcome(res, self.reads[index].len) {
                Some(read) => self.end_read(index, read),
                None => self.finish_by_pread(index),
            }
        }
    }

    /// The ring failed: waits for every read the kernel took, without
    /// entering the ring again (completions are posted on any return to
    /// user mode, which a yield is); the reads it never took are done by
    /// `pread` and the ring is dropped with them unsubmitted. Every later
    /// read is a `pread`.
    fn break_ring(&mut self) {
        let Some(ring) = self.ring.as_mut() else {
            return;
        };
        let untaken = ring.submission().len();
        if let Some(wake) = &self.wake {
            wake.release();
        }
        while self.in_flight + usize::from(self.wake_armed()) > untaken {
            std::thread::yield_now();
            self.reap();
        }
        // Only untaken entries remain: the ring goes before their buffers
        // are touched, and no `io_uring_enter` came in between.
        self.ring = None;
        if let Some(wake) = &mut self.wake {
            wake.ring_gone();
        }
        for index in 0..self.slots.len() {
            if self.slots[index].is_some() {
                self.in_flight -= 1;
                self.free.push(index);
                self.finish_by_pread(index);
            }
        }
    }

    /// Whether the wake read is in the ring.
    fn wake_armed(&self) -> bool {
        self.wake.as_ref().is_some_and(WakeRead::armed)
    }

    /// Reads the buffer of slot `index` with `pread` (its read is not in
    /// flight) and ends the item with the outcome.
    fn finish_by_pread(&mut self, index: usize) {
        let Read { buf, len, offset } = self.reads[index];
        // SAFETY: `buf`/`len` came from the `&mut [u8]` the item in slot
        // `index` gave at submission; the item was not touched since and
        // the kernel no longer writes there (its completion was reaped, or
        // the entry never reached it), so this is again the only view, for
        // this call only.
        let buf = unsafe { std::slice::from_raw_parts_mut(buf, len) };
        let read = self.file.read_exact_at(buf, offset);
        self.end_read(index, read);
    }

    /// Ends the item in slot `index`, its read over, with `read`.
    fn end_read(&mut self, index: usize, read: io::Result<()>) {
        if let Some(item) = self.slots[index].take() {
            self.ready.push((item, read));
        }
    }
}

// SAFETY: the only fields that are not `Send` are the raw pointers in
// `reads`, which point into the buffers of items the reader itself owns in
// its slots (a heap allocation that does not move when the reader does).
// What the kernel writes there does not depend on the submitting thread,
// and every method takes `&mut self`, so one thread at a time uses the
// reader. Moving it, with its `Send` items, to another thread is sound.
unsafe impl<T: ReadTarget + Send> Send for UringReader<T> {}

impl<T: ReadTarget> Drop for UringReader<T> {
    /// Waits for every read in flight (the wake read made to end) before
    /// the slots, the wake buffer and the ring go.
    fn drop(&mut self) {
        if let Some(wake) = &self.wake {
            wake.release();
        }
        while (self.in_flight > 0 || self.wake_armed()) && self.ring.is_some() {
            self.enter(1);
            self.reap();
        }
    }
}
