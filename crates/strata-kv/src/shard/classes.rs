//! What the size-class statistics see of an item ([`ItemInfo`], read from
//! the index and the DRAM record or stub, never from the SSD), and the
//! per-class removal counters kept as items are evicted or reclaimed.

use super::item_info::ItemInfo;
use super::{Removal, ShardInner};
use crate::arena::{header_len, Record};
use crate::context::Ctx;
use crate::tier::ValueRef;

/// The (record size, value length) of the item `rec` stands for: the
/// record itself, or with the SSD tier the record on the device its stub
/// names (whose value length follows from the record's size).
fn sizes(ctx: &Ctx, rec: &Record<'_>) -> (usize, usize) {
    if ctx.ssd.is_none() {
        return (rec.len(), rec.header.value_len);
    }
    let size = ValueRef::decode(rec.value()).len as usize;
    let h = &rec.header;
    // size = header_len(key, value) + key + value, where only the value's
    // own length varint is unknown: try each width.
    let value_len = (1..=10)
        .filter_map(|width| {
            let fixed = header_len(h.key_len, 0, h.cas, h.flags, h.expires_at) - 1 + width;
            let v = size.checked_sub(fixed + h.key_len)?;
            (header_len(h.key_len, v, h.cas, h.flags, h.expires_at) + h.key_len + v == size)
                .then_some(v)
        })
        .next()
        .unwrap_or(0);
    (size, value_len)
}

impl ShardInner {
    /// The item in `slot` as of `now` (ms).
    pub(crate) fn item_info(&self, ctx: &Ctx, slot: usize, now: u64) -> ItemInfo<'_> {
        let rec = self.record_at(slot);
        let (size, value_len) = sizes(ctx, &rec);
        ItemInfo {
            key: rec.key(),
            value_len,
            size,
            expires_at: rec.header.expires_at,
            access: self.index.access(slot, ctx.access_secs(now)),
        }
    }

    /// Counts the removal of the item in `slot` in its class.
    pub(super) fn count_removal(&self, ctx: &Ctx, slot: usize, why: Removal) {
        if why == Removal::Deleted {
            return;
        }
        let info = self.item_info(ctx, slot, ctx.now());
        let (fetched, idle) = (info.access.fetched, info.access.idle_secs);
        match why {
            Removal::Evicted => ctx.counters.by_class.evicted(info.size, fetched, idle),
            _ => ctx.counters.by_class.expired(info.size, fetched),
        }
    }
}
