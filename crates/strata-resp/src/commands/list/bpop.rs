//! `BLPOP key [key ...] timeout`, `BRPOP key [key ...] timeout`.

use strata_kv::Store;

use super::pop::pop_from;
use super::End;
use crate::args::Args;
use crate::blocking::{block_on, parse_timeout, Outcome};
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// After a blocked client's pop: if elements remain, the next client
/// blocked on `key` gets its turn (see [`crate::blocking`]).
pub fn hand_on<S: Store>(ctx: &mut Ctx<'_, S>, key: &[u8]) {
    if ctx.store.kind(key).is_some() {
        ctx.shared.waiters.pushed(key);
    }
}

/// Pops from the first non-empty list among the keys: `[key, element]`;
/// otherwise blocks until a push or the timeout (then a null array).
pub fn bpop<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    end: End,
) -> Result<(), RespError> {
    let timeout = parse_timeout(args.get(args.len() - 1))?;
    let keys = 1..args.len() - 1;
    let seq = ctx.shared.waiters.seq();
    for i in keys.clone() {
        let key = args.get(i);
        let limit = ctx.shared.encodings.list_limit();
        if let Some(popped) = pop_from(ctx.store, limit, key, end, 1)? {
            if let Some(element) = popped.first() {
                out.array(2);
                out.bulk(key);
                out.bulk(element);
                hand_on(ctx, key);
                return Ok(());
            }
        }
    }
    let can_wait = !ctx.store.is_exclusive();
    let keys = keys.map(|i| Box::from(args.get(i)));
    match block_on(&mut ctx.conn.block, keys, timeout, seq, can_wait) {
        Outcome::TimedOut => out.null_array(),
        Outcome::Blocked => {}
    }
    Ok(())
}
