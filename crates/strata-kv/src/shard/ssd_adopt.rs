//! A shard's part when a restart adopts a persistent index over the SSD
//! tier (`open/ssd_adopt.rs`): every stub marks its entry live; a stub
//! whose record never reached the device is listed, and later repaired
//! from its prior (`open/ssd_repair.rs`) or removed.

use strata_ssd::{Recovery, SsdError};

use super::ssd::FoundRecord;
use super::ShardInner;
use crate::arena::{encode, stub_len};
use crate::chunk::Namespace;
use crate::tier::{Prior, StubValue, PERSISTENT_STUB_VALUE_LEN};
use crate::KvError;

/// Stubs whose memory is touched together (see `adopt_ssd_entries`).
const BATCH: usize = 16;

/// A stub whose record did not reach the device.
#[derive(Debug, Clone)]
pub(crate) struct LostStub {
    /// Its index slot (stable until the repair: nothing is inserted).
    pub slot: usize,
    pub key: Vec<u8>,
    /// Where its key's newest durable record may be.
    pub prior: Prior,
}

/// What marking a shard's stubs found.
#[derive(Debug, Default)]
pub(crate) struct Adopted {
    /// Stubs checked.
    pub checked: u64,
    /// Stubs whose record did not reach the device.
    pub lost: Vec<LostStub>,
}

impl ShardInner {
    /// Marks the entry of every stub live in `recovery`. A stub whose entry
    /// lies past its block's durable end (appended after the last write
    /// that reached the device) is listed as lost, left in the index for
    /// the repair. Counts the chunk entries as it goes: every stub is
    /// decoded here anyway, so the restore threads leave that count to it.
    pub(crate) fn adopt_ssd_entries(&mut self, recovery: &Recovery) -> Result<Adopted, String> {
        let mut adopted = Adopted::default();
        let mut chunks = 0;
        let mut tally = recovery.tally().map_err(|e| e.to_string())?;
        let mut batch = Vec::with_capacity(BATCH);
        let mut items = self.index.items_in(0, self.index.capacity()).peekable();
        while items.peek().is_some() {
            batch.clear();
            batch.extend(items.by_ref().take(BATCH));
            // The stubs lie in random order in memory: touching the batch
            // first overlaps their cache misses.
            let touched = batch
                .iter()
                .fold(0u8, |acc, &(_, loc)| acc ^ self.arena.touch(loc));
            std::hint::black_box(touched);
            for &(slot, loc) in &batch {
                let rec = self.arena.record(loc);
                let stub = StubValue::decode(rec.value());
                adopted.checked += 1;
                chunks += usize::from(Namespace::of(rec.header.flags) == Namespace::Chunk);
                match tally.mark(stub.current.loc, stub.current.len as usize) {
                    Ok(()) => {}
                    Err(SsdError::NotLive { .. }) => adopted.lost.push(LostStub {
                        slot,
                        key: rec.key().to_vec(),
                        prior: stub.prior,
                    }),
                    Err(e) => return Err(e.to_string()),
                }
            }
        }
        drop(items);
        self.chunks = chunks;
        recovery.add_tally(tally).map_err(|e| e.to_string())?;
        Ok(adopted)
    }

    /// Points the lost stub in `slot` at `found`, a durable record of its
    /// key, through a new stub (a published stub is never patched). Only
    /// the index changes besides the append: segment usage and expiry
    /// counts are recounted later (the adopted shard's pending recount).
    pub(crate) fn repair_stub(
        &mut self,
        slot: usize,
        found: &FoundRecord<'_>,
    ) -> Result<(), KvError> {
        let value_len = PERSISTENT_STUB_VALUE_LEN;
        let len = stub_len(
            found.key.len(),
            value_len,
            found.cas,
            found.flags,
            found.expires_at,
        );
        let mut value = [0u8; PERSISTENT_STUB_VALUE_LEN];
        StubValue {
            current: found.vref,
            prior: Prior::None,
        }
        .encode_into(&mut value);
        let loc = self.arena.append(len, found.expires_at, |buf| {
            encode(
                buf,
                found.key,
                &[&value],
                found.cas,
                found.flags,
                found.expires_at,
            )
        })?;
        self.index.set_loc(slot, loc);
        Ok(())
    }

    /// Removes the lost stub in `slot`: no durable record of its key is
    /// left to serve (one persisted store in the index).
    pub(crate) fn forget_lost(&mut self, slot: usize) {
        let flags = self.record_at(slot).header.flags;
        self.chunks -= usize::from(Namespace::of(flags) == Namespace::Chunk);
        self.index.remove(slot);
    }
}
