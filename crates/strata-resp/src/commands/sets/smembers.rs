//! `SMEMBERS key`.

use strata_kv::{Store, ValueKind};

use crate::args::Args;
use crate::command::Ctx;
use crate::commands::collection::read;
use crate::reply::RespError;
use crate::writer::ReplyWriter;

/// Every member (RESP3: a set reply).
pub fn smembers<S: Store>(
    ctx: &mut Ctx<'_, S>,
    args: Args<'_>,
    out: &mut ReplyWriter<'_>,
) -> Result<(), RespError> {
    let found = read(ctx.store, args.get(1), ValueKind::Set, |set| {
        out.set(set.len());
        for m in set {
            out.bulk(m);
        }
    })?;
    if found.is_none() {
        out.set(0);
    }
    Ok(())
}
