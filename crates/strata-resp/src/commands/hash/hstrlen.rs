//! `HSTRLEN key field`.

use strata_kv::{Store, ValueKind};

use super::find;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::hashed::{read_packed, Read};
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The length of the field's value (0 when absent).
pub fn hstrlen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let (key, field) = (args.get(1), args.get(2));
    let len = match read_packed(ctx.store, key, ValueKind::Hash, |pairs| {
        find(pairs, field).map_or(0, |at| pairs[at * 2 + 1].len())
    })? {
        Read::Packed(len) => len,
        Read::Missing => 0,
        Read::Large => super::large::values(ctx.store, key, [field].into_iter())?
            .and_then(|mut v| v.pop().flatten())
            .map_or(0, |v| v.len()),
    };
    out.integer(len as i64);
    Ok(())
}
