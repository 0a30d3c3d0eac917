//! `LLEN key`, `LRANGE key start stop`, `LINDEX key index`.

use strata_kv::Store;

use super::view::read;
use super::{index, range};
use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The list's length (0 for a missing key).
pub fn llen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let n = read(ctx.store, args.get(1), |list| Ok(list.len()))?;
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
    let found = read(ctx.store, args.get(1), |list| {
        match range(start, stop, list.len() as usize) {
            Some((s, e)) => list.range(s as u64, e as u64),
            None => Ok(Vec::new()),
        }
    })?;
    let elements = found.unwrap_or_default();
    out.array(elements.len());
    for e in &elements {
        out.bulk(e);
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
    let found = read(ctx.store, args.get(1), |list| {
        match index(i, list.len() as usize) {
            Some(at) => list.range(at as u64, at as u64),
            None => Ok(Vec::new()),
        }
    })?;
    match found.and_then(|mut e| e.pop()) {
        Some(e) => out.bulk(&e),
        None => out.null(),
    }
    Ok(())
}
