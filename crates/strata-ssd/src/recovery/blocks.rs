//! Reading whole blocks for the rebuild scan in parallel while delivering
//! them in order: thread `t` of `n` reads blocks `t, t + n, t + 2n, ...` of
//! the list into its own one-slot channel, and the caller takes them round
//! robin. At most two blocks per thread are in memory; CRCs are checked on
//! the reader threads, and so is whatever per-block work the caller asks
//! for (`prepare`: the parallel scan routes each entry to its worker there).

use std::sync::mpsc;

use strata_device::{AlignedBuf, BlockDevice};

use super::headers::reader_died;
use super::state::{corrupt, Found, Recovery};
use crate::error::SsdError;
use crate::format::entry::{self, ParsedBlock};
use crate::store::geometry::{align_up, Geometry};
use crate::user::StoreUser;

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

/// Work done on a reader thread with each block read and parsed.
pub(crate) type Prepare<'a, P> = &'a (dyn Fn(&ReadBlock) -> P + Sync);

/// Reads and parses every item with `threads` threads, calls `prepare`
/// with each block on the thread that read it, and hands the blocks with
/// what `prepare` made to `deliver` in list order; stops at the first
/// error (of a read or of `deliver`).
pub(crate) fn read_in_order<P: Send>(
    device: &dyn BlockDevice,
    geometry: &Geometry,
    nonce: u64,
    items: &[ScanItem],
    threads: usize,
    prepare: Prepare<'_, P>,
    mut deliver: impl FnMut(usize, ReadBlock, P) -> Result<(), SsdError>,
) -> Result<(), SsdError> {
    let threads = threads.clamp(1, items.len().max(1));
    std::thread::scope(|scope| {
        let mut receivers = Vec::with_capacity(threads);
        for first in 0..threads {
            let (sender, receiver) = mpsc::sync_channel(1);
            receivers.push(receiver);
            scope.spawn(move || {
                for item in items.iter().skip(first).step_by(threads) {
                    let read = read_block(device, geometry, nonce, item).map(|block| {
                        let prepared = prepare(&block);
                        (block, prepared)
                    });
                    // The receiver is gone after an error: stop.
                    if sender.send(read).is_err() {
                        return;
                    }
                }
            });
        }
        for index in 0..items.len() {
            let (read, prepared) = receivers[index % threads]
                .recv()
                .map_err(|_| reader_died())??;
            deliver(index, read, prepared)?;
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

impl Recovery {
    /// Reads every found block of the primary user (or only those written
    /// after the durable frontier), cutting torn tails and counting
    /// entries, and hands each to `on_block` with its number and what
    /// `prepare` made of it on its reader thread, in ascending sequence.
    /// Other users' blocks written after the frontier are read only to cut
    /// their torn tails.
    pub(super) fn read_blocks_with<P: Send>(
        &mut self,
        unsynced_only: bool,
        prepare: Prepare<'_, P>,
        mut on_block: impl FnMut(u32, ReadBlock, P) -> Result<(), SsdError>,
    ) -> Result<(), SsdError> {
        let frontier = self.frontier;
        // Which found blocks to read, and what the reader needs of each:
        // the primary user's (those written since the last sync only, when
        // adopting), and other users' written since the last sync, whose
        // torn tails must be cut too; their entries are not delivered.
        let primary = |f: &Found| f.header.owner == StoreUser::KV.code();
        let positions: Vec<usize> = (0..self.found.len())
            .filter(|&i| {
                let f = &self.found[i];
                f.header.seq > frontier || (primary(f) && !unsynced_only)
            })
            .collect();
        let items: Vec<ScanItem> = positions
            .iter()
            .map(|&i| {
                let f = &self.found[i];
                ScanItem {
                    block: f.block,
                    seq: f.header.seq,
                    used: f.header.used as usize,
                }
            })
            .collect();
        let (found, stats) = (&mut self.found, &mut self.stats);
        (stats.entries, stats.payload_bytes) = (0, 0);
        (stats.torn_blocks, stats.bytes_dropped) = (0, 0);
        read_in_order(
            &*self.device,
            &self.geometry,
            self.nonce,
            &items,
            self.config.rebuild_threads,
            prepare,
            |i, read, prepared| {
                let f = &mut found[positions[i]];
                f.cut = None;
                if let Some((offset, reason)) = &read.parsed.bad {
                    if f.header.seq <= frontier {
                        return Err(corrupt(f.block, *offset, reason.clone()));
                    }
                    let dropped = f.header.used - offset;
                    tracing::warn!(block = f.block, offset, dropped, %reason, "SSD tier torn tail cut");
                    f.cut = Some((*offset as usize, read.parsed.entries.len() as u32));
                    stats.torn_blocks += 1;
                    stats.bytes_dropped += u64::from(dropped);
                }
                if !primary(f) {
                    return Ok(());
                }
                stats.entries += read.parsed.entries.len() as u64;
                stats.payload_bytes += (read.parsed.entries.iter())
                    .map(|(_, entry)| entry.payload.len() as u64)
                    .sum::<u64>();
                on_block(f.block, read, prepared)
            },
        )?;
        for f in &self.found {
            let used = f.cut.map_or(f.header.used as usize, |(used, _)| used);
            self.table.recovered_used(f.block, used);
        }
        self.scanned = true;
        Ok(())
    }
}
