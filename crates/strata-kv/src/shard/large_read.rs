//! [`LargeRead`]: one command's read-only view of a key that may hold a
//! large collection, with the key's shard read-locked (other readers run
//! meanwhile). [`ChunkSource`] is what a large collection's reader needs
//! from either view, this one or a [`LargeEdit`](crate::LargeEdit).

use super::footprint::Footprint;
use super::ShardInner;
use crate::chunk::{chunk_key, chunks_of, ring_of, Namespace, Ring};
use crate::context::Ctx;
use crate::fetch;
use crate::item::{split_stored_flags, ValueKind};
use crate::KvError;

/// What a key holds when a command opens it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Current {
    /// The value's kind.
    pub kind: ValueKind,
    /// `Some(n)` for the head of a large collection of `n` chunks (its
    /// value is then the collection's own metadata); `None` for a value
    /// held whole (a string, a packed collection).
    pub chunks: Option<u32>,
    /// The value (copied).
    pub value: Vec<u8>,
    /// The key's expiry.
    pub expires_at: Option<u64>,
}

/// The head and chunks of one key, read (a [`LargeRead`] or a
/// [`LargeEdit`](crate::LargeEdit)).
pub trait ChunkSource {
    /// What the key holds now (`None`: nothing live).
    fn current(&self) -> Result<Option<Current>, KvError>;
    /// Chunk `number` of the collection at the key (`None`: absent).
    fn chunk(&self, number: u32) -> Result<Option<Vec<u8>>, KvError>;
}

/// Reads of one key and its chunks under its shard's read lock. An
/// expired item reads as nothing (it is reclaimed by a later write).
pub struct LargeRead<'s> {
    shard: &'s ShardInner,
    ctx: &'s Ctx,
    key: &'s [u8],
    hash: u64,
    now: u64,
    /// Values not in DRAM are read while blocking (a read is never re-run).
    _blocking: fetch::Blocking,
}

impl<'s> LargeRead<'s> {
    pub(crate) fn open(
        shard: &'s ShardInner,
        ctx: &'s Ctx,
        key: &'s [u8],
        hash: u64,
        now: u64,
    ) -> Self {
        Self {
            shard,
            ctx,
            key,
            hash,
            now,
            _blocking: fetch::Blocking::enter(),
        }
    }
}

impl LargeRead<'_> {
    /// What the key costs in its shard (its records and their index
    /// slots, as `used_memory` counts them); `None` when nothing is live
    /// there. No value is read or decoded: the cost is one lookup per
    /// record, whatever the values hold. A chunk the head counts but that
    /// is missing (a loss `chunk_census` reports) costs nothing.
    pub fn footprint(&self) -> Option<Footprint> {
        let shard = self.shard;
        let (_, head) = shard.live_record(self.hash, self.key, self.now)?;
        let mut footprint = Footprint::default();
        footprint.add(head.len());
        for number in ring_of(head.header.flags)
            .into_iter()
            .flat_map(Ring::numbers)
        {
            let chunk = chunk_key(self.key, number);
            let hash = self.ctx.hash_in(Namespace::Chunk, &chunk);
            if let Some((_, rec)) = shard.lookup_record_in(Namespace::Chunk, hash, &chunk) {
                footprint.add(rec.len());
            }
        }
        Some(footprint)
    }
}

/// What `key` (user hash `hash`) holds in `shard` at `now`.
pub(super) fn current_of(
    shard: &ShardInner,
    ctx: &Ctx,
    key: &[u8],
    hash: u64,
    now: u64,
) -> Result<Option<Current>, KvError> {
    match shard.live_slot(hash, key, now) {
        Some(slot) => current_at(shard, ctx, slot),
        None => Ok(None),
    }
}

/// What the live item in `slot` holds.
pub(super) fn current_at(
    shard: &ShardInner,
    ctx: &Ctx,
    slot: usize,
) -> Result<Option<Current>, KvError> {
    let rec = shard.record_at(slot);
    let stored = rec.header.flags;
    let (_, kind) = split_stored_flags(stored).unwrap_or_default();
    shard.with_record(ctx, &rec, |item| {
        Some(Current {
            kind,
            chunks: chunks_of(stored),
            value: item.value.to_vec(),
            expires_at: item.expires_at,
        })
    })
}

impl ChunkSource for LargeRead<'_> {
    fn current(&self) -> Result<Option<Current>, KvError> {
        current_of(self.shard, self.ctx, self.key, self.hash, self.now)
    }

    fn chunk(&self, number: u32) -> Result<Option<Vec<u8>>, KvError> {
        self.shard.read_chunk(self.ctx, self.key, number)
    }
}
