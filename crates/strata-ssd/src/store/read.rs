//! The read path: record cache, then the open block's buffer, then the
//! device. A device read fetches the aligned 4 KiB window(s) covering the
//! entry header, learns the length there, reads the rest if the entry
//! continues past the window, and checks the CRC. Reads need no lock
//! (positional I/O); only a read of the open block takes the writer mutex.

use bytes::Bytes;

use super::buffers::Lease;
use super::geometry::{align_down, align_up};
use super::handle::{loc_hint, Inner, Version};
use super::table::BlockState;
use crate::error::SsdError;
use crate::format::block_header::BLOCK_HEADER_LEN;
use crate::format::entry::{self, ENTRY_ALIGN, ENTRY_HEADER_LEN};
use crate::loc::BlockLoc;
use crate::stats::add;
use crate::user::StoreUser;

/// What a read needs to know about the block of a location.
#[derive(Clone, Copy)]
pub(crate) struct Target {
    loc: BlockLoc,
    seq: u64,
    open: bool,
    /// What the record is cached under.
    hint: u64,
    /// The record cache serves the primary user's entries only (another
    /// user caches what it reads its own way).
    cacheable: bool,
}

impl Target {
    /// The location read.
    pub(super) fn loc(&self) -> BlockLoc {
        self.loc
    }

    fn version(&self) -> Version {
        (self.seq, self.loc)
    }
}

impl Inner {
    /// Checks that `loc` can hold an entry now.
    pub(super) fn target(&self, loc: BlockLoc, hint: u64) -> Result<Target, SsdError> {
        let not_live = |reason: &str| SsdError::NotLive {
            loc,
            reason: reason.to_owned(),
        };
        let (state, seq) = self
            .table
            .state(loc.block)
            .ok_or_else(|| not_live("no such block"))?;
        if !matches!(state, BlockState::Open | BlockState::Sealed) {
            return Err(not_live("the block is free"));
        }
        let offset = loc.offset as usize;
        if !offset.is_multiple_of(ENTRY_ALIGN)
            || offset < BLOCK_HEADER_LEN
            || offset >= self.table.used(loc.block)
        {
            return Err(not_live("no entry starts there"));
        }
        Ok(Target {
            loc,
            seq,
            open: state == BlockState::Open,
            hint,
            cacheable: self.table.owner(loc.block) == Some(StoreUser::KV),
        })
    }

    pub(super) fn cached(&self, target: &Target) -> Option<Bytes> {
        let cache = self.cache.as_ref().filter(|_| target.cacheable)?;
        cache.get(&target.hint, &target.version())
    }

    pub(crate) fn read(
        &self,
        loc: BlockLoc,
        len: Option<usize>,
        hint: u64,
    ) -> Result<Bytes, SsdError> {
        let target = self.target(loc, hint)?;
        match self.cached(&target) {
            Some(hit) => Ok(hit),
            None => self.fetch(target, len),
        }
    }

    /// The payload when it is in DRAM (record cache or the open block's
    /// buffer), without device I/O; `None` when only the device has it.
    pub(crate) fn read_resident(
        &self,
        loc: BlockLoc,
        hint: u64,
    ) -> Option<Result<Bytes, SsdError>> {
        let target = match self.target(loc, hint) {
            Ok(target) => target,
            Err(e) => return Some(Err(e)),
        };
        // The open block first: it is DRAM, and not a cache lookup.
        if let Some(found) = self.open_read(&target) {
            return Some(found.map(|(_, payload)| payload));
        }
        self.cached(&target).map(Ok)
    }

    /// Caches the payload just appended at `loc` (write-allocate: a key
    /// written is likely read again, and its new location would otherwise
    /// start cold).
    pub(crate) fn cache_appended(&self, loc: BlockLoc, payload: &[u8], hint: u64) {
        let Some(cache) = &self.cache else {
            return;
        };
        if let Some((_, seq)) = self.table.state(loc.block) {
            cache.insert(hint, (seq, loc), Bytes::copy_from_slice(payload));
        }
    }

    /// Reads past the cache and caches the result. `len`, the payload
    /// length when the caller knows it, lets one device read fetch the
    /// whole entry.
    fn fetch(&self, target: Target, len: Option<usize>) -> Result<Bytes, SsdError> {
        let payload = self.uncached(target, len)?.1;
        self.cache_fetched(&target, &payload);
        Ok(payload)
    }

    /// Caches `payload`, just read past the cache for `target`.
    pub(super) fn cache_fetched(&self, target: &Target, payload: &Bytes) {
        if let Some(cache) = self.cache.as_ref().filter(|_| target.cacheable) {
            cache.insert(target.hint, target.version(), payload.clone());
        }
    }

    fn uncached(&self, target: Target, len: Option<usize>) -> Result<(u8, Bytes), SsdError> {
        if let Some(found) = self.open_read(&target) {
            return found;
        }
        let (image, base) = self.read_window(target.loc, true, len)?;
        self.decode(&target, image, base)
    }

    /// The entry at `target` from the open block's buffer, when it is
    /// there.
    pub(super) fn open_read(&self, target: &Target) -> Option<Result<(u8, Bytes), SsdError>> {
        if !target.open {
            return None;
        }
        let found = self.writer.lock().read_open(target.loc)?;
        add(&self.counters.buffer_reads, 1);
        let loc = target.loc;
        Some(found.map_err(|reason| SsdError::Corrupt {
            block: loc.block,
            offset: loc.offset,
            reason,
        }))
    }

