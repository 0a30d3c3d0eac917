//! The SSD tier's defragmenter: how it empties one block whose live data
//! fell below the threshold, so the store can free it (when and by whom
//! is `reclaim.rs`).
//!
//! For each entry of a candidate block, under its key's shard lock:
//! - a record the key's stub still names is appended again and the stub
//!   repointed; any other record is dead already;
//! - a live tombstone is released when its key has a stub again (a later
//!   record supersedes it) or its block is the oldest on the device (every
//!   older version of the key is in that block, going with it); otherwise
//!   it is appended again;
//! - the flush marker is never moved: a rebuild forgets every entry before
//!   it, so appended again it would also forget what was written since
//!   the flush. Its block is left alone until it is the oldest on the
//!   device (every block before it holds only entries the flush released,
//!   and frees itself); then the marker is dropped with the block.
//!
//! Visiting a block twice is harmless: a moved or released entry is no
//! longer live, so it is skipped.
//!
//! With a persistent index (`index = pmem`) a repointed stub is durable at
//! once, so it may only name a copy that is durable too: every live record
//! of the block is appended again first, the tier is synced, and only then
//! are the stubs that still name the originals repointed (two phases;
//! a copy whose key changed meanwhile is released). Otherwise a
//! crash before the next sync would lose keys no one wrote. A record
//! kept as a stub's fallback (`fallbacks.rs`) is left where it is: the
//! next flush releases it, and the block then frees itself.

use strata_ssd::{BlockLoc, Entry, IndexHome};

use super::reclaim::SsdPass;

use crate::arena::decode;
use crate::chunk::{record_hash, Namespace};
use crate::keyspace::Keyspace;
use crate::tier::ssd::{
    tombstone_kind, KIND_CHUNK_TOMBSTONE, KIND_FLUSH, KIND_PUT, KIND_TOMBSTONE,
};
use crate::tier::{SsdTier, ValueRef};

impl Keyspace {
    /// Moves every live entry out of `block` and frees it; `Ok(false)` if
    /// it holds kept fallbacks still (it frees itself once they go).
    pub(super) fn defrag_block(
        &self,
        ssd: &SsdTier,
        block: u32,
        pass: &mut SsdPass,
    ) -> Result<bool, String> {
        if ssd.index_home() == IndexHome::Persistent {
            return self.defrag_block_durably(ssd, block, pass);
        }
        let store = ssd.store();
        let oldest = store.oldest_seq().is_some() && store.oldest_seq() == store.block_seq(block);
        // The marker only ever lands in the open block, so a sealed block
        // that does not hold it now never will.
        if !oldest && ssd.holds_flush_marker(block) {
            return Ok(false);
        }
        let entries = store.entries(block).map_err(|e| e.to_string())?;
        for entry in &entries {
            match entry.kind {
                KIND_PUT => self.move_record(ssd, entry, pass)?,
                KIND_TOMBSTONE => self.move_tombstone(ssd, entry, Namespace::User, oldest, pass)?,
                KIND_CHUNK_TOMBSTONE => {
                    self.move_tombstone(ssd, entry, Namespace::Chunk, oldest, pass)?
                }
                KIND_FLUSH => ssd.drop_oldest_marker(entry.loc),
                other => tracing::warn!(kind = other, loc = %entry.loc, "unknown SSD entry kind"),
            }
        }
        store.free_block(block, false).map_err(|e| e.to_string())?;
        Ok(true)
    }

    fn move_record(&self, ssd: &SsdTier, entry: &Entry, pass: &mut SsdPass) -> Result<(), String> {
        let Some(header) = decode(&entry.payload) else {
            return Ok(());
        };
        let key = &entry.payload[header.header_len..header.header_len + header.key_len];
        let hash = record_hash(self.ctx.seed(), key, header.flags);
        let mut shard = self.shard(hash).write();
        let Some(slot) = shard.lookup_in(Namespace::of(header.flags), hash, key) else {
            return Ok(());
        };
        if ValueRef::decode(shard.record_at(slot).value()).loc != entry.loc {
            return Ok(());
        }
        let moved = ssd
            .store()
            .append_relocated(KIND_PUT, &entry.payload)
            .map_err(|e| e.to_string())?;
        let len = entry.payload.len();
        let vref = ValueRef {
            loc: moved,
            len: len as u32,
        };
        if let Err(e) = shard.repoint(slot, vref) {
            ssd.release(moved, len);
            return Err(format!("repointing a stub: {e}"));
        }
        // A cached record stays cached at its new place.
        ssd.store().moved(hash, entry.loc, moved);
        ssd.release_value(entry.loc, len, hash);
        pass.moved += 1;
        Ok(())
    }

