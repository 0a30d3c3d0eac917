//! A shard's side of large collections (see [`crate::chunk`]): counting and
//! dropping chunks, and the reads and writes a collection's edit makes, all
//! under the shard's write lock, so that one command's changes reach the
//! journal as one record.

use super::{Removal, ShardInner};
use crate::arena::Arena;
use crate::chunk::{chunk_key, ring_of, split_chunk_key, Namespace, Ring, CHUNK, RING};
use crate::context::Ctx;
use crate::index::Index;
use crate::item::{stored_flags, ValueKind};
use crate::journal::change;
use crate::KvError;

/// The padding [`ShardInner::write_chunk`] adds (at most a chunk's room).
static ZEROS: [u8; 4096] = [0; 4096];

impl ShardInner {
    /// Chunk entries in `index` over `arena`: a restart counts them once,
    /// in its restore threads, before [`with_parts`](Self::with_parts).
    /// One byte per record where it has no flags (a string over RESP).
    /// Slots are in hash order, so every record read is a cache miss: a
    /// batch's records are prefetched together and their loads overlap.
    pub fn count_chunks(index: &Index, arena: &Arena) -> usize {
        const BATCH: usize = 32;
        let mut locs = index.items_in(0, index.capacity()).map(|(_, loc)| loc);
        let mut batch = Vec::with_capacity(BATCH);
        let mut chunks = 0;
        loop {
            batch.clear();
            batch.extend(locs.by_ref().take(BATCH));
            if batch.is_empty() {
                return chunks;
            }
            for &loc in &batch {
                arena.prefetch(loc);
            }
            chunks += batch
                .iter()
                .filter(|&&loc| Namespace::of(arena.record_flags(loc)) == Namespace::Chunk)
                .count();
        }
    }

    /// Index entries that are items (chunks are not).
    pub fn user_len(&self) -> usize {
        self.index.len() - self.chunks
    }

    /// Removes chunks `numbers` of the collection at `owner` (those that
    /// exist), logging each.
    pub fn drop_chunks(
        &mut self,
        ctx: &Ctx,
        owner: &[u8],
        numbers: impl Iterator<Item = u32>,
    ) -> Result<(), KvError> {
        for number in numbers {
            let key = chunk_key(owner, number);
            let hash = ctx.hash_in(Namespace::Chunk, &key);
            if let Some(slot) = self.lookup_in(Namespace::Chunk, hash, &key) {
                self.remove(ctx, slot, Removal::Deleted)?;
            }
        }
        Ok(())
    }

    /// The value of chunk `number` of `owner`, copied (chunks are small);
    /// `Ok(None)` when it does not exist.
    pub fn read_chunk(
        &self,
        ctx: &Ctx,
        owner: &[u8],
        number: u32,
    ) -> Result<Option<Vec<u8>>, KvError> {
        let key = chunk_key(owner, number);
        let hash = ctx.hash_in(Namespace::Chunk, &key);
        match self.lookup_in(Namespace::Chunk, hash, &key) {
            Some(slot) => self.with_item(ctx, slot, |item| Some(item.value.to_vec())),
            None => Ok(None),
        }
    }

    /// Lets `edit` change chunk `number` of `owner` where it is stored
    /// (see [`edit_in_place`](Self::edit_in_place): values in DRAM);
    /// `Ok(None)` when the chunk is missing or was not changed.
    pub fn edit_chunk<R>(
        &mut self,
        ctx: &Ctx,
        owner: &[u8],
        number: u32,
        now: u64,
        edit: impl FnOnce(&mut [u8]) -> Option<(usize, R)>,
    ) -> Result<Option<R>, KvError> {
        if !self.rewrites_in_place(ctx) {
            return Ok(None);
        }
        let key = chunk_key(owner, number);
        let hash = ctx.hash_in(Namespace::Chunk, &key);
        match self.lookup_record_in(Namespace::Chunk, hash, &key) {
            Some((slot, rec)) => {
                let found = (slot, rec.header);
                self.edit_in_place(ctx, found, &key, now, edit)
            }
            None => Ok(None),
        }
    }

    /// Writes chunk `number` of `owner` (a collection of `kind`), logged.
    /// With `pad_to`, where records are rewritten in place (DRAM), the
    /// stored value is `value` followed by zeros up to `pad_to` bytes, so
    /// that the chunk's next versions, as long padded, overwrite this
    /// record instead of appending (the journal logs `value` alone: the
    /// padding is room, not content, and readers of padded chunks accept
    /// either).
    #[allow(clippy::too_many_arguments)]
    pub fn write_chunk(
        &mut self,
        ctx: &Ctx,
        owner: &[u8],
        number: u32,
        kind: ValueKind,
        value: &[u8],
        pad_to: Option<usize>,
        now: u64,
    ) -> Result<(), KvError> {
        let key = chunk_key(owner, number);
        let hash = ctx.hash_in(Namespace::Chunk, &key);
        let flags = stored_flags(0, kind) | CHUNK;
        let pad = match pad_to {
            Some(to) if self.rewrites_in_place(ctx) => to.saturating_sub(value.len()),
            _ => 0,
        };
        let padding = &ZEROS[..pad.min(ZEROS.len())];
        self.write_logged(ctx, hash, &key, &[value, padding], flags, None, now, None)?;
        Ok(())
    }

