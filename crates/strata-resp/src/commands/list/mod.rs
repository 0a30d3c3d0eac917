//! List commands. A list is a packed collection of its elements in order
//! (see [`collection`](super::collection)); pushes wake clients blocked on
//! the key ([`blocking`](crate::blocking)).

pub mod blmove;
pub mod bpop;
pub mod linsert;
pub mod lmove;
pub mod lpos;
pub mod lrange;
pub mod lrem;
pub mod lset;
pub mod ltrim;
pub mod pop;
pub mod push;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Which list command runs (one row of the command table each).
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    LPush,
    RPush,
    LPushX,
    RPushX,
    LPop,
    RPop,
    LLen,
    LRange,
    LIndex,
    LSet,
    LInsert,
    LRem,
    LTrim,
    LPos,
    LMove,
    RPopLPush,
    BLPop,
    BRPop,
    BLMove,
    BRPopLPush,
}

/// An end of a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The head (LEFT).
    Left,
    /// The tail (RIGHT).
    Right,
}

impl End {
    /// Parses `LEFT` or `RIGHT`.
    pub fn parse(arg: &[u8]) -> Result<Self, RespError> {
        if arg.eq_ignore_ascii_case(b"left") {
            Ok(Self::Left)
        } else if arg.eq_ignore_ascii_case(b"right") {
            Ok(Self::Right)
        } else {
            Err(RespError::Syntax)
        }
    }
}

/// Runs list command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    use End::{Left, Right};
    match op {
        Op::LPush => push::push(ctx, args, out, Left, push::Create::Yes),
        Op::RPush => push::push(ctx, args, out, Right, push::Create::Yes),
        Op::LPushX => push::push(ctx, args, out, Left, push::Create::No),
        Op::RPushX => push::push(ctx, args, out, Right, push::Create::No),
        Op::LPop => pop::pop(ctx, args, out, Left),
        Op::RPop => pop::pop(ctx, args, out, Right),
        Op::LLen => lrange::llen(ctx, args, out),
        Op::LRange => lrange::lrange(ctx, args, out),
        Op::LIndex => lrange::lindex(ctx, args, out),
        Op::LSet => lset::lset(ctx, args, out),
        Op::LInsert => linsert::linsert(ctx, args, out),
        Op::LRem => lrem::lrem(ctx, args, out),
        Op::LTrim => ltrim::ltrim(ctx, args, out),
        Op::LPos => lpos::lpos(ctx, args, out),
        Op::LMove => {
            let from = End::parse(args.get(3))?;
            let to = End::parse(args.get(4))?;
            lmove::lmove(ctx, args.get(1), args.get(2), from, to, out)
        }
        Op::RPopLPush => lmove::lmove(ctx, args.get(1), args.get(2), Right, Left, out),
        Op::BLPop => bpop::bpop(ctx, args, out, Left),
        Op::BRPop => bpop::bpop(ctx, args, out, Right),
        Op::BLMove => blmove::blmove(ctx, args, out, blmove::Form::BLMove),
        Op::BRPopLPush => blmove::blmove(ctx, args, out, blmove::Form::BRPopLPush),
    }
}

/// Redis's index into a list of `len`: negative counts from the end.
pub fn index(i: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let at = if i < 0 { len + i } else { i };
    (0..len).contains(&at).then_some(at as usize)
}

/// Redis's inclusive `start..=stop` range over a list of `len`, clamped;
/// `None` when empty.
pub fn range(start: i64, stop: i64, len: usize) -> Option<(usize, usize)> {
    let len = len as i64;
    let start = if start < 0 {
        (len + start).max(0)
    } else {
        start
    };
    let stop = if stop < 0 {
        len + stop
    } else {
        stop.min(len - 1)
    };
    (start <= stop && start < len).then_some((start as usize, stop as usize))
}
