//! `STRLEN key`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `STRLEN`: the value's length, 0 when missing.
pub fn strlen<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let len = ctx
        .store
        .get(args.get(1), |item| match not_string(Some(item)) {
            true => Err(RespError::WrongType),
            false => Ok(item.value.len()),
        })
        .transpose()?
        .unwrap_or(0);
    out.integer(len as i64);
    Ok(())
}
