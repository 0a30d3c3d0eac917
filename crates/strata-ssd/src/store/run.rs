//! Runs: another user's entries written as whole blocks of its own
//! ([`StoreUser`]), for data that arrives in bulk and leaves whole (a
//! search segment's files, a checkpoint, a spill). A run fills fresh
//! blocks in order, writes each, seals it and returns the locations; the
//! primary user's open block is not touched, so the two never share a
//! block and the primary's defragmenter never meets a run.
//!
//! The blocks are taken under the writer lock (all or none) and written
//! outside it, so the primary's appends do not wait for a large run.
//!
//! Durability is the primary's: a run is readable when `append_run`
//! returns and durable after the next successful flush, which syncs every
//! block written before it. Ordering: run blocks take sequences like any
//! block; a sync's frontier (every block below the open block's sequence)
//! stops below the lowest run block still being written
//! (`Inner::runs_writing`), so it never claims one complete before its
//! write; until a sync covers them a power cut may tear them, and the
//! rebuild cuts the tear.

use std::sync::atomic::Ordering::SeqCst;

use strata_device::{AlignedBuf, BLOCK_ALIGN};

use super::handle::Inner;
use super::writer::{OpenBlock, Room};
use crate::error::SsdError;
use crate::format::block_header::BLOCK_HEADER_LEN;
use crate::format::device_header::{DeviceHeader, USERS_VERSION};
use crate::format::entry;
use crate::loc::BlockLoc;
use crate::stats::add;
use crate::user::StoreUser;

/// Blocks of `block_size` that entries of these footprints fill in order.
fn blocks_needed(footprints: impl Iterator<Item = usize>, block_size: usize) -> u32 {
    let (mut blocks, mut used) = (0u32, block_size);
    for size in footprints {
        if used + size > block_size {
            blocks += 1;
            used = BLOCK_HEADER_LEN;
        }
        used += size;
    }
    blocks
}

impl Inner {
    /// See [`SsdStore::append_run`](crate::SsdStore::append_run).
    pub(crate) fn append_run(
        &self,
        owner: StoreUser,
        kind: u8,
        payloads: &[&[u8]],
    ) -> Result<Vec<BlockLoc>, SsdError> {
        if owner.is_primary() {
            return Err(SsdError::Misuse(
                "the primary user appends into the open block, not in runs",
            ));
        }
        let max = self.geometry.max_payload();
        if let Some(payload) = payloads.iter().find(|p| p.len() > max) {
            return Err(SsdError::TooLarge {
                len: payload.len(),
                max,
            });
        }
        if payloads.is_empty() {
            return Ok(Vec::new());
        }
        let sizes = payloads.iter().map(|p| entry::footprint(p.len()));
        let needed = blocks_needed(sizes, self.geometry.block_size);
        let blocks = self.take_run_blocks(owner, needed)?;
        let taken: Vec<(u32, u64)> = blocks.iter().map(|b| (b.block, b.seq)).collect();
        let result = self.fill_run(blocks, kind, payloads);
        if result.is_err() {
            // Nothing of a failed run stays live: its blocks free
            // themselves (their freed markers go with the next flush).
            for &(block, _) in &taken {
                self.table.seal(block);
                let _ = self.table.free(block, true);
            }
        }
        let mut writing = self.runs_writing.lock();
        for (_, seq) in &taken {
            writing.remove(seq);
        }
        result
    }

    /// Takes `needed` blocks for a run of `owner` under the writer lock,
    /// all or none: refused before any is taken when they cannot fit
    /// beside the reserve (the open block, if any, keeps its block). They
    /// are recorded as being written, so no sync claims them until the
    /// run wrote them.
    fn take_run_blocks(&self, owner: StoreUser, needed: u32) -> Result<Vec<OpenBlock>, SsdError> {
        let mut writer = self.writer.lock();
        self.check_poison()?;
        let (free, freeing) = self.table.free_counts();
        if free + freeing < needed + self.geometry.reserve {
            return Err(self.full(free));
        }
        self.enable_users()?;
        let mut taken = Vec::with_capacity(needed as usize);
        for _ in 0..needed {
            match self.take_block(&mut writer, Room::Ordinary, owner) {
                Ok(block) => {
                    self.runs_writing.lock().insert(block.seq);
                    taken.push(block);
                }
                Err(e) => {
                    let mut writing = self.runs_writing.lock();
                    for block in &taken {
                        writing.remove(&block.seq);
                        self.table.seal(block.block);
                        let _ = self.table.free(block.block, true);
                    }
                    return Err(e);
                }
            }
        }
        Ok(taken)
    }

