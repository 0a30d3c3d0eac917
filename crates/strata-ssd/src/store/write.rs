//! The write path: the open block is assembled in the DRAM buffer of
//! [`Writer`]; it goes to the device when full (sealing it) and on
//! `flush` (its filled prefix, rounded up to 4 KiB, rewritten whole each
//! time so the block header's used bytes stay in step). Freed blocks get a
//! freed marker in place of their header (`reclaim`), after a sync.
//!
//! Appends hold the writer mutex, so entries get a total order (block
//! sequence, offset): the order a rebuild replays them in. Sealing writes a
//! block under that mutex (appends wait for one block write).

use std::sync::atomic::Ordering::SeqCst;

use strata_device::AlignedBuf;

use super::geometry::align_up;
use super::handle::Inner;
use super::writer::{OpenBlock, Room, Writer};
use crate::error::SsdError;
use crate::format::block_header::{BlockHeader, Written, BLOCK_HEADER_LEN};
use crate::format::entry;
use crate::loc::BlockLoc;
use crate::position::Position;
use crate::stats::add;
use crate::user::StoreUser;

impl Inner {
    /// Appends one entry; `room` says whether it may use the reserve and
    /// whether it counts as moved.
    pub(crate) fn append_entry(
        &self,
        kind: u8,
        payload: &[u8],
        room: Room,
    ) -> Result<BlockLoc, SsdError> {
        let relocated = room != Room::Ordinary;
        let max = self.geometry.max_payload();
        if payload.len() > max {
            return Err(SsdError::TooLarge {
                len: payload.len(),
                max,
            });
        }
        let size = entry::footprint(payload.len());
        let mut writer = self.writer.lock();
        self.check_poison()?;
        let block_size = self.geometry.block_size;
        if writer
            .open
            .as_ref()
            .is_none_or(|o| o.used + size > block_size)
        {
            self.seal(&mut writer)?;
            self.open_block(&mut writer, relocated)?;
        }
        let Writer { buf, open, .. } = &mut *writer;
        let Some(open) = open.as_mut() else {
            // `open_block` leaves a block open whenever it succeeds.
            return Err(SsdError::Io {
                what: "appending".into(),
                source: std::io::Error::other("no write block open after opening one"),
            });
        };
        entry::encode(
            &mut buf[open.used..open.used + size],
            open.seed,
            kind,
            payload,
        );
        let loc = BlockLoc {
            block: open.block,
            offset: open.used as u32,
        };
        open.used += size;
        open.entries += 1;
        self.table.set_used(open.block, open.used);
        self.table.add_live(open.block, size as u64);
        add(&self.counters.appends, 1);
        if room == Room::Relocated {
            add(&self.counters.entries_moved, 1);
            add(&self.counters.bytes_moved, size as u64);
        }
        Ok(loc)
    }

    /// Writes the open block (if any) and makes it read-only.
    fn seal(&self, writer: &mut Writer) -> Result<(), SsdError> {
        let Some(block) = writer.open.as_ref().map(|o| o.block) else {
            return Ok(());
        };
        self.write_open(writer)?;
        writer.open = None;
        self.table.seal(block);
        Ok(())
    }

    /// Opens a free block for the primary user's appends. No block may be
    /// open.
    fn open_block(&self, writer: &mut Writer, relocated: bool) -> Result<(), SsdError> {
        let room = if relocated {
            Room::Relocated
        } else {
            Room::Ordinary
        };
        let block = self.take_block(writer, room, StoreUser::KV)?;
        writer.open = Some(block);
        Ok(())
    }

    /// Takes a free block for `owner` with the next sequence, reclaiming
    /// freeing blocks first if none is available (after writing the open
    /// block's filled prefix, which may hold what superseded their
    /// entries).
    pub(super) fn take_block(
        &self,
        writer: &mut Writer,
        room: Room,
        owner: StoreUser,
    ) -> Result<OpenBlock, SsdError> {
        let reserve = (room == Room::Ordinary).then_some(self.geometry.reserve);
        let seq = writer.next_seq;
        let block = match self.table.open_free(seq, reserve, owner) {
            Ok(block) => block,
            Err(free) => {
                let freeing = self.table.take_freeing();
                if freeing.is_empty() {
                    return Err(self.full(free));
                }
                if writer.open.as_ref().is_some_and(|o| o.written < o.used) {
                    self.write_open(writer)?;
                }
                let open_seq = self.sync_bound(writer);
                self.reclaim(&freeing, open_seq, seq)?;
                self.table
                    .open_free(seq, reserve, owner)
                    .map_err(|free| self.full(free))?
            }
        };
        writer.next_seq += 1;
        Ok(OpenBlock {
            block,
            owner,
            seq,
            seed: entry::seed(self.nonce, seq, block),
            used: BLOCK_HEADER_LEN,
            entries: 0,
            written: 0,
            written_entries: 0,
            header_frontier: 0,
        })
    }

    /// The sequence a sync issued now may claim every block below as
    /// complete: the open block's (or the next one's, if none is open),
    /// but no higher than a run block still being written.
    fn sync_bound(&self, writer: &Writer) -> u64 {
        let open = writer.open.as_ref().map_or(writer.next_seq, |o| o.seq);
        let writing = self.runs_writing.lock().iter().next().copied();
        writing.map_or(open, |seq| open.min(seq))
    }

    pub(super) fn full(&self, free_blocks: u32) -> SsdError {
        SsdError::Full {
            free_blocks,
            reserve: self.geometry.reserve,
        }
    }

