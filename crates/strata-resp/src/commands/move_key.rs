//! `MOVE key db`: Strata has one database (number 0), so a move is either
//! to itself or out of range, refused as Redis refuses them.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::number::parse_i64;
use crate::reply::{ClientError, RespError};
use crate::writer::ReplyWriter;

/// Refuses: database 0 is the source ("same object"), any other number is
/// out of range.
pub fn move_key<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    _out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if ctx.shared.cluster.get().is_some() {
        return Err(ClientError::NotInClusterMode("MOVE").into());
    }
    let index = parse_i64(args.get(2)).ok_or(RespError::NotInteger)?;
    let index = i32::try_from(index).map_err(|_| RespError::NotInt32)?;
    Err(if index == 0 {
        RespError::SameObject
    } else {
        RespError::DbIndexOutOfRange
    })
}
