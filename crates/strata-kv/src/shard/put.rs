//! Writing a record: [`ShardInner::put`] checks the size limits, makes
//! room (in the arena and, for an insert, in the index), appends the record
//! (to the arena, or to the SSD tier with a stub in DRAM) and links the
//! key's index entry to it, releasing the record it supersedes and any
//! chunks a large collection no longer has.

use super::ShardInner;
use crate::arena::{encode, header_len, stub_len, Loc};
use crate::chunk::{ring_of, Namespace};
use crate::context::Ctx;
use crate::KvError;

impl ShardInner {
    /// Appends a new record for `key` and points the index at it.
    #[allow(clippy::too_many_arguments)]
    pub fn put(
        &mut self,
        ctx: &Ctx,
        hash: u64,
        key: &[u8],
        value_parts: &[&[u8]],
        flags: u64,
        expires_at: Option<u64>,
        cas: u64,
        now: u64,
    ) -> Result<(), KvError> {
        let value_len: usize = value_parts.iter().map(|p| p.len()).sum();
        let len = header_len(key.len(), value_len, cas, flags, expires_at) + key.len() + value_len;
        let limit = match &ctx.ssd {
            // An SSD entry must fit in one write block.
            Some(ssd) => ctx.max_item_size().min(ssd.store().max_payload()),
            None => ctx.max_item_size(),
        };
        if len > limit {
            return Err(KvError::TooLarge { size: len, limit });
        }
        // With the SSD tier, DRAM holds only the stub.
        let dram_len = match &ctx.ssd {
            Some(ssd) => stub_len(key.len(), ssd.stub_value_len(), cas, flags, expires_at),
            None => len,
        };
        let ns = Namespace::of(flags);
        let is_insert = self.lookup_in(ns, hash, key).is_none();
        let growth = if is_insert { self.index.bytes() / 2 } else { 0 };
        // Growth is only needed when the index is about to rebuild; reserving
        // it always would make a full shard refuse inserts it could take.
        let growth = if growth > 0 && self.index.would_rebuild() {
            growth
        } else {
            0
        };
        self.ensure_room(ctx, dram_len + growth, now)?;
        if is_insert {
            // A persistent table may fail to grow: find out before writing.
            let arena = &self.arena;
            self.index
                .make_room_for_one(|l| ctx.record_hash(&arena.record(l)))?;
        }
        if let (Namespace::Chunk, Some(tier)) = (ns, &ctx.tier) {
            // Before the chunk can be found after a crash (see PmemTier).
            tier.note_chunk()?;
        }
        let loc = match &ctx.ssd {
            Some(ssd) => self.append_ssd(
                ssd,
                hash,
                key,
                value_parts,
                value_len,
                flags,
                expires_at,
                cas,
            )?,
            None => self.arena.append(len, expires_at, |buf| {
                encode(buf, key, value_parts, cas, flags, expires_at)
            })?,
        };
        self.link(ctx, hash, key, loc, expires_at.is_some(), now)
    }

    /// Points `key`'s entry (existing or new) at the record just written
    /// at `loc`: an item written anew, not fetched since (memcached's new
    /// item replacing the old one on `set`). A large collection's head that
    /// now has fewer chunks (or is replaced by anything else) drops the
    /// chunks past its new count.
    pub(super) fn link(
        &mut self,
        ctx: &Ctx,
        hash: u64,
        key: &[u8],
        loc: Loc,
        has_expiry: bool,
        now: u64,
    ) -> Result<(), KvError> {
        let new_flags = self.arena.record(loc).header.flags;
        let ns = Namespace::of(new_flags);
        let mut dropped = None;
        // Look up again: making room may have evicted or moved the old entry.
        let slot = match self.lookup_in(ns, hash, key) {
            Some(slot) => {
                let old = self.index.loc(slot);
                let old_rec = self.arena.record(old);
                let (had, has) = (ring_of(old_rec.header.flags), ring_of(new_flags));
                dropped = had.map(|had| (had, has));
                if let Some(ssd) = &ctx.ssd {
                    if Self::superseded_is_released(&old_rec, &self.arena.record(loc)) {
                        Self::release_value(ssd, &old_rec, hash);
                    }
                }
                let old_len = old_rec.len();
                if old_rec.header.expires_at.is_some() {
                    self.with_expiry -= 1;
                }
                self.arena.release(old, old_len);
                self.index.set_loc(slot, loc);
                slot
            }
            None => {
                let arena = &self.arena;
                let slot = self
                    .index
                    .insert(hash, loc, |l| ctx.record_hash(&arena.record(l)));
                self.chunks += usize::from(ns == Namespace::Chunk);
                if let (Namespace::User, Some(groups)) = (ns, &mut self.groups) {
                    groups.add(key, hash);
                }
                slot
            }
        };
        self.index.reset_access(slot, ctx.access_secs(now));
        if has_expiry {
            self.with_expiry += 1;
        }
        if ns == Namespace::User {
            self.watches.touch(key);
            ctx.changes.changed(key);
        }
        match dropped {
            Some((had, has)) => self.drop_chunks(ctx, key, had.without(has)),
            None => Ok(()),
        }
    }
}
