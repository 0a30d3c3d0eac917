//! Rewriting an item's record in place: a value replaced by one of the same
//! length (a `SET` or memcached `set` of a value as long, an `HSET` of a
//! field to a value as long, a `ZADD` that changes a score) overwrites its
//! record instead of appending a new one, so the change leaves no garbage
//! for the compactor and probes nothing again.
//!
//! Only in DRAM with values held there: a persistent record was published
//! when it was appended (rewriting it would not be failure-atomic), and
//! with the SSD tier DRAM holds only a stub. The journal record is the one
//! an append would log (the item's new state), so replay cannot tell the
//! two apart.

use super::ShardInner;
use crate::arena::{encode, header_len};
use crate::context::Ctx;
use crate::fetch;
use crate::item::{stored_flags, ValueKind};
use crate::journal::change;
use crate::KvError;

impl ShardInner {
    /// Replaces the value of the live user item in `slot` (whose key is
    /// `key`) with `value` of `kind` and memcached `client_flags`, expiring
    /// at `expires_at`, in place when the record allows it: values in DRAM,
    /// same kind and client flags, same expiry (not past), same value
    /// length and same header length with the new CAS. Returns false,
    /// having changed nothing but possibly used a CAS number, when it does
    /// not; the caller then writes a new record.
    ///
    /// The caller guarantees `slot` holds `key`'s live entry now (found
    /// under this lock, with no write since).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn put_in_place(
        &mut self,
        ctx: &Ctx,
        slot: usize,
        key: &[u8],
        kind: ValueKind,
        client_flags: u32,
        value: &[u8],
        expires_at: Option<u64>,
        now: u64,
    ) -> Result<bool, KvError> {
        if ctx.ssd.is_some() || self.arena.is_persistent() {
            return Ok(false);
        }
        let flags = stored_flags(client_flags, kind);
        let loc = self.index.loc(slot);
        let rec = self.arena.record(loc);
        debug_assert_eq!(rec.key(), key);
        let same_shape = rec.header.flags == flags
            && rec.header.expires_at == expires_at
            && rec.header.value_len == value.len()
            && expires_at.is_none_or(|at| at > now);
        if !same_shape {
            return Ok(false);
        }
        let cas = ctx.next_cas();
        if header_len(key.len(), value.len(), cas, flags, expires_at) != rec.header.header_len {
            return Ok(false);
        }
        ctx.check_journal()?;
        fetch::note_mutation();
        self.arena.rewrite(loc, |buf| {
            encode(buf, key, &[value], cas, flags, expires_at);
        })?;
        // What `link` does for a record written anew over the old one.
        self.index.reset_access(slot, ctx.access_secs(now));
        self.watches.touch(key);
        if ctx.journaling() {
            let buf = &mut self.journal_buf;
            change::encode_put(buf, key, value, flags, cas, expires_at);
        }
        ctx.counters.total_items.add(1);
        Ok(true)
    }
}
