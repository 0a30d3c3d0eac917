//! Rewriting a record in place: a value replaced by one of the same length
//! (a `SET` or memcached `set` of a value as long, an `HSET` of a field to
//! a value as long, a `ZADD` that changes a score, a large list's head and
//! its padded end chunk on a push or pop) overwrites its record instead of
//! appending a new one, so the change leaves no garbage for the compactor
//! and probes nothing again.
//!
//! Only in DRAM with values held there: a persistent record was published
//! when it was appended (rewriting it would not be failure-atomic), and
//! with the SSD tier DRAM holds only a stub. The journal record is the one
//! an append would log (the item's new state), so replay cannot tell the
//! two apart.
//!
//! [`edit_in_place`](ShardInner::edit_in_place) goes further: the caller
//! edits the value's bytes where they lie, so a push or pop on a value
//! stored with room (a large list's padded end chunk) copies the element
//! and moves the bytes after it, not the whole value twice, and an `HSET`
//! of a packed hash's field to a value as long copies only that value.

use super::ShardInner;
use crate::arena::{encode, encode_header, header_len, Header};
use crate::chunk::Namespace;
use crate::context::Ctx;
use crate::fetch;
use crate::item::KindCode;
use crate::journal::change;
use crate::KvError;

impl ShardInner {
    /// Whether records here can be rewritten in place: values in DRAM
    /// (not persistent, not behind the SSD tier's stubs).
    pub(crate) fn rewrites_in_place(&self, ctx: &Ctx) -> bool {
        ctx.ssd.is_none() && !self.arena.is_persistent()
    }

    /// Replaces the value of the live user item in `slot` (whose key is
    /// `key`) with `value` of `kind` and memcached `client_flags`, expiring
    /// at `expires_at`, in place when the record allows it (see
    /// [`rewrite_in_place`](Self::rewrite_in_place)), logged. Returns
    /// false, having changed nothing but possibly used a CAS number, when
    /// it does not; the caller then writes a new record.
    ///
    /// The caller guarantees `slot` holds `key`'s live entry now (found
    /// under this lock, with no write since).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn put_in_place(
        &mut self,
        ctx: &Ctx,
        slot: usize,
        key: &[u8],
        kind: KindCode,
        client_flags: u32,
        value: &[u8],
        expires_at: Option<u64>,
        now: u64,
    ) -> Result<bool, KvError> {
        let flags = kind.flags(client_flags);
        let Some(cas) = self.rewrite_in_place(ctx, slot, key, &[value], flags, expires_at, now)?
        else {
            return Ok(false);
        };
        if ctx.journaling() {
            let buf = &mut self.journal_buf;
            change::encode_put(buf, key, value, flags, cas, expires_at);
        }
        ctx.counters.total_items.add(1);
        Ok(true)
    }

    /// Overwrites the record of the live entry in `slot` (any namespace;
    /// its key is `key`) with `value_parts` under stored `flags`, when the
    /// record allows it: values in DRAM, same flags (so a large head's
    /// ring is unchanged), same expiry (not past), same value length and
    /// same header length with the new CAS. Returns the CAS written, or
    /// `None` (nothing changed but possibly a CAS number used). Logs
    /// nothing: the caller logs the change as an append would.
    ///
    /// The caller guarantees `slot` holds `key`'s live entry now.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn rewrite_in_place(
        &mut self,
        ctx: &Ctx,
        slot: usize,
        key: &[u8],
        value_parts: &[&[u8]],
        flags: u64,
        expires_at: Option<u64>,
        now: u64,
    ) -> Result<Option<u64>, KvError> {
        if !self.rewrites_in_place(ctx) {
            return Ok(None);
        }
        let value_len: usize = value_parts.iter().map(|p| p.len()).sum();
        let loc = self.index.loc(slot);
        let rec = self.arena.record(loc);
        debug_assert_eq!(rec.key(), key);
        let same_shape = rec.header.flags == flags
            && rec.header.expires_at == expires_at
            && rec.header.value_len == value_len
            && expires_at.is_none_or(|at| at > now);
        if !same_shape {
            return Ok(None);
        }
        let cas = ctx.next_cas();
        if header_len(key.len(), value_len, cas, flags, expires_at) != rec.header.header_len {
            return Ok(None);
        }
        ctx.check_journal()?;
        fetch::note_mutation();
        let len = rec.len();
        self.arena.rewrite(loc, len, |buf| {
            encode(buf, key, value_parts, cas, flags, expires_at);
        })?;
        // What `link` does for a record written anew over the old one.
        self.index.reset_access(slot, ctx.access_secs(now));
        if Namespace::of(flags) == Namespace::User {
            self.watches.touch(key);
            ctx.changes.changed(key);
        }
        Ok(Some(cas))
    }

    /// Lets `edit` change the value of the live entry in `slot` (any
    /// namespace; its key is `key`) where it lies, when values are in DRAM
    /// and the header with a new CAS is as long. `edit` gets the stored
    /// value (padding included) and returns the length of the content it
    /// leaves in front (the rest must be zeros, the padding readers drop)
    /// with its own result, or `None` having changed nothing. The change
    /// is logged as a put of that content. `Ok(None)`: nothing changed.
    ///
    /// The caller guarantees `slot` holds `key`'s live entry now, whose
    /// record's header is `header`.
    pub(crate) fn edit_in_place<R>(
        &mut self,
        ctx: &Ctx,
        (slot, header): (usize, Header),
        key: &[u8],
        now: u64,
        edit: impl FnOnce(&mut [u8]) -> Option<(usize, R)>,
    ) -> Result<Option<R>, KvError> {
        if !self.rewrites_in_place(ctx) {
            return Ok(None);
        }
        let loc = self.index.loc(slot);
        debug_assert_eq!(self.arena.record(loc).header, header);
        debug_assert_eq!(self.arena.record(loc).key(), key);
        let (flags, expires_at) = (header.flags, header.expires_at);
        if expires_at.is_some_and(|at| at <= now) {
            return Ok(None);
        }
        let cas = ctx.next_cas();
        if header_len(key.len(), header.value_len, cas, flags, expires_at) != header.header_len {
            return Ok(None);
        }
        ctx.check_journal()?;
        let mut done = None;
        self.arena.rewrite(loc, header.record_len(), |buf| {
            let value = &mut buf[header.header_len + header.key_len..];
            done = edit(value);
            if done.is_some() {
                encode_header(buf, key.len(), header.value_len, cas, flags, expires_at);
            }
        })?;
        let Some((content_len, result)) = done else {
            return Ok(None);
        };
        debug_assert!(content_len <= header.value_len);
        let content_len = content_len.min(header.value_len);
        fetch::note_mutation();
        self.index.reset_access(slot, ctx.access_secs(now));
        if Namespace::of(flags) == Namespace::User {
            self.watches.touch(key);
            ctx.changes.changed(key);
        }
        if ctx.journaling() {
            let value = &self.arena.record(loc).value()[..content_len];
            change::encode_put(&mut self.journal_buf, key, value, flags, cas, expires_at);
        }
        Ok(Some(result))
    }
}
