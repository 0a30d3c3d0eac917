//! Hash commands. A hash is a packed collection of fields and values
//! alternating, in insertion order (see [`collection`](super::collection)).

mod fields;
pub mod hdel;
pub mod hexists;
pub mod hget;
pub mod hgetall;
pub mod hincrby;
pub mod hincrbyfloat;
pub mod hlen;
pub mod hmget;
pub mod hrandfield;
pub mod hscan;
pub mod hset;
pub mod hsetnx;
pub mod hstrlen;
mod large;
mod op;

pub use fields::{find, with_field, Fields};
pub use op::Op;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Runs hash command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match op {
        Op::HSet => hset::hset(ctx, args, out, hset::Reply::Added),
        Op::HMSet => hset::hset(ctx, args, out, hset::Reply::Ok),
        Op::HSetNx => hsetnx::hsetnx(ctx, args, out),
        Op::HGet => hget::hget(ctx, args, out),
        Op::HMGet => hmget::hmget(ctx, args, out),
        Op::HGetAll => hgetall::hgetall(ctx, args, out, hgetall::Part::Both),
        Op::HKeys => hgetall::hgetall(ctx, args, out, hgetall::Part::Fields),
        Op::HVals => hgetall::hgetall(ctx, args, out, hgetall::Part::Values),
        Op::HDel => hdel::hdel(ctx, args, out),
        Op::HExists => hexists::hexists(ctx, args, out),
        Op::HLen => hlen::hlen(ctx, args, out),
        Op::HIncrBy => hincrby::hincrby(ctx, args, out),
        Op::HIncrByFloat => hincrbyfloat::hincrbyfloat(ctx, args, out),
        Op::HStrLen => hstrlen::hstrlen(ctx, args, out),
        Op::HRandField => hrandfield::hrandfield(ctx, args, out),
        Op::HScan => hscan::hscan(ctx, args, out),
    }
}
