//! List commands. A list is packed (one record of its elements in order,
//! Redis's listpack) or, past `list-max-listpack-size`, large (a deque of
//! chunk records, Redis's quicklist): commands change it through
//! [`either`] and read it through [`view`]. Pushes wake clients blocked on
//! the key ([`blocking`](crate::blocking)).

pub mod blmove;
pub mod bpop;
pub mod either;
mod ends;
pub mod give_back;
pub mod linsert;
pub mod lmove;
pub mod lmpop;
pub mod lpos;
pub mod lrange;
pub mod lrem;
pub mod lset;
pub mod ltrim;
mod op;
pub mod pop;
pub mod push;
pub mod view;

pub use ends::{index, range, End};
pub use op::Op;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

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
        Op::LMPop => lmpop::lmpop(ctx, args, out, lmpop::Form::Now),
        Op::BLMPop => lmpop::lmpop(ctx, args, out, lmpop::Form::Blocking),
    }
}
