//! Operations over several keys of a [`LockedShards`] set, each done
//! whole under the held locks: two keys read and written together
//! (`update_pair`), many set at once (`MSET`, `MSETNX`) and a key renamed.

use super::LockedShards;
use crate::arena::header_len;
use crate::item::{ItemRef, Mutation, NewItem, StringForm, ValueKind};
use crate::store::{PairDecision, Renamed};
use crate::KvError;

impl LockedShards<'_> {
    /// See [`Store::update_pair`](crate::Store::update_pair). Both values
    /// are copied before `f` runs, so the two reads never hold two records.
    pub fn update_pair<R>(
        &mut self,
        a: &[u8],
        b: &[u8],
        f: impl FnOnce(Option<ItemRef<'_>>, Option<ItemRef<'_>>) -> PairDecision<R>,
    ) -> Result<R, KvError> {
        let copy = |item: ItemRef<'_>| {
            (
                item.key.to_vec(),
                item.value.to_vec(),
                (item.kind, item.form),
                item.flags,
                item.cas,
                item.expires_at,
            )
        };
        let old_a = self.get(a, true, copy);
        let old_b = self.get(b, true, copy);
        type Copied = (
            Vec<u8>,
            Vec<u8>,
            (ValueKind, StringForm),
            u32,
            u64,
            Option<u64>,
        );
        fn view(c: &Copied) -> ItemRef<'_> {
            let (key, value, (kind, form), flags, cas, expires_at) = c;
            ItemRef {
                key,
                value,
                kind: *kind,
                flags: *flags,
                form: *form,
                cas: *cas,
                expires_at: *expires_at,
            }
        }
        let (ma, mb, result) = f(old_a.as_ref().map(view), old_b.as_ref().map(view));
        self.update(a, false, |_| (ma, ()))?;
        self.update(b, false, |_| (mb, ()))?;
        Ok(result)
    }

    pub fn set_many(
        &mut self,
        items: &[(&[u8], NewItem<'_>)],
        only_if_none_exist: bool,
    ) -> Result<bool, KvError> {
        let ks = self.ks;
        let ctx = &ks.ctx;
        let now = ctx.now();
        let limit = ctx.max_item_size();
        // Every shard held first: positions stay put while sizing.
        for (key, _) in items {
            self.position(ctx.hash(key));
        }
        // Check everything before changing anything.
        let mut need = vec![0usize; self.guards.len()];
        for (key, item) in items {
            let hash = ctx.hash(key);
            let len = header_len(
                key.len(),
                item.value.len(),
                u64::MAX,
                u64::from(item.flags),
                item.expires_at,
            ) + key.len()
                + item.value.len();
            if len > limit {
                return Err(KvError::TooLarge { size: len, limit });
            }
            let pos = self.position(hash);
            if only_if_none_exist && self.guards[pos].live_slot(hash, key, now).is_some() {
                return Ok(false);
            }
            need[pos] += len;
        }
        for (pos, bytes) in need.into_iter().enumerate() {
            if bytes > 0 {
                self.guards[pos].ensure_room(ctx, bytes, now)?;
            }
        }
        for (key, item) in items {
            self.update(key, false, |_| (Mutation::Put(item.clone()), ()))?;
        }
        Ok(true)
    }

    pub fn rename(
        &mut self,
        from: &[u8],
        to: &[u8],
        only_if_absent: bool,
    ) -> Result<Renamed, KvError> {
        let Some((value, (kind, form), flags, expires_at)) = self.get(from, false, |item| {
            let kind = (item.kind, item.form);
            (item.value.to_vec(), kind, item.flags, item.expires_at)
        }) else {
            return Ok(Renamed::NoSuchKey);
        };
        let to_hash = self.ks.ctx.hash(to);
        let to_pos = self.position(to_hash);
        let now = self.ks.ctx.now();
        if only_if_absent && self.guards[to_pos].live_slot(to_hash, to, now).is_some() {
            return Ok(Renamed::TargetExists);
        }
        if from == to {
            return Ok(Renamed::Done);
        }
        let from_hash = self.ks.ctx.hash(from);
        let shard = self.holding(from_hash);
        let chunks = shard
            .live_slot(from_hash, from, now)
            .and_then(|slot| shard.ring_at(slot));
        if let Some(chunks) = chunks {
            self.copy_large(from, to, kind, chunks, (&value, expires_at))?;
            self.delete(from)?;
            return Ok(Renamed::Done);
        }
        let item = NewItem {
            value: value.into(),
            flags,
            expires_at,
        };
        let put = Mutation::put_copy(kind, form, item);
        self.update(to, false, |_| (put, ()))?;
        self.delete(from)?;
        Ok(Renamed::Done)
    }
}
