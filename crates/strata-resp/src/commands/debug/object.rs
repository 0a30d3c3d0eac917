//! `DEBUG OBJECT key`: Redis's one-line description of a value, with
//! Strata's facts in Redis's fields. `Value at` is 0 (a value has no
//! stable address here: records move between tiers and segments),
//! `refcount` is 1 (no value is shared), `encoding` is `OBJECT
//! ENCODING`'s, `serializedlength` the bytes of the value's RDB
//! serialization as `DUMP` writes it (Redis's packed encodings may be
//! shorter), `lru` Redis's 24-bit clock of seconds at the last access and
//! `lru_seconds_idle` `OBJECT IDLETIME`'s seconds. Redis's quicklist
//! details (`ql_nodes`, ...) are not given: Strata's large lists are
//! chunk records, not quicklists.

use strata_kv::Store;

use crate::command::Ctx;
use crate::commands::dump::read_value;
use crate::commands::object::encoding;
use crate::rdb;
use crate::reply::RespError;

/// Bytes a `DUMP` payload has besides the value's serialization: the
/// type byte, the RDB version (2) and the CRC-64 (8).
const PAYLOAD_FRAME: usize = 11;

/// Redis's LRU clock: seconds, 24 bits.
const LRU_CLOCK_MASK: u64 = (1 << 24) - 1;

/// The line describing `key`'s value; `ERR no such key` when missing.
pub fn describe<S: Store>(ctx: &mut Ctx<'_, S>, key: &[u8]) -> Result<String, RespError> {
    let Some(kind) = ctx.store.kind(key) else {
        return Err(RespError::NoSuchKey);
    };
    // Before the value is read (a read is an access).
    let idle = ctx.store.access(key).map_or(0, |a| a.idle_secs);
    let encoding = encoding(ctx, key, kind);
    let value = read_value(ctx.store, key)?.ok_or(RespError::NoSuchKey)?;
    let serialized = rdb::dump(&value).len().saturating_sub(PAYLOAD_FRAME);
    let now_secs = ctx.shared.keyspace.now_ms() / 1000;
    let lru = now_secs.saturating_sub(idle) & LRU_CLOCK_MASK;
    Ok(format!(
        "Value at:0x0 refcount:1 encoding:{encoding} serializedlength:{serialized} lru:{lru} lru_seconds_idle:{idle}"
    ))
}
