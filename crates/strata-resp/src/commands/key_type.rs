//! `TYPE key`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The type of the key's value (`string`, `hash`, `list`, `set`, `zset`),
/// `none` for a missing key. Reads no value.
pub fn key_type<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    out.simple(ctx.store.kind(args.get(1)).map_or("none", type_name));
    Ok(())
}

/// Redis's name of a value kind (`TYPE`, `SCAN ... TYPE`).
pub fn type_name(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::String => "string",
        ValueKind::Hash => "hash",
        ValueKind::List => "list",
        ValueKind::Set => "set",
        ValueKind::SortedSet => "zset",
        ValueKind::Stream => "stream",
    }
}
