//! Stream commands (Redis 5-7.2): entries (`XADD`, `XRANGE`, `XREVRANGE`,
//! `XLEN`, `XDEL`, `XTRIM`, `XSETID`), reading and blocking (`XREAD`,
//! `XREADGROUP`), consumer groups (`XGROUP`, `XACK`, `XPENDING`,
//! `XCLAIM`, `XAUTOCLAIM`) and introspection (`XINFO`).
//!
//! The stream itself is [`crate::stream`]'s; `stored.rs` reads it from and
//! writes it to the key, `entries.rs` writes entries in replies,
//! `trim_args.rs` reads the trim options `XADD` and `XTRIM` share,
//! `info_stream.rs` writes `XINFO STREAM`'s reply, `dumped.rs` turns a
//! stream into its `DUMP` form and back.

pub mod dumped;
mod entries;
mod info_stream;
mod op;
mod stored;
mod trim_args;
pub mod xack;
pub mod xadd;
pub mod xautoclaim;
pub mod xclaim;
pub mod xdel;
pub mod xgroup;
pub mod xinfo;
pub mod xlen;
pub mod xpending;
pub mod xrange;
pub mod xread;
pub mod xsetid;
pub mod xtrim;

pub use op::Op;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Runs stream command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match op {
        Op::XAdd => xadd::xadd(ctx, args, out),
        Op::XLen => xlen::xlen(ctx, args, out),
        Op::XRange => xrange::xrange(ctx, args, out, xrange::Order::Forward),
        Op::XRevRange => xrange::xrange(ctx, args, out, xrange::Order::Reverse),
        Op::XDel => xdel::xdel(ctx, args, out),
        Op::XTrim => xtrim::xtrim(ctx, args, out),
        Op::XSetId => xsetid::xsetid(ctx, args, out),
        Op::XRead => xread::xread(ctx, args, out, xread::Mode::Plain),
        Op::XReadGroup => xread::xread(ctx, args, out, xread::Mode::Group),
        Op::XGroup => xgroup::xgroup(ctx, args, out),
        Op::XAck => xack::xack(ctx, args, out),
        Op::XPending => xpending::xpending(ctx, args, out),
        Op::XClaim => xclaim::xclaim(ctx, args, out),
        Op::XAutoClaim => xautoclaim::xautoclaim(ctx, args, out),
        Op::XInfo => xinfo::xinfo(ctx, args, out),
    }
}
