//! Sorted-set commands, over either encoding through [`view::Ordered`]:
//! a packed record of members and scores in (score, member) order, or a
//! large set of chunk records (`strata_kv::large::Sorted`); `stored.rs`
//! opens a key as one or the other. Commands work in ranks: a score or
//! lexicographic range is first turned into a span of ranks.

mod algebra;
pub mod bounds;
mod entries;
mod op;
pub mod stored;
pub mod view;
pub mod zadd;
pub mod zcombine;
pub mod zcount;
pub mod zintercard;
pub mod zmpop;
pub mod zpop;
pub mod zrandmember;
pub mod zrange;
pub mod zrank;
pub mod zrem;
pub mod zscan;
pub mod zscore;
pub mod zstore;

pub use algebra::Algebra;
pub use entries::reply_entries;
pub use op::Op;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Runs sorted-set command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    use zrange::Form;
    match op {
        Op::ZAdd => zadd::zadd(ctx, args, out),
        Op::ZIncrBy => zadd::zincrby(ctx, args, out),
        Op::ZRem => zrem::zrem(ctx, args, out),
        Op::ZRemRangeByScore => zrem::zremrange(ctx, args, out, zrem::By::Score),
        Op::ZRemRangeByRank => zrem::zremrange(ctx, args, out, zrem::By::Rank),
        Op::ZRemRangeByLex => zrem::zremrange(ctx, args, out, zrem::By::Lex),
        Op::ZScore => zscore::zscore(ctx, args, out, zscore::Form::One),
        Op::ZMScore => zscore::zscore(ctx, args, out, zscore::Form::Many),
        Op::ZCard => zcount::zcard(ctx, args, out),
        Op::ZCount => zcount::zcount(ctx, args, out, zcount::By::Score),
        Op::ZLexCount => zcount::zcount(ctx, args, out, zcount::By::Lex),
        Op::ZRank => zrank::zrank(ctx, args, out, false),
        Op::ZRevRank => zrank::zrank(ctx, args, out, true),
        Op::ZRange => zrange::zrange(ctx, args, out, Form::ZRange),
        Op::ZRangeStore => zrange::zrange(ctx, args, out, Form::ZRangeStore),
        Op::ZRevRange => zrange::zrange(ctx, args, out, Form::ZRevRange),
        Op::ZRangeByScore => zrange::zrange(ctx, args, out, Form::ByScore),
        Op::ZRevRangeByScore => zrange::zrange(ctx, args, out, Form::RevByScore),
        Op::ZRangeByLex => zrange::zrange(ctx, args, out, Form::ByLex),
        Op::ZRevRangeByLex => zrange::zrange(ctx, args, out, Form::RevByLex),
        Op::ZPopMin => zpop::zpop(ctx, args, out, zpop::Side::Min),
        Op::ZPopMax => zpop::zpop(ctx, args, out, zpop::Side::Max),
        Op::BZPopMin => zpop::bzpop(ctx, args, out, zpop::Side::Min),
        Op::BZPopMax => zpop::bzpop(ctx, args, out, zpop::Side::Max),
        Op::ZUnionStore => zstore::zstore(ctx, args, out, Algebra::Union),
        Op::ZInterStore => zstore::zstore(ctx, args, out, Algebra::Inter),
        Op::ZDiffStore => zstore::zstore(ctx, args, out, Algebra::Diff),
        Op::ZUnion => zcombine::zcombine(ctx, args, out, Algebra::Union),
        Op::ZInter => zcombine::zcombine(ctx, args, out, Algebra::Inter),
        Op::ZDiff => zcombine::zcombine(ctx, args, out, Algebra::Diff),
        Op::ZInterCard => zintercard::zintercard(ctx, args, out),
        Op::ZMPop => zmpop::zmpop(ctx, args, out, zmpop::Form::Now),
        Op::BZMPop => zmpop::zmpop(ctx, args, out, zmpop::Form::Blocking),
        Op::ZRandMember => zrandmember::zrandmember(ctx, args, out),
        Op::ZScan => zscan::zscan(ctx, args, out),
    }
}
