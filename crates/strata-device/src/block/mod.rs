//! Block devices: aligned, unbuffered, positional I/O for the SSD tier.
//!
//! A [`BlockDevice`] is a fixed-size array of bytes read and written in
//! whole [`BLOCK_ALIGN`](crate::BLOCK_ALIGN)-byte units at aligned offsets, from aligned memory
//! ([`AlignedBuf`](crate::AlignedBuf)), from many threads at once. Unlike a
//! [`Device`](crate::Device) it never grows and never bounces unaligned
//! requests: a misaligned request is refused with
//! [`InvalidInput`](std::io::ErrorKind::InvalidInput) by every implementation alike, so a bug
//! found on the in-memory device is the same bug on a real disk.
//!
//! Each implementation is a thin adapter over the crate's aligned-I/O
//! core (`crate::core`):
//! - `contract`: the [`BlockDevice`] trait and [`check_block_io`].
//! - `file`: [`BlockFile`], on the core's aligned file, `O_DIRECT` or
//!   buffered as [`IoMode`](crate::IoMode) says.
//! - `mem`: [`MemBlockDevice`], on one core memory image, with power cuts.
//! - `faulty`: [`FaultyBlockDevice`], on the core's fault switches.
//! - `ring`: [`uring_reader`], the core's completion-driven io_uring
//!   reader for a device with a file under it.
//!
//! Nothing is defined in this file: every module imports only downward.

mod contract;
mod faulty;
mod file;
mod mem;
mod ring;

pub use contract::{check_block_io, BlockDevice};
pub use faulty::FaultyBlockDevice;
pub use file::BlockFile;
pub use mem::MemBlockDevice;
pub use ring::uring_reader;