    /// Writes the head of the large collection at user key `key` (of
    /// `kind`, chunks `ring`, `meta` its value), logged; chunks of an older
    /// head that `ring` does not hold are dropped. Refused (`TooLarge`)
    /// past [`RING`] chunks. `found`: the key's live slot, when the caller
    /// knows it. Returns whether the head was rewritten in place (no entry
    /// moved).
    #[allow(clippy::too_many_arguments)]
    pub fn write_head(
        &mut self,
        ctx: &Ctx,
        key: &[u8],
        kind: ValueKind,
        ring: Ring,
        meta: &[u8],
        expires_at: Option<u64>,
        now: u64,
        found: Option<usize>,
    ) -> Result<bool, KvError> {
        if ring.count > RING || ring.first >= RING {
            return Err(KvError::TooLarge {
                size: ring.count as usize,
                limit: RING as usize,
            });
        }
        let hash = ctx.hash(key);
        let flags = ring.head_flags(stored_flags(0, kind));
        let in_place = self.write_logged(ctx, hash, key, &[meta], flags, expires_at, now, found)?;
        ctx.counters.total_items.add(1);
        Ok(in_place)
    }

    /// Writes `key`'s record: `parts[0]` is its value, any further parts
    /// padding. In place when the record there has the same shape (see
    /// [`rewrite_in_place`](Self::rewrite_in_place)), else appended; the
    /// journal logs the value without its padding either way. `found`:
    /// the entry's slot when the caller knows it (else it is looked up).
    /// Returns whether it was written in place.
    #[allow(clippy::too_many_arguments)]
    fn write_logged(
        &mut self,
        ctx: &Ctx,
        hash: u64,
        key: &[u8],
        parts: &[&[u8]],
        flags: u64,
        expires_at: Option<u64>,
        now: u64,
        found: Option<usize>,
    ) -> Result<bool, KvError> {
        ctx.check_journal()?;
        let ns = Namespace::of(flags);
        let slot = match self.rewrites_in_place(ctx) {
            true => found.or_else(|| self.lookup_in(ns, hash, key)),
            false => None,
        };
        let in_place = match slot {
            Some(slot) => self.rewrite_in_place(ctx, slot, key, parts, flags, expires_at, now)?,
            None => None,
        };
        let cas = match in_place {
            Some(cas) => cas,
            None => {
                let cas = ctx.next_cas();
                self.put(ctx, hash, key, parts, flags, expires_at, cas, now)?;
                cas
            }
        };
        if ctx.journaling() {
            let value = parts.first().copied().unwrap_or_default();
            change::encode_put(&mut self.journal_buf, key, value, flags, cas, expires_at);
        }
        Ok(in_place.is_some())
    }

    /// Chunk records held; those among them no head owns (its key
    /// missing, not a large head, or with fewer chunks); and chunks heads
    /// count that do not exist. The last two are 0 unless something leaked
    /// or was lost.
    pub fn chunk_census(&self, ctx: &Ctx) -> (usize, usize, usize) {
        let (mut chunks, mut orphans, mut missing) = (0, 0, 0);
        for (_, loc) in self.index.items_in(0, self.index.capacity()) {
            let rec = self.arena.record(loc);
            if let Some(ring) = ring_of(rec.header.flags) {
                missing += ring
                    .numbers()
                    .filter(|&i| {
                        let key = chunk_key(rec.key(), i);
                        let hash = ctx.hash_in(Namespace::Chunk, &key);
                        self.lookup_in(Namespace::Chunk, hash, &key).is_none()
                    })
                    .count();
            }
            if Namespace::of(rec.header.flags) != Namespace::Chunk {
                continue;
            }
            chunks += 1;
            let owned = split_chunk_key(rec.key()).is_some_and(|(owner, number)| {
                self.lookup(ctx.hash(owner), owner)
                    .and_then(|slot| self.ring_at(slot))
                    .is_some_and(|ring| ring.holds(number))
            });
            orphans += usize::from(!owned);
        }
        (chunks, orphans, missing)
    }

    /// The chunks of the live item in `slot` if it is a large head.
    pub fn ring_at(&self, slot: usize) -> Option<Ring> {
        ring_of(self.record_at(slot).header.flags)
    }
}
