//! Reads through io_uring, the only `unsafe` of the crate (UNSAFE.md): the
//! kernel writes into buffers after the call that handed them over
//! returned, so each reader keeps them alive, unmoved and untouched until
//! their completions are reaped.
//!
//! - `probe`: [`uring_available`], whether the kernel allows a ring.
//! - `outcome`: what a completion means for its request (done, failed, or
//!   to be read again with `pread`).
//! - `batch`: [`read_batch`], a batch of reads in flight together on the
//!   calling thread's ring, returning when all are done.
//! - `wake`: [`RingWaker`], which ends a reader's wait in the kernel when
//!   new items are queued for it (an eventfd read kept in its ring).
//! - `queue`: [`UringReader`], one thread's ring kept full: items
//!   submitted as they come, each handed back when its own read is done.
//! - `bell`: [`CompletionBell`], the eventfd a reader's ring signals at
//!   each completion, registered with a tokio runtime, for a reader
//!   driven by a task rather than a thread of its own.
//!
//! Nothing is defined in this file.

#![allow(unsafe_code)]

mod batch;
mod bell;
mod outcome;
mod probe;
mod queue;
mod wake;

pub(crate) use batch::read_batch;
pub use bell::CompletionBell;
pub use probe::uring_available;
pub use queue::{ReadCheck, ReadTarget, UringReader};
pub use wake::RingWaker;
