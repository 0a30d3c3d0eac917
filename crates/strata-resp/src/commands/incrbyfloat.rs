//! `INCRBYFLOAT key increment`.

use std::borrow::Cow;

use strata_kv::{Mutation, NewItem, Store};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::notify::{self, fire_created};
use crate::number::{format_f64, parse_f64};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Adds a float to the stored number (missing counts as 0), storing and
/// replying the result in plain decimal notation. Results that are not
/// finite are refused. Arithmetic is in `f64` (Redis uses `long double`),
/// so the last digits of some results differ from Redis's.
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
            None => (0.0, 0, None),
            Some(item) => match parse_f64(item.value) {
                Some(n) => (n, item.flags, item.expires_at),
                None => return (Mutation::Keep, Err(RespError::NotFloat)),
            },
        };
        let Some(by) = parse_f64(increment) else {
            return (Mutation::Keep, Err(RespError::NotFloat));
        };
        let next = current + by;
        if !next.is_finite() {
            return (Mutation::Keep, Err(RespError::NanOrInfinity));
        }
        let text = format_f64(next);
        let value = Cow::Owned(text.clone().into_bytes());
        (
            Mutation::Put(NewItem {
                value,
                flags,
                expires_at,
            }),
            Ok((text, old.is_none())),
        )
    })?;
    let (text, created) = result?;
    fire_created(ctx, created, notify::STRING, "incrbyfloat", args.get(1));
    out.bulk(text.as_bytes());
    Ok(())
}
