//! `SWAPDB index1 index2`: with one database, swapping 0 with itself is
//! the only valid swap (it changes nothing), as in a Redis with
//! `databases 1`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

fn index(arg: &[u8], which: &'static str) -> Result<i64, RespError> {
    parse_i64(arg)
        .filter(|n| i32::try_from(*n).is_ok())
        .ok_or(RespError::InvalidDbIndex(which))
}

/// `+OK` for `SWAPDB 0 0`; out of range for any other database.
pub fn swapdb<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if ctx.shared.cluster.get().is_some() {
        return Err(ClientError::NotInClusterMode("SWAPDB").into());
    }
    let first = index(args.get(1), "first")?;
    let second = index(args.get(2), "second")?;
    if first != 0 || second != 0 {
        return Err(RespError::DbIndexOutOfRange);
    }
    out.ok();
    Ok(())
}
