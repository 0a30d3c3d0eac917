//! `HINCRBYFLOAT key field increment`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::edit;
use crate::notify::{self, fire_created};
use crate::number::{format_f64, parse_f64};
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Adds the increment to the field's float; replies the new value as text.
pub fn hincrbyfloat<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let by = parse_f64(args.get(3)).ok_or(RespError::NotFloat)?;
    if by.is_infinite() {
        return Err(RespError::NanOrInfinity);
    }
    let field = args.get(2);
    let limits = ctx.shared.encodings.hash();
    let (text, created) = edit(ctx.store, args.get(1), ValueKind::Hash, limits, |hash| {
        let created = hash.is_empty();
        let current = match hash.get(field)? {
            None => 0.0,
            Some(v) => parse_f64(&v).ok_or(CollectionError::HashNotFloat)?,
        };
        let next = current + by;
        if !next.is_finite() {
            return Err(RespError::NanOrInfinity);
        }
        let text = format_f64(next);
        hash.put(field, text.as_bytes())?;
        Ok((text, created))
    })?;
    fire_created(ctx, created, notify::HASH, "hincrbyfloat", args.get(1));
    out.bulk(text.as_bytes());
    Ok(())
}
