//! `BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout` and
//! `BRPOPLPUSH source destination timeout`.

use strata_kv::Store;

use super::lmove::move_element;
use super::End;
use crate::args::Args;
use crate::blocking::{block_on, parse_timeout, Outcome};
use crate::command::Ctx;
use crate::commands::blocking_pop::hand_on;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Which spelling.
#[derive(Debug, Clone, Copy)]
pub enum Form {
    /// `BLMOVE src dst from to timeout`.
    BLMove,
    /// `BRPOPLPUSH src dst timeout` (RIGHT to LEFT).
    BRPopLPush,
}

/// LMOVE, or waits for the source to get an element (null at the timeout).
pub fn blmove<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
    form: Form,
) -> Result<(), RespError> {
    let (from, to, timeout) = match form {
        Form::BLMove => (
            End::parse(args.get(3))?,
            End::parse(args.get(4))?,
            args.get(5),
        ),
        Form::BRPopLPush => (End::Right, End::Left, args.get(3)),
    };
    let timeout = parse_timeout(timeout)?;
    let (source, destination) = (args.get(1), args.get(2));
    let seq = ctx.shared.waiters.seq([source]);
    if let Some(e) = move_element(ctx, source, destination, from, to)? {
        ctx.shared.waiters.pushed(destination);
        hand_on(ctx, source);
        out.bulk(&e);
        return Ok(());
    }
    let can_wait = !ctx.store.is_exclusive();
    let keys = std::iter::once(Box::from(source));
    match block_on(&mut ctx.conn.block, keys, timeout, seq, can_wait)? {
        Outcome::TimedOut => out.null(),
        Outcome::Blocked => {}
    }
    Ok(())
}