    /// [`defrag_block`](Self::defrag_block) with a persistent index (see
    /// the module documentation): copy, sync, then repoint.
    fn defrag_block_durably(
        &self,
        ssd: &SsdTier,
        block: u32,
        pass: &mut SsdPass,
    ) -> Result<bool, String> {
        let store = ssd.store();
        let entries = store.entries(block).map_err(|e| e.to_string())?;
        let mut copies = Vec::new();
        for entry in entries {
            if entry.kind != KIND_PUT {
                tracing::warn!(kind = entry.kind, loc = %entry.loc, "unexpected SSD entry kind");
                continue;
            }
            let Some(header) = decode(&entry.payload) else {
                continue;
            };
            let key = &entry.payload[header.header_len..header.header_len + header.key_len];
            let hash = record_hash(self.ctx.seed(), key, header.flags);
            let ns = Namespace::of(header.flags);
            let shard = self.shard(hash).read();
            let live = shard.lookup_in(ns, hash, key).is_some_and(|slot| {
                ValueRef::decode(shard.record_at(slot).value()).loc == entry.loc
            });
            drop(shard);
            if !live {
                continue;
            }
            let copy = store
                .append_relocated(KIND_PUT, &entry.payload)
                .map_err(|e| e.to_string())?;
            copies.push((
                hash,
                ns,
                header.header_len..header.header_len + header.key_len,
                entry,
                copy,
            ));
        }
        ssd.flush().map_err(|e| e.to_string())?;
        for (hash, ns, key_at, entry, copy) in copies {
            let key = &entry.payload[key_at];
            let len = entry.payload.len();
            let mut shard = self.shard(hash).write();
            let slot = shard
                .lookup_in(ns, hash, key)
                .filter(|&slot| ValueRef::decode(shard.record_at(slot).value()).loc == entry.loc);
            let Some(slot) = slot else {
                // Rewritten or removed since the copy: the copy is garbage.
                ssd.release(copy, len);
                continue;
            };
            let vref = ValueRef {
                loc: copy,
                len: len as u32,
            };
            if let Err(e) = shard.repoint(slot, vref) {
                ssd.release(copy, len);
                return Err(format!("repointing a stub: {e}"));
            }
            store.moved(hash, entry.loc, copy);
            ssd.release_value(entry.loc, len, hash);
            pass.moved += 1;
        }
        // A record kept as a fallback (no stub names it) stays until the
        // next flush releases it: the block frees itself then.
        match store.free_block(block, false) {
            Ok(()) => Ok(true),
            Err(strata_ssd::SsdError::StillLive { .. }) => Ok(false),
            Err(e) => Err(e.to_string()),
        }
    }

    fn move_tombstone(
        &self,
        ssd: &SsdTier,
        entry: &Entry,
        ns: Namespace,
        oldest: bool,
        pass: &mut SsdPass,
    ) -> Result<(), String> {
        let key = &entry.payload[..];
        let hash = self.ctx.hash_in(ns, key);
        let shard = self.shard(hash).write();
        if !ssd.tombstone_live(entry.loc) {
            return Ok(());
        }
        if oldest || shard.lookup_in(ns, hash, key).is_some() {
            ssd.drop_tombstone(entry.loc, key.len());
            return Ok(());
        }
        let moved: BlockLoc = ssd
            .store()
            .append_relocated(tombstone_kind(ns), key)
            .map_err(|e| e.to_string())?;
        ssd.moved_tombstone(entry.loc, moved, key.len());
        pass.moved += 1;
        Ok(())
    }
}
