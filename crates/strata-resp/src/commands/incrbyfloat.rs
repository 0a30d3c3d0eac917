//! `INCRBYFLOAT key increment`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store, StringForm};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::notify::{self, fire_created};
use crate::number::{incr_float, IncrFloatError};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Adds a float to the stored number (missing counts as 0), storing and
/// replying the result in plain decimal notation; the result is text
/// (`OBJECT ENCODING` `embstr`, never `int`, as Redis stores it). Results
/// that are not finite are refused. Arithmetic is in C's `long double`, as Redis's
/// (`strata_float`), so every digit is Redis's.
pub fn incrbyfloat<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let increment = args.get(2);
    let result = ctx.store.update(args.get(1), |old| {
        if not_string(old) {
            return (Mutation::Keep, Err(RespError::WrongType));
        }
        let (current, flags, expires_at) = match old {
            None => (None, 0, None),
            Some(item) => (Some(item.value), item.flags, item.expires_at),
        };
        let text = match incr_float(current, increment) {
            Ok(text) => text,
            Err(IncrFloatError::NotFinite) => {
                return (Mutation::Keep, Err(RespError::NanOrInfinity))
            }
            Err(_) => return (Mutation::Keep, Err(RespError::NotFloat)),
        };
        let value = Cow::Owned(text.clone().into_bytes());
        (
            Mutation::PutString(
                StringForm::Text,
                NewItem {
                    value,
                    flags,
                    expires_at,
                },
            ),
            Ok((text, old.is_none())),
        )
    })?;
    let (text, created) = result?;
    fire_created(ctx, created, notify::STRING, "incrbyfloat", args.get(1));
    out.bulk(text.as_bytes());
    Ok(())
}
