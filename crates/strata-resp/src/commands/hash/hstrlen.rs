//! `HSTRLEN key field`.

use strata_kv::{Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read, View};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The length of the field's value (0 when absent).
pub fn hstrlen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let len = read(ctx.store, key, ValueKind::Hash, |hash| match hash {
        View::Packed(pairs) => Ok(find(pairs, field).map_or(0, |at| pairs[at * 2 + 1].len())),
        View::Large(hash) => Ok(hash.get(field)?.map_or(0, |v| v.len())),
    })?
    .unwrap_or(0);
    out.integer(len as i64);
    Ok(())
}
