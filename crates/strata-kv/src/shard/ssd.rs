//! A shard over the SSD tier (`data = ssd`): its arena holds stubs (the
//! record's header and key, with a [`ValueRef`] as value) and the records
//! themselves are SSD entries. What changes is reading a value, writing a
//! record, and what removing or clearing leaves on the device.
//!
//! Invariant (on top of the shard's): every stub's [`ValueRef`] names a
//! live SSD entry holding that key's record with the stub's CAS; with a
//! persistent index, a stub's fallback (its `Prior`) names a live entry
//! too until its own record is durable (`tier/fallbacks.rs`). A removal
//! appends a tombstone entry, which the shard does not track: it stays
//! live on the SSD until the defragmenter finds it unneeded (`open/defrag.rs`).

use bytes::Bytes;

use super::ShardInner;
use crate::arena::{decode, encode, header_len, stub_len, Loc, Record};
use crate::chunk::Namespace;
use crate::context::Ctx;
use crate::fetch::{self, Resolved};
use crate::index::Entry;
use crate::item::{split_stored_flags, string_form, ItemRef};
use crate::tier::{Prior, SsdTier, StubValue, ValueRef, PERSISTENT_STUB_VALUE_LEN, VALUE_REF_LEN};
use crate::KvError;

/// Where the value of `payload` (a whole record) is, if the record is
/// `key`'s with CAS `cas`.
fn value_of(payload: &[u8], key: &[u8], cas: u64) -> Option<std::ops::Range<usize>> {
    let header = decode(payload)?;
    let key_at = header.header_len;
    let value_at = key_at + header.key_len;
    let end = value_at + header.value_len;
    (end <= payload.len() && header.cas == cas && &payload[key_at..value_at] == key)
        .then_some(value_at..end)
}

