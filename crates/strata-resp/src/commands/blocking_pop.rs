//! What the blocking pops (`BLPOP`/`BRPOP`, `BZPOPMIN`/`BZPOPMAX`,
//! `BLMPOP`/`BZMPOP`, `BLMOVE`) share: trying the keys in order and
//! blocking when none has anything (see [`crate::blocking`]), passing the
//! turn on to the next client blocked on a key that still has elements
//! after a pop; and the arguments of the `MPOP` family ([`MPop`]).

use std::time::Duration;

use strata_kv::Store;

use crate::args::Args;
use crate::blocking::{block_on, parse_timeout, Outcome};
use crate::command::Ctx;
use crate::reply::{CollectionError, RespError};
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

/// `<command> key [key ...] timeout`: the keys and the timeout as
/// [`first_or_block`] takes them.
pub fn pop_first_or_block<'c, S: Store, T>(
    ctx: &mut Ctx<'c, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    pop: impl FnMut(&mut Ctx<'c, S>, &[u8]) -> Result<Option<T>, RespError>,
    reply: impl FnOnce(&mut ReplyWriter<'_>, &[u8], T),
) -> Result<(), RespError> {
    let timeout = parse_timeout(args.get(args.len() - 1))?;
    let keys: Vec<&[u8]> = (1..args.len() - 1).map(|i| args.get(i)).collect();
    first_or_block(ctx, &keys, timeout, out, pop, reply)
}

/// `pop` tries each of `keys` in order; the first that gives something
/// has it written by `reply` (with its key) and the turn handed on. When
/// none does, the client blocks until a push or the `timeout` (then a
/// null array).
pub fn first_or_block<'c, S: Store, T>(
    ctx: &mut Ctx<'c, S>,
    keys: &[&[u8]],
    timeout: Option<Duration>,
    out: &mut ReplyWriter<'_>,
    pop: impl FnMut(&mut Ctx<'c, S>, &[u8]) -> Result<Option<T>, RespError>,
    reply: impl FnOnce(&mut ReplyWriter<'_>, &[u8], T),
) -> Result<(), RespError> {
    // Read before looking at the keys, so no push in between is missed.
    let seq = ctx.shared.waiters.seq(keys.iter().copied());
    if let Some((key, popped)) = pop_first(ctx, keys, pop)? {
        reply(out, key, popped);
        hand_on(ctx, key);
        return Ok(());
    }
    let can_wait = !ctx.store.is_exclusive();
    let keys = keys.iter().map(|&k| Box::from(k));
    match block_on(&mut ctx.conn.block, keys, timeout, seq, can_wait)? {
        Outcome::TimedOut => out.null_array(),
        Outcome::Blocked => {}
    }
    Ok(())
}

/// `LMPOP`'s and `ZMPOP`'s way: `pop` tries `keys` in order and the first
/// that gives something is written by `reply`; when none does, the
/// blocking form (its `timeout` argument given, read only now, after the
/// other arguments, as Redis does) blocks, the other replies a null array.
pub fn pop_first_or_null<'c, S: Store, T>(
    ctx: &mut Ctx<'c, S>,
    keys: &[&[u8]],
    timeout: Option<&[u8]>,
    out: &mut ReplyWriter<'_>,
    pop: impl FnMut(&mut Ctx<'c, S>, &[u8]) -> Result<Option<T>, RespError>,
    reply: impl FnOnce(&mut ReplyWriter<'_>, &[u8], T),
) -> Result<(), RespError> {
    if let Some(timeout) = timeout {
        let timeout = parse_timeout(timeout)?;
        return first_or_block(ctx, keys, timeout, out, pop, reply);
    }
    match pop_first(ctx, keys, pop)? {
        Some((key, popped)) => reply(out, key, popped),
        None => out.null_array(),
    }
    Ok(())
}

/// The first of `keys` (in order) from which `pop` takes something, with
/// what it took.
pub fn pop_first<'c, 'k, S: Store, T>(
    ctx: &mut Ctx<'c, S>,
    keys: &[&'k [u8]],
    mut pop: impl FnMut(&mut Ctx<'c, S>, &[u8]) -> Result<Option<T>, RespError>,
) -> Result<Option<(&'k [u8], T)>, RespError> {
    for &key in keys {
        if let Some(popped) = pop(ctx, key)? {
            return Ok(Some((key, popped)));
        }
    }
    Ok(None)
}

/// `[timeout] numkeys key [key ...] <side> [COUNT count]`: the arguments
/// of `LMPOP`, `ZMPOP` and their blocking forms from `numkeys` on.
#[derive(Debug)]
pub struct MPop<'a, T> {
    /// The keys, in the order they are tried.
    pub keys: Vec<&'a [u8]>,
    /// Which end (`LEFT`/`RIGHT`, `MIN`/`MAX`), as `side` parsed it.
    pub side: T,
    /// At most this many elements (1 without `COUNT`).
    pub count: usize,
}

impl<'a, T> MPop<'a, T> {
    /// Parses from `numkeys` at argument `at`, in Redis's order: numkeys,
    /// the side word, then `COUNT` (once).
    pub fn parse(
        args: &Args<'a>,
        at: usize,
        side: impl FnOnce(&[u8]) -> Result<T, RespError>,
    ) -> Result<Self, RespError> {
        let numkeys = crate::number::parse_i64(args.get(at))
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n > 0)
            .ok_or(CollectionError::MPopNumKeys)?;
        let side_at = (at + 1)
            .checked_add(numkeys)
            .filter(|&i| i < args.len())
            .ok_or(RespError::Syntax)?;
        let side = side(args.get(side_at))?;
        let mut count = None;
        let mut i = side_at + 1;
        while i < args.len() {
            let more = i + 1 < args.len();
            if count.is_none() && more && args.get(i).eq_ignore_ascii_case(b"count") {
                let n = crate::number::parse_i64(args.get(i + 1))
                    .and_then(|n| usize::try_from(n).ok())
                    .filter(|&n| n > 0)
                    .ok_or(CollectionError::MPopCount)?;
                count = Some(n);
                i += 2;
            } else {
                return Err(RespError::Syntax);
            }
        }
        Ok(MPop {
            keys: (at + 1..side_at).map(|k| args.get(k)).collect(),
            side,
            count: count.unwrap_or(1),
        })
    }
}