    /// Writes `payloads` into the run's `blocks` in order (outside the
    /// writer lock: appends of other users go on meanwhile), sealing each
    /// once written.
    fn fill_run(
        &self,
        blocks: Vec<OpenBlock>,
        kind: u8,
        payloads: &[&[u8]],
    ) -> Result<Vec<BlockLoc>, SsdError> {
        let block_size = self.geometry.block_size;
        let mut buf = AlignedBuf::zeroed(block_size);
        let mut blocks = blocks.into_iter();
        let mut open: Option<OpenBlock> = None;
        let mut locs = Vec::with_capacity(payloads.len());
        for payload in payloads {
            self.check_poison()?;
            let size = entry::footprint(payload.len());
            if open.as_ref().is_none_or(|o| o.used + size > block_size) {
                if let Some(mut full) = open.take() {
                    self.seal_run_block(&mut buf, &mut full)?;
                }
                let next = blocks.next();
                open = Some(next.ok_or(SsdError::Misuse("a run outgrew its blocks"))?);
            }
            let Some(block) = open.as_mut() else {
                continue;
            };
            let at = block.used;
            entry::encode(&mut buf[at..at + size], block.seed, kind, payload);
            locs.push(BlockLoc {
                block: block.block,
                offset: at as u32,
            });
            block.used += size;
            block.entries += 1;
            self.table.add_live(block.block, size as u64);
            add(&self.counters.appends, 1);
        }
        if let Some(mut last) = open {
            self.seal_run_block(&mut buf, &mut last)?;
        }
        Ok(locs)
    }

    /// Writes a filled run block and seals it.
    fn seal_run_block(&self, buf: &mut AlignedBuf, block: &mut OpenBlock) -> Result<(), SsdError> {
        self.table.set_used(block.block, block.used);
        self.write_image(buf, block)?;
        self.table.seal(block.block);
        Ok(())
    }

    /// Raises a version 1 device to the version whose block headers
    /// record their owner, before the first block of another user is
    /// written: the header is rewritten and synced, so a build that reads
    /// only version 1 refuses the device from then on. The caller holds
    /// the writer lock.
    fn enable_users(&self) -> Result<(), SsdError> {
        if self.users_enabled.load(SeqCst) {
            return Ok(());
        }
        let header = DeviceHeader {
            version: USERS_VERSION,
            ..self.device_header
        };
        let mut page = AlignedBuf::zeroed(BLOCK_ALIGN);
        self.device
            .read_at(&mut page, 0)
            .map_err(|e| self.fail(SsdError::io("reading the device header", e)))?;
        header.encode(&mut page);
        self.device
            .write_at(&page, 0)
            .and_then(|()| self.device.sync())
            .map_err(|e| self.fail(SsdError::io("raising the device format version", e)))?;
        self.users_enabled.store(true, SeqCst);
        tracing::info!(version = USERS_VERSION, "SSD tier device format raised");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_needed_packs_in_order() {
        let block = 4096;
        assert_eq!(blocks_needed(std::iter::empty(), block), 0);
        assert_eq!(blocks_needed([16].into_iter(), block), 1);
        let room = block - BLOCK_HEADER_LEN;
        assert_eq!(blocks_needed([room].into_iter(), block), 1);
        assert_eq!(blocks_needed([room, 8].into_iter(), block), 2);
        // Order matters: a small entry after a large one starts a block.
        assert_eq!(
            blocks_needed([room - 8, 16, room - 8].into_iter(), block),
            3
        );
    }
}
