//! [`LargeEdit`]: one command's view of a key that may hold a large
//! collection (see [`crate::chunk`]), with the key's shard write-locked for
//! the whole edit: every chunk and head it writes or drops reaches the
//! journal in the one record appended when the lock is released.

use super::large_read::{current_of, ChunkSource, Current};
use super::{Removal, ShardInner};
use crate::chunk::Ring;
use crate::context::Ctx;
use crate::fetch;
use crate::item::{Mutation, NewItem, ValueKind};
use crate::KvError;

/// Reads and writes of one key and its chunks under its shard's lock.
pub struct LargeEdit<'s> {
    shard: &'s mut ShardInner,
    ctx: &'s Ctx,
    key: &'s [u8],
    hash: u64,
    now: u64,
    /// Values not in DRAM are read while blocking (an edit is never re-run).
    _blocking: fetch::Blocking,
}

impl Drop for LargeEdit<'_> {
    fn drop(&mut self) {
        self.shard.pinned = None;
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
        if let Some(slot) = shard.lookup(hash, key) {
            if !shard.is_live(slot, now) {
                ctx.check_journal()?;
                shard.remove(ctx, slot, Removal::Expired)?;
            }
        }
        shard.pinned = Some(key.into());
        Ok(Self {
            shard,
            ctx,
            key,
            hash,
            now,
            _blocking: fetch::Blocking::enter(),
        })
    }

    /// The key being edited.
    pub fn key(&self) -> &[u8] {
        self.key
    }

    /// What the key holds now (`None`: nothing).
    pub fn current(&self) -> Result<Option<Current>, KvError> {
        current_of(self.shard, self.ctx, self.key, self.hash, self.now)
    }

    /// Chunk `number` of the collection at this key (`None`: absent).
    pub fn chunk(&self, number: u32) -> Result<Option<Vec<u8>>, KvError> {
        self.shard.read_chunk(self.ctx, self.key, number)
    }

    /// Writes chunk `number` of this key's collection of `kind`.
    pub fn put_chunk(&mut self, number: u32, kind: ValueKind, value: &[u8]) -> Result<(), KvError> {
        let (ctx, now) = (self.ctx, self.now);
        self.shard
            .write_chunk(ctx, self.key, number, kind, value, now)
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
        self.shard
            .write_head(ctx, self.key, kind, ring, meta, expires_at, now)
    }

    /// Stores `value` whole under the key as a value of `kind` (a packed
    /// collection or a string); chunks of a large one there are dropped.
    pub fn put_whole(
        &mut self,
        kind: ValueKind,
        value: &[u8],
        expires_at: Option<u64>,
    ) -> Result<(), KvError> {
        let item = NewItem {
            value: value.into(),
            flags: 0,
            expires_at,
        };
        self.apply(Mutation::PutKind(kind, item))
    }

    /// Removes the key (with its chunks); true if it held something.
    pub fn delete(&mut self) -> Result<bool, KvError> {
        let had = self
            .shard
            .live_slot(self.hash, self.key, self.now)
            .is_some();
        self.apply(Mutation::Delete)?;
        Ok(had)
    }

    fn apply(&mut self, mutation: Mutation<'_>) -> Result<(), KvError> {
        let (ctx, now) = (self.ctx, self.now);
        self.shard
            .apply(ctx, self.hash, self.key, now, mutation)
            .map(|_| ())
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
