//! Reading whole blocks for the rebuild scan in parallel while delivering
//! them in order: thread `t` of `n` reads blocks `t, t + n, t + 2n, ...` of
//! the list into its own one-slot channel, and the caller takes them round
//! robin. At most two blocks per thread are in memory; CRCs are checked on
//! the reader threads.

use std::sync::mpsc;

use strata_device::{AlignedBuf, BlockDevice};

use super::headers::reader_died;
use crate::error::SsdError;
use crate::format::entry::{self, ParsedBlock};
use crate::store::geometry::{align_up, Geometry};

/// A block to read: its number, sequence and used bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScanItem {
    pub(crate) block: u32,
    pub(crate) seq: u64,
    pub(crate) used: usize,
}

/// A block read and parsed.
pub(crate) struct ReadBlock {
    pub(crate) image: AlignedBuf,
    pub(crate) parsed: ParsedBlock,
}

/// Reads and parses every item with `threads` threads and hands them to
/// `deliver` in list order; stops at the first error (of a read or of
/// `deliver`).
pub(crate) fn read_in_order(
    device: &dyn BlockDevice,
    geometry: &Geometry,
    nonce: u64,
    items: &[ScanItem],
    threads: usize,
    mut deliver: impl FnMut(usize, ReadBlock) -> Result<(), SsdError>,
) -> Result<(), SsdError> {
    let threads = threads.clamp(1, items.len().max(1));
    std::thread::scope(|scope| {
        let mut receivers = Vec::with_capacity(threads);
        for first in 0..threads {
            let (sender, receiver) = mpsc::sync_channel(1);
            receivers.push(receiver);
            scope.spawn(move || {
                for item in items.iter().skip(first).step_by(threads) {
                    let read = read_block(device, geometry, nonce, item);
                    // The receiver is gone after an error: stop.
                    if sender.send(read).is_err() {
                        return;
                    }
                }
            });
        }
        for index in 0..items.len() {
            let read = receivers[index % threads]
                .recv()
                .map_err(|_| reader_died())??;
            deliver(index, read)?;
        }
        Ok(())
    })
}

fn read_block(
    device: &dyn BlockDevice,
    geometry: &Geometry,
    nonce: u64,
    item: &ScanItem,
) -> Result<ReadBlock, SsdError> {
    let mut image = AlignedBuf::zeroed(align_up(item.used));
    device
        .read_at(&mut image, geometry.offset(item.block))
        .map_err(|e| SsdError::io(format!("reading block {}", item.block), e))?;
    let seed = entry::seed(nonce, item.seq, item.block);
    let parsed = entry::parse_block(&image, item.used, seed);
    Ok(ReadBlock { image, parsed })
}
