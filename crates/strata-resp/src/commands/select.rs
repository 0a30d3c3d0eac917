//! `SELECT index`: there is one database, number 0.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

/// `+OK` for database 0, an error for any other.
pub fn select<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let index = parse_i64(args.get(1)).ok_or(RespError::NotInteger)?;
    let index = i32::try_from(index).map_err(|_| RespError::NotInt32)?;
    if index != 0 && ctx.shared.cluster.get().is_some() {
        return Err(ClientError::NotInClusterMode("SELECT").into());
    }
    if index != 0 {
        return Err(RespError::DbIndexOutOfRange);
    }
    out.ok();
    Ok(())
}
