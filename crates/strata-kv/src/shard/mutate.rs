//! The read-decide-apply path of a write: [`ShardInner::update`] reads a
//! key and lets the caller decide a [`Mutation`], [`ShardInner::apply`]
//! applies one without reading the old value, and both end in the same
//! dispatch (an expired entry goes first, whatever the decision; a put
//! rewrites in place when it can, else appends through `put`).

use super::{is_expired, Removal, ShardInner};
use crate::chunk::Namespace;
use crate::context::Ctx;
use crate::fetch;
use crate::item::{ItemRef, KindCode, Mutation, NewItem, ValueKind};
use crate::journal::change;
use crate::KvError;

impl ShardInner {
    /// Reads `key`, lets `f` decide, and applies the decision. With
    /// `want_cas`, also returns the CAS of the item left afterwards.
    pub fn update<'v, R>(
        &mut self,
        ctx: &Ctx,
        hash: u64,
        key: &[u8],
        now: u64,
        want_cas: bool,
        f: impl FnOnce(Option<ItemRef<'_>>) -> (Mutation<'v>, R),
    ) -> Result<(R, Option<u64>), KvError> {
        let found = self.lookup_record_in(Namespace::User, hash, key);
        let slot = found.map(|(s, _)| s);
        let live = found.filter(|(_, rec)| !is_expired(rec.header.expires_at, now));
        let (mutation, result) = match live {
            Some((_, rec)) => self.with_record(ctx, &rec, |item| f(Some(item)))?,
            None => f(None),
        };
        let live = live.map(|(s, _)| s);
        self.apply_found(ctx, hash, key, now, (slot, live), mutation)?;
        let cas = match want_cas {
            true => self
                .live_slot(hash, key, now)
                .map(|s| self.record_at(s).header.cas),
            false => None,
        };
        Ok((result, cas))
    }

    /// Applies a put or a delete without reading the old value (`set`,
    /// `delete`: with the SSD tier, no device read). Returns whether a
    /// live item was there.
    pub fn apply(
        &mut self,
        ctx: &Ctx,
        hash: u64,
        key: &[u8],
        now: u64,
        mutation: Mutation<'_>,
    ) -> Result<bool, KvError> {
        let found = self.lookup_record_in(Namespace::User, hash, key);
        let slot = found.map(|(s, _)| s);
        let live = found
            .filter(|(_, rec)| !is_expired(rec.header.expires_at, now))
            .map(|(s, _)| s);
        self.apply_found(ctx, hash, key, now, (slot, live), mutation)?;
        Ok(live.is_some())
    }

    /// Applies `mutation` to `key`, whose entry is in `found.0` (live or
    /// expired) and live in `found.1`.
    pub(super) fn apply_found(
        &mut self,
        ctx: &Ctx,
        hash: u64,
        key: &[u8],
        now: u64,
        found: (Option<usize>, Option<usize>),
        mutation: Mutation<'_>,
    ) -> Result<(), KvError> {
        let (slot, live) = found;
        if !matches!(mutation, Mutation::Keep) {
            ctx.check_journal()?;
            fetch::note_mutation();
        }
        if let (Some(s), None) = (slot, live) {
            // Whatever the decision, an expired entry goes now.
            self.remove(ctx, s, Removal::Expired)?;
        }
        match mutation {
            Mutation::Keep => {}
            Mutation::Delete => {
                if let Some(s) = live {
                    self.remove(ctx, s, Removal::Deleted)?;
                }
            }
            Mutation::Put(new) => {
                self.put_new(ctx, hash, key, now, ValueKind::String.into(), new)?
            }
            Mutation::PutKind(kind, new) => self.put_new(ctx, hash, key, now, kind.into(), new)?,
            Mutation::PutString(form, new) => {
                self.put_new(ctx, hash, key, now, KindCode::string(form), new)?
            }
            Mutation::SetExpiry(expires_at) => {
                if let Some(s) = live {
                    if is_expired(expires_at, now) {
                        self.remove(ctx, s, Removal::Deleted)?;
                    } else {
                        self.rewrite(ctx, hash, key, s, expires_at, now)?;
                        // A touch, as memcached's `touch` and Redis's
                        // `EXPIRE` count it: the item was used now.
                        if let Some(s) = self.lookup(hash, key) {
                            if crate::untouched::touching() {
                                self.index.mark_accessed(s, ctx.access_secs(now));
                            }
                        }
                        if ctx.journaling() {
                            change::encode_expire(&mut self.journal_buf, key, expires_at);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Stores `new` (of `kind`) under `key` with a fresh CAS and logs it; an
    /// expiry already past deletes the key instead.
    pub(super) fn put_new(
        &mut self,
        ctx: &Ctx,
        hash: u64,
        key: &[u8],
        now: u64,
        kind: KindCode,
        new: NewItem<'_>,
    ) -> Result<(), KvError> {
        if is_expired(new.expires_at, now) {
            if let Some(s) = self.lookup(hash, key) {
                self.remove(ctx, s, Removal::Deleted)?;
            }
            return Ok(());
        }
        // A value as long as the one there rewrites it in place (in DRAM;
        // see `in_place.rs`): no garbage for the compactor.
        let in_dram = self.rewrites_in_place(ctx);
        if let Some(slot) = in_dram.then(|| self.lookup(hash, key)).flatten() {
            if self.put_in_place(
                ctx,
                slot,
                key,
                kind,
                new.flags,
                &new.value,
                new.expires_at,
                now,
            )? {
                return Ok(());
            }
        }
        let cas = ctx.next_cas();
        let flags = kind.flags(new.flags);
        let value = &new.value;
        self.put(ctx, hash, key, &[value], flags, new.expires_at, cas, now)?;
        if ctx.journaling() {
            let buf = &mut self.journal_buf;
            change::encode_put(buf, key, value, flags, cas, new.expires_at);
        }
        ctx.counters.total_items.add(1);
        Ok(())
    }
}
