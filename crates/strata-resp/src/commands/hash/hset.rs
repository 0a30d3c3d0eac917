//! `HSET key field value [field value ...]` and the older `HMSET`.

use strata_kv::{collection, Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit_or_in_place;
use crate::encodings::PackedLimits;
use crate::notify::{self, fire_created};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// What the command replies.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// HSET: the number of fields added.
    Added,
    /// HMSET: OK.
    Ok,
}

/// Sets each field to its value, creating the hash if needed.
pub fn hset<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    reply: Reply,
) -> Result<(), RespError> {
    if args.len() % 2 != 0 {
        let name = match reply {
            Reply::Added => "hset",
            Reply::Ok => "hmset",
        };
        return Err(RespError::WrongArity(name.into()));
    }
    let limits = ctx.shared.encodings.hash();
    let key = args.get(1);
    let in_place = |bytes: &mut [u8]| {
        (within(bytes, args, limits) && overwrite(bytes, args)).then_some((0, false))
    };
    let (added, created) =
        edit_or_in_place(ctx.store, key, ValueKind::Hash, limits, in_place, |hash| {
            let created = hash.is_empty();
            let mut added = 0i64;
            for i in (2..args.len()).step_by(2) {
                added += i64::from(hash.put(args.get(i), args.get(i + 1))?);
            }
            Ok((added, created))
        })?;
    fire_created(ctx, created, notify::HASH, "hset", args.get(1));
    match reply {
        Reply::Added => out.integer(added),
        Reply::Ok => out.ok(),
    }
    Ok(())
}

/// Sets each field of the packed hash stored as `bytes` to its value where
/// every field is there already with a value as long, so that no byte
/// moves; false, having changed nothing, otherwise (the caller then
/// rewrites the hash).
fn overwrite(bytes: &mut [u8], args: Args<'_>) -> bool {
    let pairs = (2..args.len()).step_by(2);
    let fits = |bytes: &[u8], i: usize| match collection::pair_value(bytes, args.get(i)) {
        Ok(Some(at)) if at.len() == args.get(i + 1).len() => Some(at),
        _ => None,
    };
    // Several pairs: all are checked first, so none is set unless all are.
    if args.len() > 4 && pairs.clone().any(|i| fits(bytes, i).is_none()) {
        return false;
    }
    for i in pairs {
        let Some(at) = fits(bytes, i) else {
            return false;
        };
        bytes[at].copy_from_slice(args.get(i + 1));
    }
    true
}

/// Whether setting the fields of `args` in the packed hash stored as
/// `bytes` keeps it packed under `limits`, as Redis's `HSET` decides
/// (`hashTypeTryConversion`: every field and value given within
/// `hash-max-listpack-value`, the fields within `hash-max-listpack-entries`):
/// limits lowered since the hash was written make the rewrite convert it.
fn within(bytes: &[u8], args: Args<'_>, limits: PackedLimits) -> bool {
    let entries = collection::count(bytes).map_or(usize::MAX, |n| n / 2);
    let longest = args.iter_from(2).map(<[u8]>::len).max().unwrap_or(0);
    limits.fits(entries, longest)
}
