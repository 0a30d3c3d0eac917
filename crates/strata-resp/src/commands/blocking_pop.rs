//! What the blocking pops (`BLPOP`/`BRPOP`, `BZPOPMIN`/`BZPOPMAX`,
//! `BLMOVE`) share: trying the keys in order and blocking when none has
//! anything (see [`crate::blocking`]), and passing the turn on to the next
//! client blocked on a key that still has elements after a pop.

use strata_kv::Store;

use crate::args::Args;
use crate::blocking::{block_on, parse_timeout, Outcome};
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// After a blocked client's pop: if elements remain, the next client
/// blocked on `key` gets its turn (see [`crate::blocking`]).
pub fn hand_on<S: Store>(ctx: &mut Ctx<'_, S>, key: &[u8]) {
    // Nobody waiting: no turn to pass, and no lookup. No wake-up is lost:
    // a client that looked at the key after this pop sees the leftovers;
    // one that looked before found it empty, so a push came after its look
    // and that push's counter wakes it.
    if ctx.shared.waiters.any_waiting() && ctx.store.kind(key).is_some() {
        ctx.shared.waiters.pushed(key);
    }
}

/// `<command> key [key ...] timeout`: `pop` tries each key in order; the
/// first element popped is written by `reply` (with its key) and the turn
/// handed on. When no key has one, the client blocks until a push or the
/// timeout (then a null array).
pub fn pop_first_or_block<'c, S: Store, T>(
    ctx: &mut Ctx<'c, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    mut pop: impl FnMut(&mut Ctx<'c, S>, &[u8]) -> Result<Option<T>, RespError>,
    reply: impl FnOnce(&mut ReplyWriter<'_>, &[u8], T),
) -> Result<(), RespError> {
    let timeout = parse_timeout(args.get(args.len() - 1))?;
    let keys = 1..args.len() - 1;
    let seq = ctx.shared.waiters.seq(keys.clone().map(|i| args.get(i)));
    for i in keys.clone() {
        let key = args.get(i);
        if let Some(popped) = pop(ctx, key)? {
            reply(out, key, popped);
            hand_on(ctx, key);
            return Ok(());
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
