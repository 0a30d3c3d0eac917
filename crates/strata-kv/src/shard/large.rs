//! [`LargeEdit`]: one command's view of a key that may hold a large
//! collection (see [`crate::chunk`]), with the key's shard write-locked for
//! the whole edit: every chunk and head it writes or drops reaches the
//! journal in the one record appended when the lock is released.

use super::large_read::{current_at, current_of, ChunkSource, Current};
use super::{Removal, ShardInner};
use crate::chunk::{chunks_of, Namespace, Ring};
use crate::context::Ctx;
use crate::fetch;
use crate::item::{split_stored_flags, Mutation, NewItem, ValueKind};
use crate::KvError;

/// Reads and writes of one key and its chunks under its shard's lock.
pub struct LargeEdit<'s> {
    shard: &'s mut ShardInner,
    ctx: &'s Ctx,
    key: &'s [u8],
    hash: u64,
    now: u64,
    /// The key's live slot as found at open (`Some(None)`: no live item),
    /// kept until the first write that may move entries (making room
    /// evicts or compacts, an insert may rebuild the index); `None` then.
    known: Option<Option<usize>>,
    /// Values not in DRAM are read while blocking (an edit is never re-run).
    _blocking: fetch::Blocking,
}

impl Drop for LargeEdit<'_> {
    fn drop(&mut self) {
        self.shard.pinned.clear();
    }
}

impl<'s> LargeEdit<'s> {
    /// Opens `key` (user hash `hash`) in `shard`; an expired item there is
    /// removed first, with its chunks, so the edit starts from nothing.
    pub(crate) fn open(
        shard: &'s mut ShardInner,
        ctx: &'s Ctx,
        key: &'s [u8],
        hash: u64,
        now: u64,
    ) -> Result<Self, KvError> {
        let mut live = None;
        if let Some((slot, rec)) = shard.lookup_record_in(Namespace::User, hash, key) {
            if rec.header.expires_at.is_none_or(|at| at > now) {
                live = Some(slot);
            } else {
                ctx.check_journal()?;
                shard.remove(ctx, slot, Removal::Expired)?;
            }
        }
        shard.pinned.set(key);
        Ok(Self {
            shard,
            ctx,
            key,
            hash,
            now,
            known: Some(live),
            _blocking: fetch::Blocking::enter(),
        })
    }

    /// The key being edited.
    pub fn key(&self) -> &[u8] {
        self.key
    }

    /// Whether the key holds a live item now, without reading its value.
    pub fn exists(&self) -> bool {
        match self.known {
            Some(found) => found.is_some(),
            None => self
                .shard
                .live_slot(self.hash, self.key, self.now)
                .is_some(),
        }
    }

    /// What the key holds now (`None`: nothing).
    pub fn current(&self) -> Result<Option<Current>, KvError> {
        match self.known {
            Some(Some(slot)) => current_at(self.shard, self.ctx, slot),
            Some(None) => Ok(None),
            None => current_of(self.shard, self.ctx, self.key, self.hash, self.now),
        }
    }

    /// Chunk `number` of the collection at this key (`None`: absent).
    pub fn chunk(&self, number: u32) -> Result<Option<Vec<u8>>, KvError> {
        self.shard.read_chunk(self.ctx, self.key, number)
    }

    /// Writes chunk `number` of this key's collection of `kind`.
    pub fn put_chunk(&mut self, number: u32, kind: ValueKind, value: &[u8]) -> Result<(), KvError> {
        self.write_chunk(number, kind, value, None)
    }

    /// Writes chunk `number` like [`put_chunk`](Self::put_chunk), stored
    /// padded with zeros to `pad_to` bytes where records are rewritten in
    /// place (DRAM), so that later versions of the chunk up to that length
    /// overwrite it; whoever reads the chunk must accept trailing zeros.
    pub fn put_padded_chunk(
        &mut self,
        number: u32,
        kind: ValueKind,
        value: &[u8],
        pad_to: usize,
    ) -> Result<(), KvError> {
        self.write_chunk(number, kind, value, Some(pad_to))
    }

    fn write_chunk(
        &mut self,
        number: u32,
        kind: ValueKind,
        value: &[u8],
        pad_to: Option<usize>,
    ) -> Result<(), KvError> {
        let (ctx, now) = (self.ctx, self.now);
        self.known = None;
        self.shard
            .write_chunk(ctx, self.key, number, kind, value, pad_to, now)
    }

    /// Writes the head: a large collection of `kind` with `chunks` chunks
    /// (numbered `0..chunks`; any past that are dropped), `meta` its value.
    pub fn put_head(
        &mut self,
        kind: ValueKind,
        chunks: u32,
        meta: &[u8],
        expires_at: Option<u64>,
    ) -> Result<(), KvError> {
        self.put_ring_head(kind, Ring::dense(chunks), meta, expires_at)
    }

    /// Writes the head of a collection whose chunks are `ring` (a list's
    /// deque); chunks the old head had outside `ring` are dropped.
    pub fn put_ring_head(
        &mut self,
        kind: ValueKind,
        ring: Ring,
        meta: &[u8],
        expires_at: Option<u64>,
    ) -> Result<(), KvError> {
        let (ctx, now) = (self.ctx, self.now);
        let found = self.known.take().flatten();
        let shard = &mut *self.shard;
        let in_place = shard.write_head(ctx, self.key, kind, ring, meta, expires_at, now, found)?;
        if in_place && found.is_some() {
            // Rewritten where it was found: no entry moved.
            self.known = Some(found);
        }
        Ok(())
    }

