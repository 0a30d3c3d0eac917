//! Keys and slots in cluster mode: `CLUSTER KEYSLOT key`,
//! `COUNTKEYSINSLOT slot` and `GETKEYSINSLOT slot count`. Cluster mode
//! turns on the keyspace's key groups by slot (Redis's slot-to-keys
//! index, `strata_kv::groups`): a slot's count is one load and its keys
//! are listed without visiting any other slot's; as in Redis, keys whose
//! expiry passed count until they are reclaimed. A store that cannot list
//! a slot (one holding only some shards, in `EXEC`) or a keyspace without
//! the index walks every key with `SCAN`'s cursor instead.

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
            let n = match store.group_len(slot) {
                Some(n) => i64::try_from(n).unwrap_or(i64::MAX),
                None => {
                    let mut n = 0i64;
                    walk(store, |key| {
                        n += i64::from(key_slot(key) == slot);
                        true
                    });
                    n
                }
            };
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
            // Never more room than `count` keys, nor than the slot holds.
            let held = store
                .group_len(slot)
                .map_or(0, |n| usize::try_from(n).unwrap_or(count));
            let mut keys = Vec::with_capacity(count.min(held));
            let listed = store.keys_in_group(slot, count, &mut |key| keys.push(key.to_vec()));
            if !listed {
                walk(store, |key| {
                    if keys.len() < count && key_slot(key) == slot {
                        keys.push(key.to_vec());
                    }
                    keys.len() < count
                });
            }
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
