//! `GETBIT key offset`.

use strata_kv::Store;

use super::bits::{bit_offset, get_bit};
use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// The bit at `offset`: 0 past the end or for a missing key.
pub fn getbit<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let offset = bit_offset(args.get(2), None, ctx.shared.max_bulk())?;
    let bit = ctx
        .store
        .get(args.get(1), |item| match not_string(Some(item)) {
            true => Err(RespError::WrongType),
            false => Ok(get_bit(item.value, offset)),
        })
        .transpose()?
        .unwrap_or(false);
    out.integer(i64::from(bit));
    Ok(())
}
