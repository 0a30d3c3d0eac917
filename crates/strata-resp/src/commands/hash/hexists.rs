//! `HEXISTS key field`.

use strata_kv::{Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// 1 if the field exists, else 0.
pub fn hexists<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let field = args.get(2);
    let found = read(ctx.store, args.get(1), ValueKind::Hash, |pairs| {
        find(pairs, field).is_some()
    })?;
    out.integer(i64::from(found.unwrap_or(false)));
    Ok(())
}
