//! `HINCRBY key field increment`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit;
use crate::notify::{self, fire_created};
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Adds the increment to the field's integer (a missing field counts as 0).
pub fn hincrby<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let by = parse_i64(args.get(3)).ok_or(RespError::NotInteger)?;
    let field = args.get(2);
    let limits = ctx.shared.encodings.hash();
    let (next, created) = edit(ctx.store, args.get(1), ValueKind::Hash, limits, |hash| {
        let created = hash.is_empty();
        let current = match hash.get(field)? {
            None => 0,
            Some(v) => parse_i64(&v).ok_or(CollectionError::HashNotInteger)?,
        };
        let next = current.checked_add(by).ok_or(RespError::Overflow)?;
        hash.put(field, itoa::Buffer::new().format(next).as_bytes())?;
        Ok((next, created))
    })?;
    fire_created(ctx, created, notify::HASH, "hincrby", args.get(1));
    out.integer(next);
    Ok(())
}