impl ShardInner {
    /// Calls `f` with the item in `slot`, its value read from wherever it
    /// is. With the SSD tier, a value not in DRAM is either deferred
    /// (`KvError::NotResident`, see [`fetch`]) or read while blocking.
    pub fn with_item<R>(
        &self,
        ctx: &Ctx,
        slot: usize,
        f: impl FnOnce(ItemRef<'_>) -> R,
    ) -> Result<R, KvError> {
        self.with_record(ctx, &self.record_at(slot), f)
    }

    /// [`with_item`](Self::with_item) for the live record `rec`, already
    /// found in this shard.
    pub fn with_record<R>(
        &self,
        ctx: &Ctx,
        rec: &Record<'_>,
        f: impl FnOnce(ItemRef<'_>) -> R,
    ) -> Result<R, KvError> {
        let Some(ssd) = &ctx.ssd else {
            return Ok(f(super::item_ref(rec)));
        };
        let payload = resolve_record(ssd, rec, ctx.record_hash(rec))?;
        let value = value_of(&payload, rec.key(), rec.header.cas).ok_or_else(|| {
            let cause = format!(
                "the SSD entry at {} does not hold the record its index names",
                ValueRef::decode(rec.value()).loc
            );
            fetch::failed(cause.clone());
            KvError::Storage { cause }
        })?;
        let (flags, kind) = split_stored_flags(rec.header.flags).unwrap_or_default();
        Ok(f(ItemRef {
            key: rec.key(),
            value: &payload[value],
            kind,
            flags,
            form: string_form(rec.header.flags),
            cas: rec.header.cas,
            expires_at: rec.header.expires_at,
        }))
    }

    /// Writes `key`'s record to the SSD and a stub for it in the arena;
    /// returns the stub's location, not yet linked. The arena has room
    /// (the caller made it). On failure nothing remains of either. With a
    /// persistent index the stub's prior is chosen against the key's
    /// current stub (`tier/fallbacks.rs`), which [`link`](Self::link)
    /// then replaces.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn append_ssd(
        &mut self,
        ssd: &SsdTier,
        hash: u64,
        key: &[u8],
        value_parts: &[&[u8]],
        value_len: usize,
        flags: u64,
        expires_at: Option<u64>,
        cas: u64,
    ) -> Result<Loc, KvError> {
        let stub_value_len = ssd.stub_value_len();
        let stub_len = stub_len(key.len(), stub_value_len, cas, flags, expires_at);
        // The stub first (with a blank reference): if the arena refuses,
        // nothing was written to the SSD that a rebuild could bring back.
        let blank = [0u8; PERSISTENT_STUB_VALUE_LEN];
        let stub = self.arena.append(stub_len, expires_at, |buf| {
            encode(
                buf,
                key,
                &[&blank[..stub_value_len]],
                cas,
                flags,
                expires_at,
            )
        })?;
        let len = header_len(key.len(), value_len, cas, flags, expires_at) + key.len() + value_len;
        let mut record = std::mem::take(&mut self.scratch);
        record.clear();
        record.resize(len, 0);
        encode(&mut record, key, value_parts, cas, flags, expires_at);
        let appended = ssd.append_put(&record, hash);
        self.scratch = record;
        let old = self
            .lookup_in(Namespace::of(flags), hash, key)
            .map(|slot| StubValue::decode(self.record_at(slot).value()));
        let patched = appended.and_then(|loc| {
            let current = ValueRef {
                loc,
                len: len as u32,
            };
            let prior = ssd.prior_for(old, loc, hash);
            let mut value = [0u8; PERSISTENT_STUB_VALUE_LEN];
            StubValue { current, prior }.encode_into(&mut value[..stub_value_len]);
            self.arena
                .patch_value(stub, &value[..stub_value_len])
                .inspect_err(|_| {
                    ssd.unkeep(&prior, old);
                    ssd.release_value(loc, len, hash);
                })
        });
        if let Err(e) = patched {
            self.arena.release(stub, stub_len);
            return Err(e);
        }
        Ok(stub)
    }

    /// Whether the record of `old_stub`, just superseded by `new_stub`,
    /// must be released now: not when the new stub keeps it as its
    /// fallback (`tier/fallbacks.rs` releases it later).
    pub(super) fn superseded_is_released(old_stub: &Record<'_>, new_stub: &Record<'_>) -> bool {
        let old = ValueRef::decode(old_stub.value());
        !matches!(
            StubValue::decode(new_stub.value()).prior,
            Prior::Fallback { record, .. } if record == old
        )
    }

    /// Releases the SSD entry of the stub `rec` of the key hashing to
    /// `hash` (it was superseded or removed).
    pub(super) fn release_value(ssd: &SsdTier, rec: &Record<'_>, hash: u64) {
        let vref = ValueRef::decode(rec.value());
        ssd.release_value(vref.loc, vref.len as usize, hash);
    }

    /// Releases the SSD entry of every stub (a flush: the keyspace's flush
    /// marker shadows them on the device, and the tombstones before it).
    pub(super) fn release_all_ssd(&mut self, ctx: &Ctx, ssd: &SsdTier) {
        let cap = self.index.capacity();
        for (_, loc) in self.index.items_in(0, cap) {
            let rec = self.arena.record(loc);
            Self::release_value(ssd, &rec, ctx.record_hash(&rec));
        }
    }

    /// Points the stub in `slot` at `moved`, the relocated copy of its
    /// record (the defragmenter); the caller releases the original. A stub
    /// in DRAM is patched in place. A stub in persistent memory is
    /// published, and 12 bytes cannot be replaced failure-atomically: a
    /// patched copy is appended and the index entry switched to it (one
    /// 8-byte store), so a crash leaves the old stub or the new one.
    pub(crate) fn repoint(&mut self, slot: usize, moved: ValueRef) -> Result<(), KvError> {
        let loc = self.index.loc(slot);
        if !self.arena.is_persistent() {
            return self.arena.patch_value(loc, &moved.encode());
        }
        let rec = self.arena.record(loc);
        let (len, expires_at) = (rec.len(), rec.header.expires_at);
        let value_at = rec.header.header_len + rec.header.key_len;
        let value_len = rec.header.value_len;
        let mut copy = std::mem::take(&mut self.scratch);
        copy.clear();
        copy.extend_from_slice(&rec.bytes[..len]);
        // The copy is durable: a restart never needs a prior for it.
        let value = StubValue {
            current: moved,
            prior: Prior::None,
        };
        value.encode_into(&mut copy[value_at..value_at + value_len]);
        let appended = self
            .arena
            .append(len, expires_at, |buf| buf.copy_from_slice(&copy));
        self.scratch = copy;
        let new_loc = appended?;
        self.index.set_loc(slot, new_loc);
        self.arena.release(loc, len);
        Ok(())
    }
}

/// A record as a rebuild found it on the SSD.
pub(crate) struct FoundRecord<'a> {
    pub key: &'a [u8],
    pub cas: u64,
    pub flags: u64,
    pub expires_at: Option<u64>,
    pub vref: ValueRef,
}

