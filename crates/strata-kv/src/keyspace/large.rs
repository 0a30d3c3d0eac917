//! Large collections (see [`crate::chunk`]) in multi-key operations:
//! `RENAME` moves a head and every chunk to the new key's shard, `COPY`
//! copies them.

use super::locked::LockedShards;
use crate::chunk::Ring;
use crate::item::{Mutation, NewItem, ValueKind};
use crate::KvError;

impl LockedShards<'_> {
    /// See [`Store::copy`](crate::Store::copy).
    pub fn copy(&mut self, from: &[u8], to: &[u8], replace: bool) -> Result<bool, KvError> {
        let Some((value, (kind, form), flags, expires_at)) = self.get(from, true, |item| {
            let kind = (item.kind, item.form);
            (item.value.to_vec(), kind, item.flags, item.expires_at)
        }) else {
            return Ok(false);
        };
        let ctx = &self.keyspace().ctx;
        let (now, from_hash, to_hash) = (ctx.now(), ctx.hash(from), ctx.hash(to));
        if !replace && self.holding(to_hash).live_slot(to_hash, to, now).is_some() {
            return Ok(false);
        }
        let shard = self.holding(from_hash);
        let chunks = shard
            .live_slot(from_hash, from, now)
            .and_then(|slot| shard.ring_at(slot));
        match chunks {
            Some(chunks) => self.copy_large(from, to, kind, chunks, (&value, expires_at))?,
            None => {
                let item = NewItem {
                    value: value.into(),
                    flags,
                    expires_at,
                };
                let put = Mutation::put_copy(kind, form, item);
                self.update(to, false, |_| (put, ()))?;
            }
        }
        Ok(true)
    }

    /// Writes the large collection at `from` (of `kind`, chunks `ring`,
    /// its head's value and expiry in `head`) under `to`: each chunk, then
    /// the head, replacing whatever `to` held. Copies every chunk: O(n).
    pub(super) fn copy_large(
        &mut self,
        from: &[u8],
        to: &[u8],
        kind: ValueKind,
        ring: Ring,
        head: (&[u8], Option<u64>),
    ) -> Result<(), KvError> {
        let ctx = &self.keyspace().ctx;
        let (now, from_hash, to_hash) = (ctx.now(), ctx.hash(from), ctx.hash(to));
        for number in ring.numbers() {
            let value = self.holding(from_hash).read_chunk(ctx, from, number)?;
            // A missing chunk (never expected) is written empty.
            let value = value.unwrap_or_default();
            self.shard(to_hash)
                .write_chunk(ctx, to, number, kind, &value, None, now)?;
        }
        let (meta, expires_at) = head;
        self.shard(to_hash)
            .write_head(ctx, to, kind, ring, meta, expires_at, now, None)?;
        Ok(())
    }
}
