//! Set commands. A set is a packed collection of its members, unordered
//! (see [`collection`](super::collection)).

pub mod algebra;
mod members;
mod op;
pub mod sadd;
pub mod scard;
pub mod sismember;
pub mod smembers;
pub mod smove;
pub mod spop;
pub mod srem;
pub mod sscan;

pub use members::{members, Members};
pub use op::Op;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Runs set command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    use algebra::Algebra::{Diff, Inter, Union};
    match op {
        Op::SAdd => sadd::sadd(ctx, args, out),
        Op::SRem => srem::srem(ctx, args, out),
        Op::SMembers => smembers::smembers(ctx, args, out),
        Op::SIsMember => sismember::sismember(ctx, args, out, sismember::Form::One),
        Op::SMIsMember => sismember::sismember(ctx, args, out, sismember::Form::Many),
        Op::SCard => scard::scard(ctx, args, out),
        Op::SPop => spop::spop(ctx, args, out, spop::Form::Pop),
        Op::SRandMember => spop::spop(ctx, args, out, spop::Form::Random),
        Op::SMove => smove::smove(ctx, args, out),
        Op::SInter => algebra::reply(ctx, args, out, Inter),
        Op::SUnion => algebra::reply(ctx, args, out, Union),
        Op::SDiff => algebra::reply(ctx, args, out, Diff),
        Op::SInterStore => algebra::store(ctx, args, out, Inter),
        Op::SUnionStore => algebra::store(ctx, args, out, Union),
        Op::SDiffStore => algebra::store(ctx, args, out, Diff),
        Op::SInterCard => algebra::intercard(ctx, args, out),
        Op::SScan => sscan::sscan(ctx, args, out),
    }
}
