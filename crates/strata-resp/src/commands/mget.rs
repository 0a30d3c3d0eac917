//! `MGET key [key ...]`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// `MGET`: one value (or null) per key.
pub fn mget<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    out.array(args.len() - 1);
    for key in args.iter_from(1) {
        if ctx.store.get(key, |item| out.bulk(item.value)).is_none() {
            out.null();
        }
    }
    Ok(())
}
