//! `HGET key field`.

use strata_kv::{Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The field's value, or null.
pub fn hget<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let field = args.get(2);
    let found = read(
        ctx.store,
        args.get(1),
        ValueKind::Hash,
        |pairs| match find(pairs, field) {
            Some(at) => out.bulk(pairs[at * 2 + 1]),
            None => out.null(),
        },
    )?;
    if found.is_none() {
        out.null();
    }
    Ok(())
}
