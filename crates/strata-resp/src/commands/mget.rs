//! `MGET key [key ...]`.

use strata_kv::Store;

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::not_string;
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
        // A key of another type reads as missing, as in Redis.
        let found = ctx.store.get(key, |item| {
            if !not_string(Some(item)) {
                out.bulk(item.value);
                true
            } else {
                false
            }
        });
        if found != Some(true) {
            out.null();
        }
    }
    Ok(())
}
