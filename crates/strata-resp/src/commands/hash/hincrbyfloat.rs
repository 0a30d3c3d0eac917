//! `HINCRBYFLOAT key field increment`.

use strata_kv::{Mutation, Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
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
    let mut text = String::new();
    ctx.store.update(args.get(1), |old| {
        let mut opened = match open(old, ValueKind::Hash) {
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let pairs = &mut opened.elements;
        let at = find(pairs, field);
        let current = match at {
            None => 0.0,
            Some(at) => match parse_f64(pairs[at * 2 + 1]) {
                Some(n) => n,
                None => return (Mutation::Keep, Err(CollectionError::HashNotFloat.into())),
            },
        };
        let next = current + by;
        if !next.is_finite() {
            return (Mutation::Keep, Err(RespError::NanOrInfinity));
        }
        text = format_f64(next);
        let value = text.as_bytes();
        match at {
            Some(at) => pairs[at * 2 + 1] = value,
            None => pairs.extend([field, value]),
        }
        (save(ValueKind::Hash, pairs, opened.expires_at), Ok(()))
    })??;
    out.bulk(text.as_bytes());
    Ok(())
}
