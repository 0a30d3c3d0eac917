//! Bitmap commands: strings read and written as arrays of bits, as Redis
//! has them. Bit 0 is the most significant bit of the first byte; a string
//! grows with zero bytes when a bit past its end is set, and reads past the
//! end find zeros. Offsets are bounded as Redis bounds them (the byte they
//! fall in below `proto-max-bulk-len`), and growth by the engine's maximum
//! item size.
//!
//! `bits.rs` holds what the commands share; one file per command.

pub mod bitcount;
pub mod bitfield;
pub mod bitop;
pub mod bitpos;
pub mod bits;
pub mod getbit;
mod op;
pub mod setbit;

pub use op::Op;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Runs bitmap command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match op {
        Op::SetBit => setbit::setbit(ctx, args, out),
        Op::GetBit => getbit::getbit(ctx, args, out),
        Op::BitCount => bitcount::bitcount(ctx, args, out),
        Op::BitPos => bitpos::bitpos(ctx, args, out),
        Op::BitOp => bitop::bitop(ctx, args, out),
        Op::BitField => bitfield::bitfield(ctx, args, out, bitfield::Access::ReadWrite),
        Op::BitFieldRo => bitfield::bitfield(ctx, args, out, bitfield::Access::ReadOnly),
    }
}
