//! `LLEN key`, `LRANGE key start stop`, `LINDEX key index`.

use strata_kv::{Store, ValueKind};

use super::{index, range};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The list's length (0 for a missing key).
pub fn llen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let n = read(ctx.store, args.get(1), ValueKind::List, |list| list.len())?;
    out.integer(n.unwrap_or(0) as i64);
    Ok(())
}

/// The elements from start to stop, inclusive (negative from the end).
pub fn lrange<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let start = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let stop = parse_i64(args.get(3)).ok_or(RespError::NotInteger)?;
    let found = read(ctx.store, args.get(1), ValueKind::List, |list| match range(
        start,
        stop,
        list.len(),
    ) {
        Some((s, e)) => {
            out.array(e - s + 1);
            for item in &list[s..=e] {
                out.bulk(item);
            }
        }
        None => out.array(0),
    })?;
    if found.is_none() {
        out.array(0);
    }
    Ok(())
}

/// The element at the index, or null.
pub fn lindex<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let i = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let found = read(
        ctx.store,
        args.get(1),
        ValueKind::List,
        |list| match index(i, list.len()) {
            Some(at) => out.bulk(list[at]),
            None => out.null(),
        },
    )?;
    if found.is_none() {
        out.null();
    }
    Ok(())
}
