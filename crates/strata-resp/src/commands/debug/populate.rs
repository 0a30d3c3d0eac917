//! `DEBUG POPULATE count [prefix] [size]`: creates string keys
//! `<prefix>:<n>` (prefix `key`) for n below `count` with the value
//! `value:<n>`, cut or padded with zero bytes to `size` when given; keys
//! that exist are left as they are. Like any write, each key is logged
//! and counts against `maxmemory` (a full store stops it with the
//! error).

use strata_kv::{NewItem, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};

/// Reads a count or size as Redis's `getPositiveLongFromObjectOrReply`
/// (one error for text and negatives alike).
fn positive(text: &[u8]) -> Result<u64, RespError> {
    parse_i64(text)
        .and_then(|n| u64::try_from(n).ok())
        .ok_or_else(|| CollectionError::MustBePositive.into())
}

/// Runs `DEBUG POPULATE` (arguments from index 2).
pub fn populate<S: Store>(ctx: &mut Ctx<'_, S>, args: &Args<'_>) -> Result<(), RespError> {
    let count = positive(args.get(2))?;
    let prefix = if args.len() >= 4 { args.get(3) } else { b"key" };
    let size = if args.len() == 5 {
        Some(positive(args.get(4))?)
    } else {
        None
    };
    let size = size.map(|s| usize::try_from(s).unwrap_or(usize::MAX));
    if size.is_some_and(|s| s > ctx.shared.keyspace.max_item_size()) {
        return Err(RespError::from(strata_kv::KvError::TooLarge {
            size: size.unwrap_or_default(),
            limit: ctx.shared.keyspace.max_item_size(),
        }));
    }
    let mut key = Vec::with_capacity(prefix.len() + 21);
    for n in 0..count {
        key.clear();
        key.extend_from_slice(prefix);
        key.push(b':');
        key.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
        if ctx.store.kind(&key).is_some() {
            continue;
        }
        let mut value = format!("value:{n}").into_bytes();
        if let Some(size) = size {
            value.resize(size, 0);
        }
        ctx.store.set(
            &key,
            NewItem {
                value: value.as_slice().into(),
                flags: 0,
                expires_at: None,
            },
        )?;
    }
    Ok(())
}
