//! `HINCRBYFLOAT key field increment`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit;
use crate::notify::{self, fire_created};
use crate::number::{incr_float, IncrFloatError};
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Adds the increment to the field's float (in C's `long double`, as
/// Redis: `strata_float`); replies the new value as text.
pub fn hincrbyfloat<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    // The increment alone first: Redis refuses a bad one before it looks
    // at the key.
    let by = args.get(3);
    match incr_float(None, by) {
        Ok(_) => {}
        Err(IncrFloatError::NotFinite) => return Err(RespError::IncrementNotFinite),
        Err(_) => return Err(RespError::NotFloat),
    }
    let field = args.get(2);
    let limits = ctx.shared.encodings.hash();
    let (text, created) = edit(ctx.store, args.get(1), ValueKind::Hash, limits, |hash| {
        let created = hash.is_empty();
        let current = hash.get(field)?;
        let text = match incr_float(current.as_deref(), by) {
            Ok(text) => text,
            Err(IncrFloatError::CurrentNotFloat) => {
                return Err(CollectionError::HashNotFloat.into())
            }
            Err(IncrFloatError::NotFinite) => return Err(RespError::NanOrInfinity),
            Err(IncrFloatError::IncrementNotFloat) => return Err(RespError::NotFloat),
        };
        hash.put(field, text.as_bytes())?;
        Ok((text, created))
    })?;
    fire_created(ctx, created, notify::HASH, "hincrbyfloat", args.get(1));
    out.bulk(text.as_bytes());
    Ok(())
}