    /// Decodes and checks the entry at `target` in `image`, the window
    /// read from block offset `base`.
    pub(super) fn decode(
        &self,
        target: &Target,
        image: Lease,
        base: usize,
    ) -> Result<(u8, Bytes), SsdError> {
        let seed = entry::seed(self.nonce, target.seq, target.loc.block);
        let at = target.loc.offset as usize - base;
        let limit = self
            .table
            .used(target.loc.block)
            .saturating_sub(base)
            .min(image.len());
        let found = entry::decode(&image, at, limit, seed).map_err(|reason| SsdError::Corrupt {
            block: target.loc.block,
            offset: target.loc.offset,
            reason,
        })?;
        Ok((found.kind, image.into_bytes(found.payload)))
    }

    /// Reads the aligned window holding the entry at `loc`: the `whole`
    /// entry, or only its header. Returns the image and the block offset it
    /// starts at.
    fn read_window(
        &self,
        loc: BlockLoc,
        whole: bool,
        len: Option<usize>,
    ) -> Result<(Lease, usize), SsdError> {
        let (base, head_end) = self.first_window(loc, whole, len);
        let mut image = self.buffers.take(head_end - base);
        self.read_device(&mut image, loc.block, base)?;
        if !whole {
            return Ok((image, base));
        }
        self.rest_of_window(loc, image, base, head_end)
    }

    /// The block offsets `(base, head_end)` of the first read of the entry
    /// at `loc`: with the length known (and plausible) and the `whole`
    /// entry wanted, the aligned window of all of it; else of its header.
    pub(super) fn first_window(
        &self,
        loc: BlockLoc,
        whole: bool,
        len: Option<usize>,
    ) -> (usize, usize) {
        let offset = loc.offset as usize;
        let base = align_down(offset);
        // The header read by `rest_of_window` still checks the length.
        let expected = len
            .map(|len| offset.saturating_add(entry::footprint(len)))
            .filter(|&end| whole && end <= self.table.used(loc.block));
        (
            base,
            align_up(expected.unwrap_or(offset + ENTRY_HEADER_LEN)),
        )
    }

    /// Given the first window `image` (`base..head_end` of the block), the
    /// length its header announces is checked and, if the entry continues
    /// past the window, the rest is read. Returns the whole entry's image
    /// and the offset it starts at.
    pub(super) fn rest_of_window(
        &self,
        loc: BlockLoc,
        mut image: Lease,
        base: usize,
        head_end: usize,
    ) -> Result<(Lease, usize), SsdError> {
        let offset = loc.offset as usize;
        let len = entry::announced_len(&image[offset - base..]);
        let end = offset.saturating_add(entry::footprint(len));
        if end > self.table.used(loc.block) {
            return Err(SsdError::Corrupt {
                block: loc.block,
                offset: loc.offset,
                reason: format!("entry length {len} runs past the block's used bytes"),
            });
        }
        let full_end = align_up(end);
        if full_end > head_end {
            let mut whole = self.buffers.take(full_end - base);
            whole[..image.len()].copy_from_slice(&image);
            self.read_device(&mut whole[head_end - base..], loc.block, head_end)?;
            image = whole;
        }
        Ok((image, base))
    }

    /// One device read at `offset` inside `block`.
    pub(crate) fn read_device(
        &self,
        buf: &mut [u8],
        block: u32,
        offset: usize,
    ) -> Result<(), SsdError> {
        let read = self.device.read_at(buf, self.device_offset(block, offset));
        self.count_read(read, buf.len(), block, offset)
    }

    /// Where `offset` inside `block` is on the device.
    pub(super) fn device_offset(&self, block: u32, offset: usize) -> u64 {
        self.geometry.offset(block) + offset as u64
    }

    /// Counts a device read of `len` bytes at `offset` inside `block` that
    /// ended as `read` says, naming the place in its error.
    pub(super) fn count_read(
        &self,
        read: std::io::Result<()>,
        len: usize,
        block: u32,
        offset: usize,
    ) -> Result<(), SsdError> {
        read.map_err(|e| SsdError::io(format!("reading block {block} at offset {offset}"), e))?;
        add(&self.counters.device_reads, 1);
        add(&self.counters.device_read_bytes, len as u64);
        Ok(())
    }

    pub(crate) fn release(
        &self,
        loc: BlockLoc,
        payload_len: usize,
        hint: u64,
    ) -> Result<(), SsdError> {
        let seq = self.table.state(loc.block).map_or(0, |(_, seq)| seq);
        let bytes = entry::footprint(payload_len) as u64;
        self.table
            .release(loc.block, bytes)
            .map_err(|reason| SsdError::NotLive { loc, reason })?;
        if let Some(cache) = &self.cache {
            cache.invalidate(&hint, &(seq, loc));
        }
        Ok(())
    }

    pub(crate) fn release_by_reading(&self, loc: BlockLoc) -> Result<usize, SsdError> {
        let target = self.target(loc, loc_hint(loc))?;
        let len = match self.cached(&target) {
            Some(hit) => hit.len(),
            None => self.entry_len(target)?,
        };
        self.release(loc, len, target.hint)?;
        Ok(len)
    }

    /// The payload length of the entry at `target`, from the open block's
    /// buffer or the header on the device.
    fn entry_len(&self, target: Target) -> Result<usize, SsdError> {
        let loc = target.loc;
        if target.open {
            if let Some(found) = self.writer.lock().read_open(loc) {
                return found.map(|(_, payload)| payload.len()).map_err(|reason| {
                    SsdError::Corrupt {
                        block: loc.block,
                        offset: loc.offset,
                        reason,
                    }
                });
            }
        }
        let (image, base) = self.read_window(loc, false, None)?;
        Ok(entry::announced_len(&image[loc.offset as usize - base..]))
    }
}
