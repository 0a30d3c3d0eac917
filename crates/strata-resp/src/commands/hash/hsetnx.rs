//! `HSETNX key field value`.

use strata_kv::{Mutation, Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::{open, save};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Sets the field only if it is absent: 1 if set, 0 if it existed.
pub fn hsetnx<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (field, value) = (args.get(2), args.get(3));
    let set = ctx.store.update(args.get(1), |old| {
        let mut opened = match open(old, ValueKind::Hash) {
            Ok(o) => o,
            Err(e) => return (Mutation::Keep, Err(e)),
        };
        if find(&opened.elements, field).is_some() {
            return (Mutation::Keep, Ok(false));
        }
        opened.elements.extend([field, value]);
        (
            save(ValueKind::Hash, &opened.elements, opened.expires_at),
            Ok(true),
        )
    })??;
    out.integer(i64::from(set));
    Ok(())
}