impl ShardInner {
    /// Points `key` at the record `found` (a rebuild: the newest entry of a
    /// key wins; nothing is released, since nothing is live on the SSD
    /// until the rebuild marks it). Returns the record the key's stub named
    /// before, if any: superseded.
    pub(crate) fn restore_stub(
        &mut self,
        hash: u64,
        hasher: &dyn Fn(&[u8], u64) -> u64,
        found: &FoundRecord<'_>,
    ) -> Result<Option<ValueRef>, KvError> {
        let FoundRecord {
            key,
            cas,
            flags,
            expires_at,
            vref,
        } = *found;
        let len = stub_len(key.len(), VALUE_REF_LEN, cas, flags, expires_at);
        let loc = self.arena.append(len, expires_at, |buf| {
            encode(buf, key, &[&vref.encode()], cas, flags, expires_at)
        })?;
        let ns = Namespace::of(flags);
        let mut superseded = None;
        let arena = &self.arena;
        let entry = self.index.find_or_insert(
            hash,
            loc,
            |l| {
                let r = arena.record(l);
                r.key() == key && Namespace::of(r.header.flags) == ns
            },
            |l| {
                let r = arena.record(l);
                hasher(r.key(), r.header.flags)
            },
        );
        match entry {
            Entry::Found(slot) => {
                let old = self.index.loc(slot);
                let old_rec = self.arena.record(old);
                if old_rec.header.expires_at.is_some() {
                    self.with_expiry -= 1;
                }
                superseded = Some(ValueRef::decode(old_rec.value()));
                let old_len = old_rec.len();
                self.arena.release(old, old_len);
                self.index.set_loc(slot, loc);
            }
            Entry::Inserted(_) => {
                self.chunks += usize::from(ns == Namespace::Chunk);
            }
        }
        if expires_at.is_some() {
            self.with_expiry += 1;
        }
        Ok(superseded)
    }

    /// Starts loading the index lines a [`restore_stub`](Self::restore_stub)
    /// of `hash` will probe (called a few entries ahead).
    pub(crate) fn prefetch_index(&self, hash: u64) {
        self.index.prefetch(hash);
    }

    /// Drops `key`'s stub in `ns`, if any (a rebuild met its tombstone);
    /// returns the record it named.
    pub(crate) fn forget_key(&mut self, ns: Namespace, hash: u64, key: &[u8]) -> Option<ValueRef> {
        let slot = self.lookup_in(ns, hash, key)?;
        self.chunks -= usize::from(ns == Namespace::Chunk);
        let loc = self.index.loc(slot);
        let rec = self.arena.record(loc);
        if rec.header.expires_at.is_some() {
            self.with_expiry -= 1;
        }
        let forgotten = ValueRef::decode(rec.value());
        let len = rec.len();
        self.index.remove(slot);
        self.arena.release(loc, len);
        Some(forgotten)
    }

    /// Sizes the index of an empty shard for `items` keys at once (a
    /// rebuild that knows about how many come).
    pub(crate) fn reserve_index(&mut self, items: usize) {
        debug_assert_eq!(self.index.len(), 0);
        // Nothing to rehash in an empty table.
        self.index.reserve(items, |_| 0);
    }

    /// Shrinks an index that [`reserve_index`](Self::reserve_index) made
    /// far larger than what it holds (most entries found were superseded).
    pub(crate) fn fit_index(&mut self, hasher: &dyn Fn(&[u8], u64) -> u64) {
        let arena = &self.arena;
        self.index.fit(|l| {
            let r = arena.record(l);
            hasher(r.key(), r.header.flags)
        });
    }
}

/// The whole record a stub names, from DRAM, fetched, or the device;
/// `hint` is the key's hash (what the record is cached under).
fn resolve_record(ssd: &SsdTier, rec: &Record<'_>, hint: u64) -> Result<Bytes, KvError> {
    let vref = ValueRef::decode(rec.value());
    let len = vref.len as usize;
    match fetch::resolve(ssd.store(), vref.loc, len, hint, ssd.settings().read_path) {
        Resolved::Found(payload) if value_of(&payload, rec.key(), rec.header.cas).is_some() => {
            Ok(payload)
        }
        // A fetched copy from another life of the block: read it again,
        // under the lock, where the stub's entry is live.
        Resolved::Found(_) => ssd
            .store()
            .read_hinted(vref.loc, Some(len), hint)
            .map_err(|e| {
                let cause = e.to_string();
                fetch::failed(cause.clone());
                KvError::Storage { cause }
            }),
        Resolved::Deferred => Err(KvError::NotResident),
        Resolved::Failed(cause) => Err(KvError::Storage { cause }),
    }
}