    /// Writes the open block's header and filled prefix (rounded up to
    /// 4 KiB, the rounding zeroed) over its earlier writes.
    fn write_open(&self, writer: &mut Writer) -> Result<(), SsdError> {
        let Writer { buf, open, .. } = writer;
        match open.as_mut() {
            Some(open) => self.write_image(buf, open),
            None => Ok(()),
        }
    }

    /// Writes the header and filled prefix of the block `open`, whose
    /// image is `buf`.
    pub(super) fn write_image(
        &self,
        buf: &mut AlignedBuf,
        open: &mut OpenBlock,
    ) -> Result<(), SsdError> {
        let frontier = self.frontier.load(SeqCst);
        let header = BlockHeader::Written(Written {
            seq: open.seq,
            frontier,
            used: open.used as u32,
            entries: open.entries,
            owner: open.owner.code(),
        });
        header.encode(self.nonce, &mut buf[..]);
        let len = align_up(open.used);
        buf[open.used..len].fill(0);
        self.write(&buf[..len], open.block, "writing")?;
        (open.written, open.written_entries) = (open.used, open.entries);
        open.header_frontier = frontier;
        Ok(())
    }

    /// After a sync advanced the frontier, rewrites the first page of the
    /// open block so its header records it (describing only the bytes
    /// already written), so a rebuild knows the synced blocks must be
    /// intact. Made durable by the next sync.
    fn record_frontier(&self) -> Result<(), SsdError> {
        let mut writer = self.writer.lock();
        let frontier = self.frontier.load(SeqCst);
        let Writer { buf, open, .. } = &mut *writer;
        let Some(open) = open.as_mut() else {
            return Ok(());
        };
        if open.written == 0 || open.header_frontier >= frontier {
            return Ok(());
        }
        let header = BlockHeader::Written(Written {
            seq: open.seq,
            frontier,
            used: open.written as u32,
            entries: open.written_entries,
            owner: open.owner.code(),
        });
        let page_len = strata_device::BLOCK_ALIGN;
        let mut page = AlignedBuf::zeroed(page_len);
        page.copy_from_slice(&buf[..page_len]);
        header.encode(self.nonce, &mut page);
        // Bytes past the written prefix are not described by this header.
        page[open.written.min(page_len)..].fill(0);
        self.write(&page, open.block, "updating the header of")?;
        open.header_frontier = frontier;
        Ok(())
    }

    /// One device write at the start of `block`; poisons on failure.
    pub(super) fn write(&self, bytes: &[u8], block: u32, what: &str) -> Result<(), SsdError> {
        self.device
            .write_at(bytes, self.geometry.offset(block))
            .map_err(|e| self.fail(SsdError::io(format!("{what} block {block}"), e)))?;
        // After the write: a sync that clears the flag first then covers it.
        self.unsynced.store(true, SeqCst);
        add(&self.counters.block_writes, 1);
        add(&self.counters.bytes_written, bytes.len() as u64);
        Ok(())
    }

    /// Syncs the device; afterwards every block below `open_seq` (the
    /// open block's sequence when the writes to cover were issued, or the
    /// next sequence if none was open) is complete and durable.
    fn sync(&self, open_seq: u64) -> Result<(), SsdError> {
        self.unsynced.store(false, SeqCst);
        self.device
            .sync()
            .map_err(|e| self.fail(SsdError::io("syncing the device", e)))?;
        add(&self.counters.syncs, 1);
        self.frontier.fetch_max(open_seq.saturating_sub(1), SeqCst);
        self.synced_to
            .fetch_max(Position::new(open_seq, 0).to_bits(), SeqCst);
        Ok(())
    }

    /// Frees `blocks` for reuse: sync (so what superseded their entries is
    /// durable), write their freed markers, sync, put them on the free
    /// list. The caller took them from the freeing list after every append
    /// that superseded them had been written.
    fn reclaim(&self, blocks: &[u32], open_seq: u64, seq_high: u64) -> Result<(), SsdError> {
        self.sync(open_seq)?;
        let mut page = AlignedBuf::zeroed(strata_device::BLOCK_ALIGN);
        BlockHeader::Freed { seq_high }.encode(self.nonce, &mut page);
        for &block in blocks {
            self.write(&page, block, "freeing")?;
        }
        self.sync(open_seq)?;
        self.table.make_free(blocks);
        add(&self.counters.blocks_freed, blocks.len() as u64);
        Ok(())
    }

    /// See [`SsdStore::flush`](super::SsdStore::flush).
    pub(crate) fn flush(&self) -> Result<(), SsdError> {
        let (freeing, open_seq, seq_high, written) = {
            let mut writer = self.writer.lock();
            self.check_poison()?;
            // Taken before the write below, which then covers every append
            // that superseded these blocks' entries.
            let freeing = self.table.take_freeing();
            if writer.open.as_ref().is_some_and(|o| o.written < o.used) {
                self.write_open(&mut writer)?;
            }
            let open_seq = self.sync_bound(&writer);
            let written = writer
                .open
                .as_ref()
                .map(|o| Position::new(o.seq, o.written as u32));
            (freeing, open_seq, writer.next_seq, written)
        };
        if !freeing.is_empty() {
            self.reclaim(&freeing, open_seq, seq_high)?;
        } else if self.unsynced.load(SeqCst) {
            self.sync(open_seq)?;
        } else {
            return Ok(());
        }
        // The sync covered the open block's prefix written above too.
        if let Some(written) = written {
            self.synced_to.fetch_max(written.to_bits(), SeqCst);
        }
        self.record_frontier()
    }
}
