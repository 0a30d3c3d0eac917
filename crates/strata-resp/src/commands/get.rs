//! `GET key`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `GET key`: the value, or null.
pub fn get<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let found = ctx.store.get(args.get(1), |item| {
        if not_string(Some(item)) {
            return Err(RespError::WrongType);
        }
        out.bulk(item.value);
        Ok(())
    });
    match found {
        Some(result) => result,
        None => {
            out.null();
            Ok(())
        }
    }
}
