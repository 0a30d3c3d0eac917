//! [`uring_reader`]: a completion-driven io_uring reader
//! ([`UringReader`]) for a block device with a plain file under it.

use std::io;

use super::{check_block_io, BlockDevice};
use crate::core::{ReadTarget, UringReader};

/// A reader of `device` keeping up to `depth` reads in flight, each read
/// checked as [`read_at`](BlockDevice::read_at) checks it. `None` for a
/// device without a file under it ([`BlockDevice::ring_file`]: memory,
/// faults), whose reads must go through `read_at`; an error where the
/// kernel refuses io_uring.
pub fn uring_reader<T: ReadTarget>(
    device: &dyn BlockDevice,
    depth: usize,
) -> Option<io::Result<UringReader<T>>> {
    let file = device.ring_file()?;
    Some(UringReader::new(
        file,
        device.capacity(),
        check_block_io,
        depth,
    ))
}
