//! `BLPOP key [key ...] timeout`, `BRPOP key [key ...] timeout`.

use strata_kv::Store;

use super::pop::pop_from;
use super::End;
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::blocking_pop::pop_first_or_block;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Pops from the first non-empty list among the keys: `[key, element]`;
/// otherwise blocks until a push or the timeout (then a null array).
pub fn bpop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    end: End,
) -> Result<(), RespError> {
    let pop = |ctx: &mut Ctx<'_, S>, key: &[u8]| -> Result<_, RespError> {
        let popped = pop_from(ctx, key, end, 1)?;
        Ok(popped.and_then(|p| p.into_iter().next()))
    };
    pop_first_or_block(ctx, args, out, pop, |out, key, element| {
        reply_served(out, key, &element)
    })?;
    // Blocked: a push may hand it an element (see `crate::blocking`).
    ctx.conn.block.take_handed(end == End::Left);
    Ok(())
}

/// The reply of a `BLPOP`/`BRPOP` a push handed `element` of `key` to.
pub fn reply_served(out: &mut ReplyWriter<'_>, key: &[u8], element: &[u8]) {
    out.array(2);
    out.bulk(key);
    out.bulk(element);
}
