//! A shard's part when a restart adopts a persistent index over the SSD
//! tier (`tier/ssd_adopt.rs`): every stub marks its entry live; a stub
//! whose record never reached the device falls back to the key's older,
//! durable record (`tier/stub.rs`), or loses the key if it has none.

use strata_ssd::{Recovery, SsdError, SsdStore};

use super::{stub_len, ShardInner};
use crate::arena::{decode, encode};
use crate::tier::{StubValue, ValueRef, VALUE_REF_LEN};

/// What marking a shard's stubs found.
#[derive(Debug, Default)]
pub(crate) struct Adopted {
    /// Stubs checked.
    pub checked: u64,
    /// Keys lost: their record did not reach the device, and no fallback.
    pub lost: u64,
    /// Stubs whose fallback record was marked live instead: (slot, record).
    pub fell_back: Vec<(usize, ValueRef)>,
}

impl ShardInner {
    /// Marks the entry of every stub live in `recovery`. A stub whose entry
    /// lies past its block's durable end uses its fallback if that one is
    /// on the device (pointed at it later by [`apply_fallbacks`](Self::apply_fallbacks));
    /// otherwise its key leaves the index, durably.
    pub(crate) fn adopt_ssd_entries(&mut self, recovery: &Recovery) -> Result<Adopted, String> {
        let mut adopted = Adopted::default();
        let mut lost = Vec::new();
        for (slot, loc) in self.index.items_in(0, self.index.capacity()) {
            let value = StubValue::decode(self.arena.record(loc).value());
            adopted.checked += 1;
            let current = value.current;
            match recovery.set_live(current.loc, current.len as usize) {
                Ok(()) => continue,
                Err(SsdError::NotLive { .. }) => {}
                Err(e) => return Err(e.to_string()),
            }
            let fallback = value
                .fallback
                .filter(|f| recovery.set_live(f.loc, f.len as usize).is_ok());
            match fallback {
                Some(f) => adopted.fell_back.push((slot, f)),
                None => lost.push(slot),
            }
        }
        // Segment usage and expiry counts are recounted later from the
        // index (the adopted shard's pending recount): only the index
        // changes here.
        for &slot in &lost {
            self.index.remove(slot);
        }
        adopted.lost = lost.len() as u64;
        Ok(adopted)
    }

    /// Points each stub that fell back at its fallback record, read from
    /// `store` (the finished recovery): a new stub from the record's own
    /// header (CAS, flags, expiry), so the key reads exactly as it was
    /// then. A record that cannot be read, or is not the key's, loses the
    /// key. Returns the keys lost.
    pub(crate) fn apply_fallbacks(
        &mut self,
        store: &SsdStore,
        hasher: &dyn Fn(&[u8]) -> u64,
        fell_back: Vec<(usize, ValueRef)>,
    ) -> u64 {
        let mut lost = 0;
        for (slot, fallback) in fell_back {
            let old = self.index.loc(slot);
            let key = self.arena.record(old).key().to_vec();
            match self.repoint_to_fallback(store, hasher(&key), &key, slot, fallback) {
                Ok(()) => {}
                Err(reason) => {
                    tracing::warn!(loc = %fallback.loc, %reason, "a key's fallback SSD record is unusable");
                    self.index.remove(slot);
                    if let Err(e) = store.release(fallback.loc, fallback.len as usize) {
                        tracing::error!(error = %e, "releasing an SSD entry failed");
                    }
                    lost += 1;
                }
            }
        }
        lost
    }

    fn repoint_to_fallback(
        &mut self,
        store: &SsdStore,
        hash: u64,
        key: &[u8],
        slot: usize,
        fallback: ValueRef,
    ) -> Result<(), String> {
        let payload = store
            .read_hinted(fallback.loc, Some(fallback.len as usize), hash)
            .map_err(|e| e.to_string())?;
        let header = decode(&payload)
            .filter(|h| h.record_len() == payload.len())
            .ok_or("not a record")?;
        let key_at = header.header_len..header.header_len + header.key_len;
        if payload[key_at] != *key {
            return Err("the record is another key's".into());
        }
        let (cas, flags, expires_at) = (header.cas, header.flags, header.expires_at);
        let mut value = [0u8; 2 * VALUE_REF_LEN];
        StubValue {
            current: fallback,
            fallback: None,
        }
        .encode_into(&mut value);
        let len = stub_len(key.len(), value.len(), cas, flags, expires_at);
        let new_loc = self
            .arena
            .append(len, expires_at, |buf| {
                encode(buf, key, &[&value], cas, flags, expires_at)
            })
            .map_err(|e| e.to_string())?;
        let old = self.index.loc(slot);
        let old_len = self.arena.record(old).len();
        self.index.set_loc(slot, new_loc);
        self.arena.release(old, old_len);
        Ok(())
    }
}
