//! `GET key`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `GET key`: the value, or null.
pub fn get<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    if ctx
        .store
        .get(args.get(1), |item| out.bulk(item.value))
        .is_none()
    {
        out.null();
    }
    Ok(())
}
