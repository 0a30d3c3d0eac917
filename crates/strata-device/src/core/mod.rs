//! The aligned-I/O core every device of this crate is built on: one kind
//! of each thing, which the file-level [`Directory`](crate::Directory) and
//! the block-level [`BlockDevice`](crate::BlockDevice) adapt.
//!
//! - `align`: [`BLOCK_ALIGN`], the unit of all of it.
//! - `aligned_buf`: [`AlignedBuf`], 4096-aligned memory, owned or reused
//!   as a bounce buffer.
//! - `aligned_file`: [`AlignedFile`], a file opened with `O_DIRECT` (or
//!   through the page cache, as [`IoMode`] says), read and written in
//!   aligned blocks; the refusal error and the probe live here once.
//! - `image`: [`MemImage`], bytes in memory with what a power cut keeps
//!   ([`MemImage::after_crash`]) and what a torn one may keep
//!   ([`MemImage::after_torn_crash`], as a [`TornCut`] says).
//! - `faults`: [`Faults`], the switches (fail after N, tear, full disk)
//!   that both fault wrappers obey, and the one write path that applies
//!   them ([`Faults::write`]).
//! - `mapping`: [`Mapping`], a write-once file's bytes mapped read-only
//!   (or held in memory where there is no file to map).
//! - `rng`: the seeded generator of torn cuts.
//! - `read_req`: [`ReadReq`], one read of a batch.
//! - `uring`: reads of an [`AlignedFile`] through io_uring, with the
//!   pread fallback ([`uring_available`]): batches on one ring per thread,
//!   and [`UringReader`], a thread's ring kept full.
//!
//! Nothing is defined in this file: every module imports only its
//! siblings below it, never this facade.

mod align;
mod aligned_buf;
mod aligned_file;
mod faults;
mod image;
mod io_mode;
mod mapping;
mod read_req;
mod rng;
mod uring;

pub use align::BLOCK_ALIGN;
pub(crate) use align::{align_down, BLOCK_ALIGN_U64};
pub use aligned_buf::AlignedBuf;
pub use aligned_file::AlignedFile;
pub(crate) use aligned_file::{probe_dir, Open};
pub use faults::Faults;
pub(crate) use image::{MemImage, TornCut};
pub use io_mode::IoMode;
pub use mapping::Mapping;
pub use read_req::ReadReq;
pub(crate) use rng::SplitMix;
pub(crate) use uring::read_batch;
pub use uring::{uring_available, CompletionBell, ReadCheck, ReadTarget, RingWaker, UringReader};
