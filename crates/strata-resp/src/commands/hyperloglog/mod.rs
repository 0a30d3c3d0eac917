//! HyperLogLog commands: `PFADD`, `PFCOUNT`, `PFMERGE` (and Redis's internal
//! `PFDEBUG` and `PFSELFTEST`) over string values in
//! Redis's format ([`crate::hll`]). A string that is not one answers
//! `WRONGTYPE Key is not a valid HyperLogLog string value.`, another type
//! the usual `WRONGTYPE`; one file per command.

mod op;
pub mod pfadd;
pub mod pfcount;
pub mod pfdebug;
pub mod pfmerge;
pub mod pfselftest;
pub mod value;

pub use op::Op;

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Runs HyperLogLog command `op`.
pub fn run<S: Store>(
    op: Op,
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    match op {
        Op::PfAdd => pfadd::pfadd(ctx, args, out),
        Op::PfCount => pfcount::pfcount(ctx, args, out),
        Op::PfDebug => pfdebug::pfdebug(ctx, args, out),
        Op::PfMerge => pfmerge::pfmerge(ctx, args, out),
        Op::PfSelfTest => pfselftest::pfselftest(out),
    }
}
