//! `LSET key index element`.

use strata_kv::{Mutation, Store, ValueKind};

use super::index;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
use crate::number::parse_i64;
use crate::reply::{CollectionError, RespError};
use crate::writer::ReplyWriter;

/// Replaces the element at the index.
pub fn lset<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let i = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let element = args.get(3);
    ctx.store.update(args.get(1), |old| {
        let mut opened = match open(old, ValueKind::List) {
            Ok(o) if !o.existed => return (Mutation::Keep, Err(RespError::NoSuchKey)),
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        let Some(at) = index(i, opened.elements.len()) else {
            return (Mutation::Keep, Err(CollectionError::IndexOutOfRange.into()));
        };
        opened.elements[at] = element;
        (
            save(ValueKind::List, &opened.elements, opened.expires_at),
            Ok(()),
        )
    })??;
    out.ok();
    Ok(())
}