    /// Lets `edit` change chunk `number` where it is stored (values in
    /// DRAM; see `shard/in_place.rs`): it gets the stored value, padding
    /// included, and returns the length of the content it leaves in front
    /// (zeros after it) with its result, or `None` having changed nothing.
    /// `Ok(None)`: not changed (the chunk is missing, values are not in
    /// DRAM, or `edit` declined). No entry moves.
    pub fn edit_chunk<R>(
        &mut self,
        number: u32,
        edit: impl FnOnce(&mut [u8]) -> Option<(usize, R)>,
    ) -> Result<Option<R>, KvError> {
        let (ctx, now) = (self.ctx, self.now);
        self.shard.edit_chunk(ctx, self.key, number, now, edit)
    }

    /// Runs `f` on the value held whole at the key (a packed collection
    /// of `kind`, not a large head), borrowed where it is stored: a command
    /// that finds it has nothing to change answers without copying it.
    /// `Ok(None)`: no live value of `kind` held whole (or an earlier write
    /// of this edit may have moved entries); read [`current`](Self::current).
    pub fn read_whole<R>(
        &self,
        kind: ValueKind,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<Option<R>, KvError> {
        let Some(Some(slot)) = self.known else {
            return Ok(None);
        };
        let rec = self.shard.record_at(slot);
        let held = split_stored_flags(rec.header.flags).map(|(_, k)| k);
        if held != Some(kind) || chunks_of(rec.header.flags).is_some() {
            return Ok(None);
        }
        self.shard
            .with_record(self.ctx, &rec, |item| f(item.value))
            .map(Some)
    }

    /// Lets `edit` change the value held whole at the key (a packed
    /// collection of `kind`, not a large head) where it is stored, as
    /// [`edit_chunk`](Self::edit_chunk) does for a chunk: `edit` gets the
    /// stored bytes and returns the length of the content it leaves in
    /// front with its result, or `None` having changed nothing. `Ok(None)`:
    /// not changed (no live value of `kind` held whole, values are not in
    /// DRAM, an earlier write of this edit may have moved entries, or
    /// `edit` declined); the caller then writes the value anew. No entry
    /// moves.
    pub fn edit_whole<R>(
        &mut self,
        kind: ValueKind,
        edit: impl FnOnce(&mut [u8]) -> Option<(usize, R)>,
    ) -> Result<Option<R>, KvError> {
        let Some(Some(slot)) = self.known else {
            return Ok(None);
        };
        let header = self.shard.record_at(slot).header;
        let held = split_stored_flags(header.flags).map(|(_, k)| k);
        if held != Some(kind) || chunks_of(header.flags).is_some() {
            return Ok(None);
        }
        let (ctx, now) = (self.ctx, self.now);
        let edited = self
            .shard
            .edit_in_place(ctx, (slot, header), self.key, now, edit)?;
        if edited.is_some() {
            // A store of the key's value, as `put_whole` counts it.
            ctx.counters.total_items.add(1);
        }
        Ok(edited)
    }

    /// Whether a value written whole as long as the one there overwrites
    /// it in place (values in DRAM; see `shard/in_place.rs`): only then is
    /// padding a packed value to a steady length worth its bytes.
    pub fn rewrites_in_place(&self) -> bool {
        self.shard.rewrites_in_place(self.ctx)
    }

    /// Stores `value` whole under the key as a value of `kind` (a packed
    /// collection or a string); chunks of a large one there are dropped.
    /// A value as long as the one there, of the same kind and expiry,
    /// rewrites its record in place (in DRAM; see `shard/in_place.rs`).
    pub fn put_whole(
        &mut self,
        kind: ValueKind,
        value: &[u8],
        expires_at: Option<u64>,
    ) -> Result<(), KvError> {
        if let Some(Some(slot)) = self.known {
            let (ctx, now) = (self.ctx, self.now);
            let shard = &mut *self.shard;
            if shard.put_in_place(ctx, slot, self.key, kind.into(), 0, value, expires_at, now)? {
                return Ok(());
            }
        }
        let item = NewItem {
            value: value.into(),
            flags: 0,
            expires_at,
        };
        self.apply(Mutation::PutKind(kind, item))
    }

    /// Removes the key (with its chunks); true if it held something.
    pub fn delete(&mut self) -> Result<bool, KvError> {
        let had = match self.known {
            Some(live) => live.is_some(),
            None => self
                .shard
                .live_slot(self.hash, self.key, self.now)
                .is_some(),
        };
        self.apply(Mutation::Delete)?;
        Ok(had)
    }

    fn apply(&mut self, mutation: Mutation<'_>) -> Result<(), KvError> {
        let (ctx, now) = (self.ctx, self.now);
        match self.known.take() {
            // Found at open and still live (expired ones went then).
            Some(live) => {
                let found = (live, live);
                let shard = &mut *self.shard;
                shard.apply_found(ctx, self.hash, self.key, now, found, mutation)
            }
            None => self
                .shard
                .apply(ctx, self.hash, self.key, now, mutation)
                .map(|_| ()),
        }
    }
}

impl ChunkSource for LargeEdit<'_> {
    fn current(&self) -> Result<Option<Current>, KvError> {
        LargeEdit::current(self)
    }

    fn chunk(&self, number: u32) -> Result<Option<Vec<u8>>, KvError> {
        LargeEdit::chunk(self, number)
    }
}
