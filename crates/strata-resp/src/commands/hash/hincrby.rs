//! `HINCRBY key field increment`.

use strata_kv::{Mutation, Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
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
    let mut text = itoa::Buffer::new();
    let next = ctx.store.update(args.get(1), |old| {
        let mut opened = match open(old, ValueKind::Hash) {
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let pairs = &mut opened.elements;
        let at = find(pairs, field);
        let current = match at {
            None => 0,
            Some(at) => match parse_i64(pairs[at * 2 + 1]) {
                Some(n) => n,
                None => return (Mutation::Keep, Err(CollectionError::HashNotInteger.into())),
            },
        };
        let Some(next) = current.checked_add(by) else {
            return (Mutation::Keep, Err(RespError::Overflow));
        };
        let value = text.format(next).as_bytes();
        match at {
            Some(at) => pairs[at * 2 + 1] = value,
            None => pairs.extend([field, value]),
        }
        (save(ValueKind::Hash, pairs, opened.expires_at), Ok(next))
    })??;
    out.integer(next);
    Ok(())
}
