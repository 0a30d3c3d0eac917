//! Repairing, when a restart adopts a persistent index over the SSD tier,
//! the stubs whose record never reached the device (the key was written
//! within the flush window before the crash): each key gets its newest
//! record that did reach the device, as its stub's [`Prior`] says where
//! to look, or leaves the index if there is none.
//!
//! Candidates are the key's entries at or after the prior's position (one
//! read of the blocks appended since the oldest such position: the last
//! flush window or two, so the restart stays instant) and, for
//! [`Prior::Fallback`], one older record that was kept live for it. The
//! newest candidate on the device wins. So a key comes back with its
//! newest durable value, and never with a value from before a delete (a
//! life begun after a delete starts its candidates at its first record).
//!
//! Two steps around [`Recovery::finish`]: [`choose`] before (the chosen
//! entries must be marked live, or finish frees their blocks), [`apply`]
//! after (a fallback's header is read through the store).

use std::collections::HashMap;

use strata_ssd::{BlockLoc, Recovery, SsdError, SsdStore};

use crate::arena::decode;
use crate::shard::ssd::FoundRecord;
use crate::shard::ssd_adopt::LostStub;
use crate::shard::ShardInner;
use crate::tier::ssd::KIND_PUT;
use crate::tier::{Prior, ValueRef};

/// A lost stub and its shard.
pub(crate) type Lost = (usize, LostStub);

/// A record's header fields, as found on the device.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Header {
    cas: u64,
    flags: u64,
    expires_at: Option<u64>,
}

/// What one lost stub becomes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Choice {
    /// Its key's newest candidate on the device, found by the scan.
    Found(ValueRef, Header),
    /// Its fallback (the header is read after `finish`).
    Fallback(ValueRef),
    /// Nothing durable: the key leaves the index.
    Gone,
}

/// What the repair did, for the restart's report.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Repaired {
    /// Keys served with an older durable record than their stub named.
    pub restored: u64,
    /// Keys with no durable record left: removed.
    pub lost: u64,
}

/// Finds each lost stub's record and marks it live in `recovery`.
pub(crate) fn choose(recovery: &Recovery, lost: &[Lost]) -> Result<Vec<Choice>, String> {
    let mut found: Vec<Option<(ValueRef, Header)>> = vec![None; lost.len()];
    let from = lost.iter().filter_map(|(_, l)| l.prior.since()).min();
    if let Some(from) = from {
        let by_key: HashMap<&[u8], usize> = lost
            .iter()
            .enumerate()
            .map(|(i, (_, l))| (&l.key[..], i))
            .collect();
        recovery
            .visit_since(from, |position, loc, kind, payload| {
                let Some(header) = (kind == KIND_PUT).then(|| decode(payload)).flatten() else {
                    return;
                };
                let key = &payload[header.header_len..header.header_len + header.key_len];
                let Some(&i) = by_key.get(key) else {
                    return;
                };
                if lost[i]
                    .1
                    .prior
                    .since()
                    .is_some_and(|since| position >= since)
                {
                    // Visits come in append order: the last one is the newest.
                    let vref = ValueRef {
                        loc,
                        len: payload.len() as u32,
                    };
                    let fields = Header {
                        cas: header.cas,
                        flags: header.flags,
                        expires_at: header.expires_at,
                    };
                    found[i] = Some((vref, fields));
                }
            })
            .map_err(|e| format!("SSD tier: {e}"))?;
    }
    let mut choices = Vec::with_capacity(lost.len());
    for ((_, stub), found) in lost.iter().zip(found) {
        let choice = match (found, stub.prior) {
            (Some((vref, header)), _) => Choice::Found(vref, header),
            (None, Prior::Fallback { record, .. }) => Choice::Fallback(record),
            (None, _) => Choice::Gone,
        };
        let marked = match choice {
            Choice::Found(vref, _) | Choice::Fallback(vref) => {
                recovery.set_live(vref.loc, vref.len as usize)
            }
            Choice::Gone => Ok(()),
        };
        choices.push(match marked {
            Ok(()) => choice,
            Err(SsdError::NotLive { loc, reason }) => {
                tracing::warn!(%loc, %reason, "a lost key's fallback record is not on the SSD");
                Choice::Gone
            }
            Err(e) => return Err(format!("SSD tier: {e}")),
        });
    }
    Ok(choices)
}

/// Points each lost stub at its chosen record, or removes it.
pub(crate) fn apply(
    store: &SsdStore,
    shards: &mut [ShardInner],
    lost: &[Lost],
    choices: &[Choice],
) -> Result<Repaired, String> {
    let mut repaired = Repaired::default();
    for ((shard, stub), choice) in lost.iter().zip(choices) {
        let found = match *choice {
            Choice::Found(vref, header) => Some((vref, header)),
            Choice::Fallback(vref) => Some((vref, read_header(store, vref.loc)?)),
            Choice::Gone => None,
        };
        let inner = &mut shards[*shard];
        let Some((vref, header)) = found else {
            inner.forget_lost(stub.slot);
            repaired.lost += 1;
            continue;
        };
        let record = FoundRecord {
            key: &stub.key,
            cas: header.cas,
            flags: header.flags,
            expires_at: header.expires_at,
            vref,
        };
        inner
            .repair_stub(stub.slot, &record)
            .map_err(|e| format!("repairing the stub of a key lost in the crash: {e}"))?;
        repaired.restored += 1;
    }
    Ok(repaired)
}

/// The header of the record at `loc`.
fn read_header(store: &SsdStore, loc: BlockLoc) -> Result<Header, String> {
    let payload = store
        .read(loc)
        .map_err(|e| format!("SSD tier: reading a fallback record: {e}"))?;
    let header =
        decode(&payload).ok_or_else(|| format!("the SSD entry at {loc} is not a record"))?;
    Ok(Header {
        cas: header.cas,
        flags: header.flags,
        expires_at: header.expires_at,
    })
}
