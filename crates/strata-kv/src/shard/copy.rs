//! Copies of a record within the arena: with a new expiry (`touch`,
//! `EXPIRE`) or unchanged (compaction, CLOCK's second chance).

use super::ShardInner;
use crate::context::Ctx;
use crate::KvError;

impl ShardInner {
    /// Copies the record in `slot` to the open segment with a new expiry,
    /// keeping its CAS (memcached `touch` semantics) and its access word.
    pub fn rewrite(
        &mut self,
        ctx: &Ctx,
        hash: u64,
        key: &[u8],
        slot: usize,
        expires_at: Option<u64>,
        now: u64,
    ) -> Result<(), KvError> {
        // The reused buffer: touch and EXPIRE are hot paths.
        let mut value = std::mem::take(&mut self.scratch);
        value.clear();
        // The flags word as stored: a large head keeps its chunk count.
        let flags = self.record_at(slot).header.flags;
        let read = self.with_item(ctx, slot, |item| {
            value.extend_from_slice(item.value);
            (flags, item.cas)
        });
        let access = self.index.access_word(slot);
        let result = read.and_then(|(flags, cas)| {
            self.put(ctx, hash, key, &[&value], flags, expires_at, cas, now)
        });
        self.scratch = value;
        if result.is_ok() {
            if let Some(s) = self.lookup(hash, key) {
                self.index.set_access_word(s, access);
            }
        }
        result
    }

    /// Moves the live record in `slot` to the open segment unchanged (for
    /// compaction and CLOCK's second chance). Returns false if out of memory.
    pub fn relocate(&mut self, slot: usize) -> bool {
        let mut copy = std::mem::take(&mut self.scratch);
        let loc = self.index.loc(slot);
        let rec = self.arena.record(loc);
        let (len, expires_at) = (rec.len(), rec.header.expires_at);
        copy.clear();
        copy.extend_from_slice(&rec.bytes[..len]);
        let moved = self
            .arena
            .append(len, expires_at, |buf| buf.copy_from_slice(&copy));
        self.scratch = copy;
        match moved {
            Ok(new_loc) => {
                self.arena.release(loc, len);
                self.index.set_loc(slot, new_loc);
                true
            }
            Err(_) => false,
        }
    }
}
