//! Keys and slots in cluster mode: `CLUSTER KEYSLOT key`,
//! `COUNTKEYSINSLOT slot` and `GETKEYSINSLOT slot count`. Strata keeps no
//! index of keys by slot (Redis does), so the last two walk the keyspace
//! with `SCAN`'s cursor: O(keys), not O(1), and with `SCAN`'s guarantees
//! while keys change meanwhile; `GETKEYSINSLOT` stops once it has `count`
//! keys.

use strata_kv::Store;

use crate::args::Args;
use crate::cluster::{key_slot, SLOTS};
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

/// Keys visited per step of the walk.
const STEP: usize = 1024;

/// Answers subcommand `name` (`keyslot`, `countkeysinslot`,
/// `getkeysinslot`).
pub(super) fn answer<S: Store>(
    store: &mut S,
    name: &str,
    args: &Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match name {
        "keyslot" => out.integer(i64::from(key_slot(args.get(2)))),
        "countkeysinslot" => {
            let slot = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
            let slot = u16::try_from(slot)
                .ok()
                .filter(|&s| s < SLOTS)
                .ok_or(ClientError::InvalidSlot)?;
            let mut n = 0i64;
            walk(store, |key| {
                n += i64::from(key_slot(key) == slot);
                true
            });
            out.integer(n);
        }
        _ => {
            let slot = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
            let count = parse_i64(args.get(3)).ok_or(RespError::NotInteger)?;
            let slot = u16::try_from(slot)
                .ok()
                .filter(|&s| s < SLOTS)
                .ok_or(ClientError::InvalidSlotOrCount)?;
            let count = usize::try_from(count).map_err(|_| ClientError::InvalidSlotOrCount)?;
            let mut keys = Vec::new();
            walk(store, |key| {
                if keys.len() < count && key_slot(key) == slot {
                    keys.push(key.to_vec());
                }
                keys.len() < count
            });
            out.array(keys.len());
            for key in &keys {
                out.bulk(key);
            }
        }
    }
    Ok(())
}

/// Visits every key until `f` says stop.
fn walk<S: Store>(store: &mut S, mut f: impl FnMut(&[u8]) -> bool) {
    let mut cursor = 0;
    let mut more = true;
    loop {
        cursor = store.scan_keys(cursor, STEP, &mut |key| {
            if more {
                more = f(key);
            }
        });
        if cursor == 0 || !more {
            return;
        }
    }
}
