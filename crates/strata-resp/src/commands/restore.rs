//! `RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds]
//! [FREQ frequency]`: creates `key` from a `DUMP` payload (Strata's or
//! Redis 7's, see [`crate::rdb`]), checked in Redis's order:
//! options, then `BUSYKEY` (no `REPLACE`), the TTL, the payload's footer,
//! its object. The value is written as the collection commands write
//! theirs (packed while it fits the `*-max-listpack-*` limits, large
//! otherwise), under the key's shard lock in one journal record, the old
//! value (with `REPLACE`) removed in the same step. `ttl` is in
//! milliseconds, 0 for none; with `ABSTTL` a Unix time in milliseconds,
//! and one already past leaves the key absent (deleting what `REPLACE`
//! replaced), as Redis does. `IDLETIME` and `FREQ` are validated as Redis
//! does and otherwise ignored: Strata's eviction keeps its own access
//! record, which a client cannot set.

use strata_kv::{LargeEdit, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed;
use crate::commands::list::either as list_either;
use crate::commands::stream::dumped;
use crate::commands::zset::stored as zset_stored;
use crate::encodings::Encodings;
use crate::notify;
use crate::number::parse_i64;
use crate::rdb::{self, Value};
use crate::reply::{DumpError, RespError};
use crate::writer::ReplyWriter;

/// `RESTORE`'s options.
#[derive(Default)]
struct Options {
    replace: bool,
    absttl: bool,
    idle: bool,
    freq: bool,
}

fn options(args: &Args<'_>) -> Result<Options, RespError> {
    let mut o = Options::default();
    let mut i = 4;
    while i < args.len() {
        let more = i + 1 < args.len();
        match args.get(i).to_ascii_lowercase().as_slice() {
            b"replace" => o.replace = true,
            b"absttl" => o.absttl = true,
            // Redis takes one of IDLETIME and FREQ, not both.
            b"idletime" if more && !o.freq => {
                let idle = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                if idle < 0 {
                    return Err(DumpError::Idle.into());
                }
                o.idle = true;
                i += 1;
            }
            b"freq" if more && !o.idle => {
                let freq = parse_i64(args.get(i + 1)).ok_or(RespError::NotInteger)?;
                if !(0..=255).contains(&freq) {
                    return Err(DumpError::Freq.into());
                }
                o.freq = true;
                i += 1;
            }
            _ => return Err(RespError::Syntax),
        }
        i += 1;
    }
    Ok(o)
}

/// `OK`, or Redis's refusal.
pub fn restore<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let o = options(&args)?;
    let key = args.get(1);
    if !o.replace && ctx.store.kind(key).is_some() {
        return Err(DumpError::BusyKey.into());
    }
    let ttl = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    if ttl < 0 {
        return Err(DumpError::NegativeTtl.into());
    }
    let body = rdb::open(args.get(3)).ok_or(DumpError::Footer)?;
    let value = rdb::parse(body, ctx.shared.max_bulk())?;
    let now = ctx.shared.keyspace.now_ms();
    let ttl = ttl as u64;
    let expires_at = match (ttl, o.absttl) {
        (0, _) => None,
        (at, true) => Some(at),
        (ms, false) => Some(now.saturating_add(ms)),
    };
    let expired = expires_at.is_some_and(|at| at <= now);
    let encodings = &ctx.shared.encodings;
    // Redis wakes clients blocked on the key for these types (every
    // reader of a stream, as `XADD` does).
    let wakes = matches!(value, Value::List(_) | Value::SortedSet(_));
    let stream = matches!(value, Value::Stream(_));
    let replaced = ctx.store.edit_large(key, |edit| {
        let existed = edit.current()?.is_some();
        if existed {
            if !o.replace {
                return Err(DumpError::BusyKey.into());
            }
            edit.delete()?;
        }
        match expired {
            true => Ok(existed),
            false => write(edit, encodings, value, expires_at).map(|()| existed),
        }
    })??;
    // As Redis: a key added (`new`, then `restore`), or one REPLACE removed
    // for a past ABSTTL (`del`).
    match expired {
        false => notify::fire_created(ctx, true, notify::GENERIC, "restore", key),
        true if replaced => notify::fire(ctx, notify::GENERIC, "del", key),
        true => {}
    }
    if !expired && wakes {
        ctx.shared.waiters.pushed(key);
    }
    if !expired && stream {
        ctx.shared.waiters.pushed_all(key);
    }
    out.ok();
    Ok(())
}

/// Writes `value` at the (now empty) key `edit` holds.
fn write(
    edit: &mut LargeEdit<'_>,
    encodings: &Encodings,
    value: Value,
    expires_at: Option<u64>,
) -> Result<(), RespError> {
    match value {
        Value::String(s) => Ok(edit.put_whole(ValueKind::String, &s, expires_at)?),
        Value::List(e) => list_either::write(edit, encodings.list_limit(), &e, expires_at),
        Value::Set(m) => {
            hashed::write(edit, ValueKind::Set, encodings.set_limits(), &m, expires_at)
        }
        Value::Hash(p) => hashed::write(edit, ValueKind::Hash, encodings.hash(), &p, expires_at),
        Value::Stream(s) => dumped::write(edit, dumped::from_rdb(*s)?, expires_at),
        Value::SortedSet(entries) => {
            let mut sorted: Vec<(f64, &[u8])> =
                entries.iter().map(|(s, m)| (*s, m.as_slice())).collect();
            sorted.sort_by(|a, b| strata_kv::large::compare(*a, *b));
            zset_stored::save(edit, encodings.zset(), &sorted, expires_at)
        }
    }
}
